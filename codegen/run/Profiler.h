// Profiler: runs an instrumented program (an Executor created with RunOptions::cpu.instrument) R times
// after W warm-up runs and turns its events into a ProfileReport: per timed element the time per run
// (median, min/max, quartiles), calls per run, counter medians, the static cost of the element
// (core/analysis/Cost, evaluated at the run's symbol values) and the achieved FLOP/s and GB/s; for the
// whole run the host wall time, the program's own time, peak memory and the counter availability.
// The run with the median wall time is kept as the trace (ChromeTrace). For an FPGA target the
// report also holds the kernels' cycle and resource estimates for a board (CycleEstimate.h) and, with
// ProfileOptions::rtl, the cycles RTL co-simulation measured on the same inputs (RtlCosim.h).
//
// Costs by element kind: map, nested SDFG and tasklet — their own cost entry; a state — the sum over
// its top-level nodes; the model — the SDFG's total; a copy edge has no cost entry. A per-run figure is
// the per-execution cost times the calls per run (a state in a loop runs many times); elements timed on
// thread 0 only (inside parallel loops) get no achieved rates, since their calls are a thread's share.
#pragma once

#include "codegen/run/Executor.h"
#include "codegen/run/ProfileReport.h"

#include <vector>

namespace dcw::codegen {

struct ProfileOptions {
  int repeat = 10;
  int warmup = 1;
  bool counters = true;              // try perf_event hardware counters (HardwareCounters)
  bool softwareCounters = false;     // without a hardware PMU, count task clock, page faults, switches
  int threads = 0;                   // what the executor was created with (for the report)
  size_t eventCapacity = 1 << 18;    // events per run the program keeps (more are counted as dropped)
  std::string fpgaDevice = "u250";   // FPGA targets: the board the cycle and resource estimates are for
  bool rtl = false;                  // FPGA targets: also measure the kernels RTL covers in co-simulation (RtlCosim.h)
  std::string rtlWorkDir;            // its folder (kept); empty: a temporary one, removed after
};

// Fails when the executor's program carries no instrumentation, or a run fails.
Expected<ProfileReport> profileRuns(const Executor& executor, const std::vector<ir::Tensor>& inputs, const ProfileOptions& options = {});

// Parses --instrument values: all | states | maps | nodes | model | element paths (any mix).
Instrumentation parseInstrumentation(const std::vector<std::string>& values);

} // namespace dcw::codegen
