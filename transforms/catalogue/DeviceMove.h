// DeviceMove: what FpgaTransform and GpuTransform share — moving a model's computing states onto an
// accelerator with explicit copies between host and device memory, as DaCe's FPGATransformSDFG and
// GPUTransformSDFG do. The two differ in the device's storage, the names of the device copies, and how
// the maps of a device state are scheduled (`Device`).
//
//  - Inputs, outputs and constants keep their host arrays (they are the program's arguments); each
//    one a device state uses gets a device copy `<prefix><name>` (device global memory, alive through
//    the run), filled before the first device state when the device reads it and copied back after the
//    last when the device writes it.
//  - A transient only device states use moves to device global memory itself (no copy).
//  - With option whole_sdfg=false only the matched state moves, its copies just before and after it.
// Preconditions: the state is in the root SDFG, computes (a map, tasklet, library node or nested
// SDFG) and is not a device state yet; no data it uses steers control flow (an interstate condition
// or assignment reads it: the host would read a stale copy).
#pragma once

#include "core/ir/DataDescriptor.h"
#include "transforms/Transformation.h"

namespace dcw::transforms {

struct Device {
  std::string name;                                     // "FPGA", "GPU": in messages
  std::string prefix;                                   // of the device copies: "fpga_", "gpu_"
  ir::StorageType storage = ir::StorageType::Default;   // device global memory
  bool (*isDeviceStorage)(ir::StorageType) = nullptr;
  bool (*isDeviceState)(const ir::Sdfg&, const ir::State&) = nullptr;
  void (*scheduleMaps)(edit::Editor&) = nullptr;        // schedules the maps of the device states
};

// The pattern (a state) and the option (whole_sdfg) of a device move.
const Pattern& deviceMovePattern();
std::vector<OptionSpec> deviceMoveOptions();
bool canMoveToDevice(const Device& device, const Match& match, const ir::Sdfg& root, Diagnostics* whyNot);
Expected<void> moveToDevice(const Device& device, const Match& match, edit::Editor& editor);
// Unless a state of the model is on the device already, moves the whole model from its first
// computing state with `transformation` (the name recorded in the match). Returns that state's path,
// or "" when nothing moved.
Expected<std::string> moveModelToDevice(const Device& device, const std::string& transformation, edit::Editor& editor);

} // namespace dcw::transforms
