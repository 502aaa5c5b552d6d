// DeviceState: which states of a model run on an accelerator. A state of the root that computes (holds a
// node other than access nodes and map exits) and touches data in FPGA memory is an FPGA device state,
// one that touches data in GPU memory a GPU state: the FPGA targets (codegen/fpga) make the first a
// kernel, the CUDA target (codegen/cuda) launches the second's maps as kernels. FpgaTransform and
// GpuTransform (transforms/catalogue) make states so.
#pragma once

#include "core/ir/DataDescriptor.h"

namespace dcw::ir {

class Sdfg;
class State;

inline bool isFpgaStorage(StorageType s) { return s == StorageType::FpgaGlobal || s == StorageType::FpgaLocal; }
inline bool isGpuStorage(StorageType s) { return s == StorageType::GpuGlobal || s == StorageType::GpuShared; }
// Whether the state holds a node other than access nodes and map exits.
bool stateComputes(const State& st);
// An FPGA device state.
bool isDeviceState(const Sdfg& sdfg, const State& st);
// A GPU state (`sdfg` is the SDFG whose data the state names: the root, or a nested SDFG).
bool isGpuState(const Sdfg& sdfg, const State& st);

} // namespace dcw::ir
