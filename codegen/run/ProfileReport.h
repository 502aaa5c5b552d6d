// ProfileReport: what `dcw profile` measures, as data — per element (keyed by element path) the time
// over repeated runs (median and spread), calls, static FLOPs and bytes (core/analysis/Cost) with the
// achieved FLOP/s and GB/s, counter medians; for the whole run the wall time, peak memory, which
// counters were available (and why not), the machine peaks; for an FPGA target the kernels' cycle
// and resource estimates (labelled as such: "evidence": "estimate"). Written and read as JSON so that two
// profiles of the same model (different histories, scripts or machines) can be compared by path.
#pragma once

#include "codegen/fpga/CycleEstimate.h"
#include "codegen/run/MachinePeaks.h"
#include "core/support/Expected.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace dcw::ir {
class Sdfg;
}

namespace dcw::codegen {

// Median and spread of a sample (quartiles by linear interpolation).
struct Spread {
  double median = 0, min = 0, max = 0, q1 = 0, q3 = 0;
  static Spread of(std::vector<double> values);
};

struct ElementProfile {
  std::string path;
  std::string label;
  std::string kind;                  // model, state, map, nested_sdfg, tasklet, copy
  std::string parent;                // path of the enclosing timed element ("" for the model)
  bool masterOnly = false;           // timed on OpenMP thread 0 only (inside a parallel loop)
  double callsPerRun = 0;
  Spread timeMs;                     // total time per run (all calls), over the runs
  std::optional<double> flops;       // per run (cost × calls); absent without a cost entry
  std::optional<double> bytes;
  bool estimated = false;            // the cost formula is an estimate
  std::optional<double> gflopsPerSecond;  // achieved, at the median time
  std::optional<double> gbPerSecond;
  std::map<std::string, double> counters; // median per run, by counter name
};

struct CounterInfo {
  std::string kind = "none";         // hardware, software, none
  std::vector<std::string> names;
  std::string unavailable;           // "hardware counters unavailable: <reason>" when not hardware
  int perfEventParanoid = -99;
};

struct MemoryInfo {
  int64_t peakRssBytes = 0;          // VmHWM over the timed runs
  int64_t baselineRssBytes = 0;      // VmRSS before them
  int64_t peakDeltaBytes = 0;        // peak − baseline: what running the model adds
  std::string method;                // how the peak was measured
  // GPU targets (-1 where the program has no GPU part, or the device did not say): the high-water mark
  // of DCW's own device allocations (pooled transients, resident weights, library workspaces) since the
  // program was loaded, what it held at the end of the runs, and the device's memory in use by every
  // client at that point and its size (cudaMemGetInfo). cuBLAS's and cuDNN's internal allocations are
  // in the device figure only.
  int64_t gpuPeakBytes = -1;
  int64_t gpuHeldBytes = -1;
  int64_t gpuDeviceUsedBytes = -1;
  int64_t gpuDeviceTotalBytes = -1;
};

// One event of the traced run, relative to that run's start.
struct TraceEvent {
  int element = 0;                   // index into ProfileReport::elements
  uint32_t thread = 0;
  double startUs = 0;
  double durationUs = 0;
  std::vector<int64_t> counters;
};

// A module group's part of a run (core/ir/ModulePath.h): the times of its top-level ops added up, so a
// report can be read, and two compared, by `main/state0/module:encoder/layer.3` as well as by element.
struct ModuleProfile {
  std::string address;               // "main/state0/module:block1"
  std::string module;                // "block1"
  int depth = 0;                     // 0 for a top module
  int ops = 0, timedOps = 0;
  double ms = 0;                     // per run: the sum of its timed ops' medians
};

struct ProfileReport {
  std::string model;
  std::string script;
  std::string target = "cpu";
  std::string instrument;            // what was instrumented, as given
  int repeat = 0, warmup = 0, threads = 0;
  std::map<std::string, int64_t> symbols;
  Spread wallMs;                     // host: around Executor::run
  Spread programMs;                  // the program's own whole-model timer
  MemoryInfo memory;
  CounterInfo counters;
  size_t droppedEvents = 0;
  // The cores other processes kept busy while the runs were timed (core/support/MachineLoad.h); none
  // when the runs were too short to tell. From a quarter core up the times are a shared machine's.
  std::optional<double> otherBusyCores;
  // What the program wrote to stderr during the warm-up and timed runs, line by line (a worker
  // process's; in process it goes to stderr only): e.g. each opted-in Winograd convolution's error
  // against the direct one, measured on its first run.
  std::vector<std::string> messages;
  std::optional<MachinePeaks> peaks;
  std::vector<ElementProfile> elements; // program order; [0] is the whole model
  std::vector<ModuleProfile> modules;   // the model's module groups with a timed op, parents first
  // An FPGA target's kernels: estimated cycles per kernel and loop (depth, II and why), resources
  // against the board. Estimates, never measured: the C-simulation's times above say nothing of them.
  std::optional<FpgaEstimate> fpga;
  std::vector<TraceEvent> trace;     // the run with the median wall time (not part of the JSON report)
  double traceRunWallUs = 0;

  const ElementProfile* find(const std::string& path) const;
};

// Fills r.modules from the model the report's paths name (the prepared model of the run).
void addModuleTimes(ProfileReport& r, const ir::Sdfg& model);

std::string reportJson(const ProfileReport& r);
Expected<ProfileReport> parseReport(const std::string& text, const std::string& where);
Expected<ProfileReport> readReport(const std::string& file);

// Elements present in both reports, by path: median times and B/A; sorted by the largest absolute
// change first. Totals: the median wall times and the sums over the common leaf elements.
struct ComparisonRow {
  std::string path;
  std::string kind;
  double aMs = 0, bMs = 0;
  double ratio = 0;                  // b / a (0 when a is 0)
};
struct Comparison {
  std::vector<ComparisonRow> rows;
  std::vector<ComparisonRow> modules; // module groups in both, by address, in A's order
  double wallAMs = 0, wallBMs = 0;
  double leafAMs = 0, leafBMs = 0;   // sums over the common elements that contain no other timed element
  size_t onlyA = 0, onlyB = 0;
};
Comparison compareReports(const ProfileReport& a, const ProfileReport& b);
std::string formatComparison(const Comparison& c, const std::string& nameA, const std::string& nameB, size_t maxRows = 0);

} // namespace dcw::codegen
