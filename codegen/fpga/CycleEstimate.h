// CycleEstimate: how long the FPGA kernels of an expanded model would take, and what they would use
// of a board, estimated from the IR the way an HLS scheduler reasons — never measured. Every figure
// it gives is labelled an estimate wherever it is shown (CLI, report, app); cycles measured by RTL
// simulation (codegen/fpga/RtlSimulation.h) are the check on it.
//
// The model:
//  - a pipelined loop (an innermost map: its body runs no further loop) takes depth + II·(trips−1)
//    cycles; depth is the body's critical path (operator latencies at the board's clock plus memory
//    latency); II is the largest of 1, the recurrence (an accumulation into the same element on
//    consecutive iterations waits for the combining operator: II = its latency, which also adds to the
//    depth) and the memory ports (an m_axi
//    bundle serves one read and one write per cycle, an on-chip array two accesses);
//  - an outer loop runs its body trips times (plus a cycle of loop control each time); an unrolled
//    map runs its copies side by side (hardware times trips, time once);
//  - the nodes of a state, and the states of a nested SDFG, run one after the other (a dataflow state,
//    processing elements joined by streams, at the pace of its slowest); a loop region its body trip times,
//    a conditional its longest branch; copies move one element a cycle, or as fast as the bank allows;
//  - resources: DSPs and LUTs per floating-point and integer operator, block RAM or UltraRAM per
//    on-chip array by its bits, and an m_axi adapter per kernel argument, against the board's totals.
// Trip counts come from the symbol values given (a model specialized with --dim has none left);
// where one cannot be evaluated the loop counts once and the estimate says so in its notes.
#pragma once

#include "codegen/fpga/FpgaDevice.h"
#include "core/ir/Element.h"
#include "core/support/Expected.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace dcw::ir {
class Sdfg;
}

namespace dcw::codegen {

struct LoopEstimate {
  ir::ElementId element = ir::kNoId;
  std::string path;
  int64_t trips = 0;
  bool pipelined = false;     // an innermost loop with PIPELINE II=1 asked for
  bool unrolled = false;
  int64_t depth = 0;          // pipelined: the body's latency
  int64_t ii = 1;             // pipelined: the achieved initiation interval (target 1)
  std::string iiReason;       // why II > 1 ("accumulation into ... waits for the adder", "3 reads of bundle ...")
  int64_t cycles = 0;         // one execution of the loop
  int64_t executions = 1;     // how often the enclosing code runs it per kernel launch
};

struct KernelEstimate {
  ir::ElementId state = ir::kNoId;
  std::string statePath;
  int64_t cycles = 0;         // one launch
  int64_t launches = 1;       // per run (a kernel inside a loop region launches each iteration)
  double seconds = 0;         // cycles × launches at the board's clock
  std::vector<LoopEstimate> loops;
  FpgaResources resources;
  // Measured, not estimated: the cycles of one launch in RTL co-simulation (RtlCosim.h), when the
  // profile asked for it and RTL covers the kernel (0 otherwise, with `unmeasuredWhy`).
  int64_t measuredCycles = 0;
  std::string unmeasuredWhy;
};

// A stream as C-simulation saw it in one run (observed, not estimated): how full it got and how often
// a processing element had to wait for it — waits of threads, not cycles.
struct StreamObservation {
  std::string name;
  int64_t depth = 0;
  int64_t writes = 0;
  int64_t reads = 0;
  int64_t maxOccupancy = 0;
  int64_t fullWaits = 0;   // writes that waited for room
  int64_t emptyWaits = 0;  // reads that waited for data
};

struct FpgaEstimate {
  const FpgaDevice* device = nullptr;
  std::vector<KernelEstimate> kernels; // in control-flow order
  int64_t cycles = 0;                  // all launches of all kernels
  double seconds = 0;
  FpgaResources resources;             // all kernels on the board at once
  std::vector<std::string> notes;      // what the estimate could not tell (unknown trip counts, ...)
  std::string measurement;             // set when kernels were measured: how ("RTL co-simulation with Verilator 5.006: ...")
  std::vector<StreamObservation> streams; // from the profile's C-simulation runs (the last one)
};

// `expanded`: a model prepared for an FPGA target (device states, every library node expanded);
// `symbols`: values of the root's symbols.
Expected<FpgaEstimate> estimateFpga(const ir::Sdfg& expanded, const std::map<std::string, int64_t>& symbols,
                                    const FpgaDevice& device = defaultFpgaDevice());

// The estimate as text for a terminal, labelled as an estimate: totals, then per kernel its cycles and
// resources against the board, and its `maxLoops` slowest loops with trips, depth and II (and why).
std::string formatEstimate(const FpgaEstimate& e, size_t maxLoops = 8);

// The memory model the estimate and RTL simulation (RtlCosim.h) share: an m_axi read returns its data
// this many cycles after it is issued, once its burst is under way; a write completes in one cycle.
constexpr int kFpgaGlobalReadLatency = 7;
constexpr int kFpgaWriteLatency = 1;

// The latency in cycles of one tasklet language operation ("+", "*", "exp", ...) at 300 MHz, for a
// float (dtype f32), double (f64) or integer operand; 0 for wiring (casts, select).
int operatorLatency(const std::string& op, bool floating, bool doublePrecision);

} // namespace dcw::codegen
