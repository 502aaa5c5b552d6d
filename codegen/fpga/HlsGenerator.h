// HlsGenerator: the FPGA targets' generator. Every device state (a state that computes on data in
// FPGA memory, as transforms/catalogue/FpgaTransform makes them) becomes a kernel in the Vitis HLS
// dialect of C++: one function with an `m_axi` interface per global array (a bundle per memory bank)
// and `s_axilite` control, its maps as loops with `PIPELINE II=1` on each innermost loop and `UNROLL`
// on unrolled maps, its transients as on-chip arrays. The rest of the program — copies between host
// and device memory, control flow, host states — is host code, and the host launches each kernel
// where the control flow reaches its state.
//
// Two outputs of the same kernels:
//  - Simulation (target `fpga-sim`): one C++ translation unit with the C ABI of
//    codegen/GeneratedCode.h, the kernels compiled with g++ against DCW's own stand-ins for the
//    vendor headers (codegen/fpga/shim/dcw_hls_sim.h), device memory being host memory. Its outputs
//    are real (C-simulation); it says nothing about time.
//  - Project (target `fpga`): what a user with Vitis builds — kernels.cpp (the kernels, with the
//    vendor's headers), and beside it the host program and the link configuration (FpgaProject.h).
#pragma once

#include "codegen/GeneratedCode.h"
#include "core/ir/DeviceState.h"
#include "core/support/Expected.h"

#include <string>
#include <vector>

namespace dcw::ir {
class Node;
class Sdfg;
class State;
} // namespace dcw::ir

namespace dcw::codegen {


struct HlsOptions {
  enum class Output { Simulation, Project };
  Output output = Output::Simulation;
  Instrumentation instrument; // host-side timing (states, copies, kernel launches as states)
};

// One kernel of the generated program: which state it is, its function and its arguments in order.
struct HlsKernel {
  ir::ElementId state = ir::kNoId;
  std::string statePath;
  std::string function;
  struct Arg {
    std::string name;       // the data or symbol name in the SDFG
    std::string id;         // the parameter's identifier
    bool isSymbol = false;
    std::string bundle;     // m_axi bundle (gmem<n>: one per data argument, each its own AXI port)
    int memoryBank = 0;     // the board's memory bank its data lives in (DataDescriptor::memoryBank)
  };
  std::vector<Arg> args;
};

struct HlsProgram {
  GeneratedCode code;               // Simulation: the whole program; Project: the host-side C ABI program with kernels in extraFiles
  std::vector<HlsKernel> kernels;   // in the order they appear
  std::string kernelsSource;        // the kernels alone, as the project's kernels.cpp holds them
};

// Fails naming the element when a state mixes host and device data, a device transient has no
// constant size, or anything the CPU generator refuses.
Expected<HlsProgram> generateHls(const ir::Sdfg& sdfg, const HlsOptions& options = {});

// A dataflow state's processing elements: the parts that stay connected without its stream access
// nodes, each as its top-level nodes in topological order; empty when the state has no stream.
std::vector<std::vector<const ir::Node*>> dataflowElements(const ir::Sdfg& sdfg, const ir::State& st);

} // namespace dcw::codegen
