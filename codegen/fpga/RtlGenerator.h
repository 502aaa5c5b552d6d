// RtlGenerator: synthesizable Verilog for an FPGA kernel whose work is pipelined loops over integer or
// float32 data — streaming elementwise maps, and reductions (write-conflict resolution sum, prod, min or
// max into an element the innermost loops keep) — so that Verilator simulates the kernel cycle by cycle
// (codegen/fpga/RtlCosim.h) and the cycle estimate (CycleEstimate.h) is checked against hardware
// rather than against itself.
//
// The hardware is what the HLS kernel describes, built from the same operator cores the estimator
// assumes (operatorLatency: for integers a 3-stage multiplier, 1-cycle adders and comparators; for
// floats a 4-stage adder, a 3-stage multiplier, 1-cycle comparators; wiring for casts and selects):
//  - the kernel module runs its loops one after the other (a start/done handshake between them);
//  - a loop is a counter over the map's iteration space (flattened, innermost fastest) issuing one
//    iteration every II cycles into a fully pipelined datapath: the reads of iteration i leave at
//    issue, their data comes back from global memory kFpgaGlobalReadLatency cycles later, the tasklet's
//    expression tree is scheduled as soon as possible (operands delayed in registers to meet), and the
//    results are written to memory;
//  - an accumulation keeps the running value in the combining operator's output register and reads
//    the element's old value from memory on the first iteration of each run; the next iteration waits
//    for the operator, so II is its latency (1 for an integer sum, 4 for a float sum);
//  - each global array is a memory port: one read request and one write a cycle, elements addressed
//    by an affine function of the loop counters that the generator derives from the memlets.
// Integers compute in 64-bit two's complement, as the C-simulation's int64 tasklet values are, and a
// write keeps the array's width. Floats are binary32 bit patterns through the functions of
// codegen/fpga/rtl/dcw_float32.vh (round to nearest even, subnormals, x86's NaN rules; checked bit for bit
// against g++ by ctest rtl_float_cores_bit_exact), with the C++ tasklet's promotions (an integer meeting
// a float converts to nearest; a float stored as an integer truncates and saturates). So the outputs equal
// C-simulation's bit for bit.
// What it refuses, with the reason and the element: float64 and 16-bit floats, floating-point division,
// square roots and transcendental functions (no such cores), streams and dataflow states, on-chip
// arrays, copies inside a kernel, nested loops that are not a single pipelined map, control flow inside
// the kernel, C++ tasklets, an array read or written twice in one iteration, an accumulation whose
// element recurs out of order, symbols known only at run time.
#pragma once

#include "codegen/fpga/HlsGenerator.h"
#include "core/ir/DType.h"
#include "core/support/Expected.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dcw::ir {
class Sdfg;
}

namespace dcw::codegen {

// One global-memory argument of an RTL kernel: its ports are <id>_rd_en/_rd_addr/_rd_data and
// <id>_wr_en/_wr_addr/_wr_data (addresses in elements).
struct RtlPort {
  std::string id;        // the kernel argument's identifier (HlsKernel::Arg::id)
  std::string data;      // the data name in the root SDFG
  ir::DType dtype = ir::DType::Int32;
  int bits = 32;         // the element's width in memory
  int64_t elements = 0;  // the array's extent (addresses beyond it are a simulation error)
};

struct RtlLoop {
  std::string path;      // the map (or tasklet) it implements
  int64_t trips = 0;     // iterations (all dims)
  int64_t ii = 1;        // the initiation interval the hardware issues at
  int64_t depth = 0;     // cycles from an iteration's issue to its write completing
};

struct RtlKernel {
  std::string module;    // the Verilog module (the kernel function's name)
  std::string statePath;
  std::string verilog;   // the kernel module and its loop modules
  std::vector<RtlPort> ports;
  std::vector<RtlLoop> loops;
};

// The kernel of `kernel.state` in `sdfg` (a model prepared for an FPGA target, every library node
// expanded); `symbols`: values of the root's symbols, which the hardware fixes.
Expected<RtlKernel> generateRtl(const ir::Sdfg& sdfg, const HlsKernel& kernel, const std::map<std::string, int64_t>& symbols);

// A top module `dcw_rtl_top` holding every kernel, its ports prefixed k<index>_, for one Verilator model.
std::string rtlTopModule(const std::vector<RtlKernel>& kernels);

} // namespace dcw::codegen
