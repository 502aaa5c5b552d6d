// DeviceState: which states of a model run on an FPGA. A state of the root that computes (holds a node
// other than access nodes and map exits) and touches data in FPGA memory is a device state: the FPGA
// targets (codegen/fpga) make it a kernel, FpgaTransform (transforms/catalogue) makes states so.
#pragma once

#include "core/ir/DataDescriptor.h"

namespace dcw::ir {

class Sdfg;
class State;

inline bool isFpgaStorage(StorageType s) { return s == StorageType::FpgaGlobal || s == StorageType::FpgaLocal; }
// Whether the state holds a node other than access nodes and map exits.
bool stateComputes(const State& st);
bool isDeviceState(const Sdfg& sdfg, const State& st);

} // namespace dcw::ir
