// RtlCosim: C/RTL co-simulation of an FPGA program, to measure cycles rather than estimate them. The
// program's kernels that RtlGenerator covers (integer and float32 pipelined loops: elementwise maps,
// reductions)
// become Verilog, which Verilator compiles into a cycle-accurate model; the C-simulation program
// (HlsGenerator's, unchanged) is built twice on the same input files:
//  - as C-simulation (every kernel its C++), and
//  - with each covered kernel replaced by a testbench function of the same signature that clocks the
//    Verilated kernel from start to done, serving its memory ports from the host's arrays: a read
//    returns its element kFpgaGlobalReadLatency cycles after it is issued, a write lands at the clock
//    edge (the memory model the estimate assumes), and counts the cycles of every launch.
// The two runs' outputs must be equal bit for bit (the RTL computes in the C-simulation's integer and
// binary32 semantics); the report gives per kernel the measured cycles beside the estimate (CycleEstimate.h)
// and, for a kernel left to C-simulation, why RTL does not cover it.
// Needs Verilator (the Debian package `verilator`) and g++; fails with what to install otherwise.
#pragma once

#include "codegen/fpga/RtlGenerator.h"
#include "core/ir/Tensor.h"
#include "core/support/Expected.h"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace dcw::ir {
class Sdfg;
}

namespace dcw::codegen {

struct RtlCosimOptions {
  std::string workDir;                  // where the sources, builds and runs go (created; kept); empty: a temporary folder, removed after
  std::string verilator = "verilator";
  std::string compiler = "g++";
  int jobs = 2;                         // parallel compile jobs of the Verilated model
};

struct RtlKernelResult {
  std::string function;
  std::string statePath;
  bool simulated = false;               // false: it ran in C-simulation; `reason` says why
  std::string reason;
  std::vector<int64_t> cycles;          // measured, one per launch
  int64_t estimate = 0;                 // the estimate of one launch (CycleEstimate)
  std::vector<RtlLoop> loops;
};

struct RtlCosimReport {
  std::vector<RtlKernelResult> kernels; // in program order
  int64_t outputElements = 0;
  int64_t differentElements = 0;        // between the RTL and the C-simulation runs' outputs
  std::string firstDifference;          // "y[12]: 5 vs 7"
  std::string verilatorVersion;
  double buildSeconds = 0;
  std::string workDir;                  // the kept folder (empty when temporary)
};

// The inputs of a run, one tensor per input argument of the program's signature, in order (random
// inputs of a seed for `dcw rtl-sim`, the profile's inputs for `dcw profile --rtl`).
using RtlInputs = std::function<Expected<std::vector<ir::Tensor>>(const ProgramSignature&)>;

// `prepared`: a model prepared for target fpga-sim with every dim fixed (pipeline::prepare). When no
// kernel is covered by RTL, nothing is built or run: the report gives each kernel's reason.
Expected<RtlCosimReport> cosimulateRtl(const ir::Sdfg& prepared, const RtlInputs& inputs, const RtlCosimOptions& options);

// The report as text: per kernel the measured cycles, the estimate and their difference in percent,
// or why it ran in C-simulation; then whether the outputs agree.
std::string formatCosim(const RtlCosimReport& r);

} // namespace dcw::codegen
