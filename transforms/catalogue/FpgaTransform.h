// FpgaTransform: moves a model's computation onto the FPGA — every state of the root that computes
// becomes a device state, which the FPGA targets (codegen/fpga) generate as a kernel, and the data
// crosses between host and device memory in explicit states, as DaCe's FPGATransformSDFG does.
//
// Before:  state0: X -> Conv -> T -> Relu -> Y                (X input, Y output, T transient; host memory)
// After:   host_to_device: X -> fpga_X                          (a copy into FPGA global memory)
//          state0:         fpga_X -> Conv -> T -> Relu -> fpga_Y (T now in FPGA global memory; top-level maps fpga_pipeline)
//          device_to_host: fpga_Y -> Y
//
//  - Inputs, outputs and constants keep their host arrays (they are the program's arguments); each
//    one a device state uses gets a device copy `fpga_<name>` (FPGA global memory, alive through the
//    run), filled before the first device state when the device reads it and copied back after the
//    last when the device writes it.
//  - A transient only device states use moves to FPGA global memory itself (no copy).
//  - Maps at the top of a device state get the fpga_pipeline schedule; library nodes expand later,
//    for target fpga.
//  - With option whole_sdfg=false only the matched state moves, its copies just before and after it.
// Preconditions: the state is in the root SDFG, computes (a map, tasklet, library node or nested
// SDFG) and is not a device state yet; no data it uses steers control flow (an interstate condition
// or assignment reads it: the host would read a stale copy). Keeps the model differentiable (only
// storage and schedules change).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class FpgaTransform : public Transformation {
public:
  std::string_view name() const override { return "FpgaTransform"; }
  std::string_view description() const override {
    return "Run the model's states as FPGA kernels, with explicit copies between host and FPGA memory";
  }
  std::string_view category() const override { return "Targets"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

// Maps in device states as an FPGA runs them: at the top of a device state fpga_pipeline, inside it
// (expanded library nodes, nested SDFGs) default, where they had a CPU schedule (cpu_multicore,
// vectorized) or none. FpgaTransform does it to the states it moves; the FPGA targets' pipeline again
// after expanding library nodes (whose pure expansions ask for cpu_multicore).
void scheduleDeviceMaps(edit::Editor& editor);

// What the FPGA targets' pipeline does first (pipeline/Pipeline.h): unless a state of the model is on
// the device already (a script applied FpgaTransform as the user chose), FpgaTransform moves the whole
// model, from its first computing state. Returns the path of that state, or "" when nothing moved.
Expected<std::string> moveModelToFpga(edit::Editor& editor);

} // namespace dcw::transforms
