// Profiler: see the header. Peak memory: /proc/self/clear_refs ("5") resets the high-water mark before
// the timed runs so VmHWM measures them alone; where that is not allowed the peak is getrusage's
// ru_maxrss (the process's lifetime peak) and the method says so.
#include "codegen/run/Profiler.h"

#include "codegen/fpga/RtlCosim.h"
#include "codegen/run/HardwareCounters.h"
#include "core/analysis/Cost.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/ir/State.h"
#include "core/support/MachineLoad.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/resource.h>

namespace dcw::codegen {

namespace {

// The element index of an event that carries GPU memory figures (counters: DCW's peak and held bytes,
// the device's used and total bytes) instead of a time: CudaRuntime's kGpuMemoryElement.
constexpr uint32_t kGpuMemoryElement = 0xFFFFFFFFu;

// A field of /proc/self/status in bytes ("VmHWM:   1234 kB"); -1 when absent.
// The process that runs the program: this one, or its worker.
std::string procPath(pid_t pid, const char* file) {
  return pid > 0 ? "/proc/" + std::to_string(pid) + "/" + file : std::string("/proc/self/") + file;
}

int64_t statusBytes(const char* field, pid_t pid = 0) {
  std::ifstream f(procPath(pid, "status"));
  std::string line;
  size_t n = std::strlen(field);
  while (std::getline(f, line))
    if (line.compare(0, n, field) == 0 && line.size() > n && line[n] == ':') return std::atoll(line.c_str() + n + 1) * 1024;
  return -1;
}

bool resetHighWaterMark(pid_t pid = 0) {
  std::ofstream f(procPath(pid, "clear_refs"));
  if (!f) return false;
  f << "5";
  f.flush();
  return static_cast<bool>(f);
}

struct Cost {
  std::optional<double> flops, bytes;
  bool estimated = false;
};

// The static cost of one execution of a timed element (see the header).
Cost costOf(const ProfiledElement& pe, const ir::Sdfg& sdfg, const ir::PathIndex& paths, const analysis::CostReport& cost,
            const std::map<std::string, int64_t>& symbols) {
  Cost c;
  auto add = [&](const analysis::NodeCost& nc) {
    auto f = analysis::evaluate(nc.flops, symbols);
    auto b = analysis::evaluate(nc.bytes(), symbols);
    if (!f || !b) return false;
    c.flops = c.flops.value_or(0) + *f;
    c.bytes = c.bytes.value_or(0) + *b;
    c.estimated = c.estimated || nc.estimated;
    return true;
  };
  switch (pe.kind) {
  case ProfiledElement::Kind::Model:
    add(cost.total);
    break;
  case ProfiledElement::Kind::State: {
    auto* st = dynamic_cast<const ir::State*>(paths.element(pe.element));
    if (!st) break;
    auto scopes = st->scopeOf();
    if (!scopes) break;
    c.flops = 0.0;
    c.bytes = 0.0;
    for (auto& n : st->nodes())
      if (auto it = scopes->find(n->id()); it == scopes->end() || it->second == nullptr)
        if (const analysis::NodeCost* nc = cost.find(n->id()); nc && !add(*nc)) return {};
    break;
  }
  case ProfiledElement::Kind::Map:
  case ProfiledElement::Kind::NestedSdfg:
  case ProfiledElement::Kind::Tasklet:
    if (const analysis::NodeCost* nc = cost.find(pe.element)) add(*nc);
    break;
  case ProfiledElement::Kind::Copy: break;
  }
  (void)sdfg;
  return c;
}

} // namespace

Instrumentation parseInstrumentation(const std::vector<std::string>& values) {
  Instrumentation in;
  in.model = true;
  for (auto& v : values) {
    if (v == "all") in.states = in.maps = in.nestedSdfgs = in.tasklets = true;
    else if (v == "states") in.states = true;
    else if (v == "maps") in.maps = true;
    else if (v == "nodes") in.nestedSdfgs = in.tasklets = true; // pure expansions and library calls alike
    else if (v == "model") in.model = true;
    else in.paths.push_back(v);
  }
  return in;
}

namespace {

// The FPGA kernels RTL covers, co-simulated on the profile's inputs: their measured cycles beside the
// estimate, why the others were not measured, and a failure if RTL and C-simulation disagree.
Expected<void> measureRtl(const ir::Sdfg& sdfg, const std::vector<ir::Tensor>& inputs, const ProfileOptions& o, FpgaEstimate& e) {
  RtlCosimOptions co;
  co.workDir = o.rtlWorkDir;
  auto report = cosimulateRtl(sdfg, [&](const ProgramSignature&) -> Expected<std::vector<ir::Tensor>> { return inputs; }, co);
  if (!report) return report.takeError();
  if (report->differentElements > 0)
    return fail(sdfg.name(), "RTL co-simulation's outputs differ from C-simulation's on " + std::to_string(report->differentElements) + " of " +
                                 std::to_string(report->outputElements) + " elements (first: " + report->firstDifference + ")");
  int measured = 0;
  for (auto& k : e.kernels)
    for (auto& m : report->kernels) {
      if (m.statePath != k.statePath) continue;
      if (m.simulated && !m.cycles.empty()) {
        k.measuredCycles = *std::max_element(m.cycles.begin(), m.cycles.end());
        ++measured;
      } else {
        k.unmeasuredWhy = m.simulated ? "never launched" : m.reason;
      }
    }
  e.measurement = "RTL co-simulation (" + (report->verilatorVersion.empty() ? std::string("no kernel RTL covers") : report->verilatorVersion) +
                  "): " + std::to_string(measured) + " of " + std::to_string(e.kernels.size()) + " kernels measured";
  if (measured > 0) e.measurement += ", outputs equal to C-simulation on all " + std::to_string(report->outputElements) + " elements";
  return {};
}

} // namespace

Expected<ProfileReport> profileRuns(const Executor& ex, const std::vector<ir::Tensor>& inputs, const ProfileOptions& o) {
  const auto& elements = ex.code().profiled;
  const std::string where = ex.sdfg().name();
  DCW_TRY(size_t timed, ex.profiledElements());
  if (elements.empty() || timed == 0)
    return fail(where, "the program was generated without instrumentation",
                "build it with GenerateOptions::instrument set (dcw profile --instrument ...)");
  if (timed != elements.size())
    return fail(ex.library().path, "the loaded program times " + std::to_string(timed) + " elements but its generator listed " +
                                       std::to_string(elements.size()),
                "delete the cache entry and profile again");
  if (o.repeat < 1) return fail("--repeat", "must be at least 1");
  // Hardware counters are read by the process that runs the program: this one (in process); a worker
  // process runs without them.
  const LoadedProgram* prog = ex.isolated() ? nullptr : &ex.program();
  ProfileCapture capture;
  capture.capacity = o.eventCapacity;

  ProfileReport r;
  r.repeat = o.repeat;
  r.warmup = o.warmup;
  r.threads = o.threads;
  if (prog) prog->setProfileCounters(nullptr, 0, 0);
  for (int i = 0; i < o.warmup; ++i)
    if (auto out = ex.run(inputs, &capture); !out) return out.takeError();

  // Counters after the warm-up: the OpenMP pool exists now, so every worker gets a group.
  HardwareCounters counters;
  r.counters.perfEventParanoid = perfEventParanoid();
  if (o.counters && !prog) {
    r.counters.unavailable = "hardware counters unavailable: the program runs in a worker process (dcw profile --in-process reads them)";
  } else if (o.counters) {
    counters = HardwareCounters::open(o.softwareCounters);
    r.counters.kind = counters.kind();
    r.counters.names = counters.names();
    if (!counters.hardware()) r.counters.unavailable = "hardware counters unavailable: " + counters.unavailable();
    prog->setProfileCounters(counters.groupFds().data(), static_cast<int>(counters.groupFds().size()), counters.counterCount());
  } else {
    r.counters.unavailable = "hardware counters unavailable: not requested (--no-counters)";
  }
  const size_t nCounters = static_cast<size_t>(counters.counterCount());

  const size_t n = elements.size();
  std::vector<std::vector<double>> timeMs(n), calls(n);
  std::vector<std::vector<std::vector<double>>> counterRuns(n, std::vector<std::vector<double>>(nCounters));
  std::vector<double> wall, program;
  std::vector<std::vector<ProfileEvent>> runs;

  const pid_t memoryOf = ex.isolated() && ex.worker() ? ex.worker()->pid() : 0; // started by the warm-up
  r.memory.baselineRssBytes = std::max<int64_t>(0, statusBytes("VmRSS", memoryOf));
  bool hwmReset = resetHighWaterMark(memoryOf);
  struct rusage ru0;
  getrusage(RUSAGE_SELF, &ru0);
  const MachineLoad load(memoryOf ? std::vector<pid_t>{memoryOf} : std::vector<pid_t>{}); // this process and its worker are ours

  for (int rep = 0; rep < o.repeat; ++rep) {
    auto t0 = std::chrono::steady_clock::now();
    auto out = ex.run(inputs, &capture);
    auto t1 = std::chrono::steady_clock::now();
    if (!out) {
      if (prog) prog->setProfileCounters(nullptr, 0, 0);
      return out.takeError();
    }
    wall.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    const auto& events = capture.events;
    r.droppedEvents += capture.dropped;
    std::vector<double> t(n, 0), c(n, 0);
    std::vector<std::vector<double>> cs(n, std::vector<double>(nCounters, 0));
    for (auto& e : events) {
      if (e.element == kGpuMemoryElement) { // GPU memory figures (codegen/cuda/CudaRuntime), not a time
        r.memory.gpuPeakBytes = std::max(r.memory.gpuPeakBytes, e.counters[0]);
        r.memory.gpuHeldBytes = e.counters[1];
        r.memory.gpuDeviceUsedBytes = std::max(r.memory.gpuDeviceUsedBytes, e.counters[2]);
        r.memory.gpuDeviceTotalBytes = e.counters[3];
        continue;
      }
      if (e.element >= n) continue;
      t[e.element] += static_cast<double>(e.endNs - e.startNs) / 1e6;
      c[e.element] += 1;
      for (size_t k = 0; k < nCounters; ++k) cs[e.element][k] += static_cast<double>(e.counters[k]);
    }
    for (size_t i = 0; i < n; ++i) {
      timeMs[i].push_back(t[i]);
      calls[i].push_back(c[i]);
      for (size_t k = 0; k < nCounters; ++k) counterRuns[i][k].push_back(cs[i][k]);
    }
    program.push_back(t[0]);
    runs.emplace_back(events.begin(), events.end());
  }
  if (prog) prog->setProfileCounters(nullptr, 0, 0); // the fds close with `counters`
  r.otherBusyCores = load.otherBusyCores();

  struct rusage ru1;
  getrusage(RUSAGE_SELF, &ru1);
  int64_t hwm = statusBytes("VmHWM", memoryOf);
  if (hwmReset && hwm > 0) {
    r.memory.peakRssBytes = hwm;
    r.memory.method = memoryOf ? "VmHWM of the worker process over the timed runs (high-water mark reset through clear_refs)"
                               : "VmHWM over the timed runs (high-water mark reset through /proc/self/clear_refs)";
  } else if (memoryOf) {
    r.memory.peakRssBytes = std::max<int64_t>(0, hwm);
    r.memory.method = "VmHWM of the worker process (its lifetime peak)";
  } else {
    r.memory.peakRssBytes = static_cast<int64_t>(ru1.ru_maxrss) * 1024;
    r.memory.method = ru1.ru_maxrss > ru0.ru_maxrss ? "getrusage ru_maxrss (process lifetime peak; it grew during the runs)"
                                                    : "getrusage ru_maxrss (process lifetime peak; reached before the runs)";
  }
  r.memory.peakDeltaBytes = std::max<int64_t>(0, r.memory.peakRssBytes - r.memory.baselineRssBytes);
  r.wallMs = Spread::of(wall);
  r.programMs = Spread::of(program);
  {
    const std::string said = ex.takeProgramMessages();
    for (size_t at = 0; at < said.size();) {
      size_t end = said.find('\n', at);
      if (end == std::string::npos) end = said.size();
      if (end > at) r.messages.push_back(said.substr(at, end - at));
      at = end + 1;
    }
  }
  r.symbols = ex.lastSymbols();

  const ir::Sdfg& sdfg = ex.sdfg();
  ir::PathIndex paths(sdfg);
  analysis::CostReport cost = analysis::analyzeCost(sdfg);
  for (size_t i = 0; i < n; ++i) {
    const ProfiledElement& pe = elements[i];
    ElementProfile e;
    e.path = pe.path;
    e.label = pe.label;
    e.kind = profiledKindName(pe.kind);
    e.parent = pe.parent >= 0 ? elements[static_cast<size_t>(pe.parent)].path : std::string();
    e.masterOnly = pe.masterOnly;
    e.timeMs = Spread::of(timeMs[i]);
    e.callsPerRun = Spread::of(calls[i]).median;
    for (size_t k = 0; k < nCounters; ++k) e.counters[counters.names()[k]] = Spread::of(counterRuns[i][k]).median;
    Cost c = costOf(pe, sdfg, paths, cost, r.symbols);
    if (c.flops && c.bytes) {
      double times = pe.kind == ProfiledElement::Kind::Model ? 1 : e.callsPerRun;
      e.flops = *c.flops * times;
      e.bytes = *c.bytes * times;
      e.estimated = c.estimated;
      if (!pe.masterOnly && e.timeMs.median > 0) {
        e.gflopsPerSecond = *e.flops / (e.timeMs.median * 1e-3) / 1e9;
        e.gbPerSecond = *e.bytes / (e.timeMs.median * 1e-3) / 1e9;
      }
    }
    r.elements.push_back(std::move(e));
  }

  // The trace: the run with the median wall time, relative to its model event's start.
  std::vector<size_t> order(wall.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return wall[a] < wall[b]; });
  size_t pick = order[order.size() / 2];
  const auto& evs = runs[pick];
  int64_t origin = 0;
  bool haveOrigin = false;
  for (auto& e : evs)
    if (!haveOrigin || e.startNs < origin) {
      origin = e.startNs;
      haveOrigin = true;
    }
  for (auto& e : evs) {
    if (e.element >= n) continue;
    TraceEvent t;
    t.element = static_cast<int>(e.element);
    t.thread = e.thread;
    t.startUs = static_cast<double>(e.startNs - origin) / 1e3;
    t.durationUs = static_cast<double>(e.endNs - e.startNs) / 1e3;
    for (size_t k = 0; k < nCounters; ++k) t.counters.push_back(e.counters[k]);
    r.trace.push_back(std::move(t));
  }
  r.traceRunWallUs = wall[pick] * 1e3;
  // An FPGA program's times are the C-simulation's on this CPU: what the board would take is estimated.
  if (ex.code().target.rfind("fpga", 0) == 0) {
    const FpgaDevice* device = findFpgaDevice(o.fpgaDevice);
    if (!device) return fail(where, "no FPGA device '" + o.fpgaDevice + "'", "the devices are u250 and u280");
    DCW_TRY(FpgaEstimate e, estimateFpga(sdfg, r.symbols, *device));
    if (o.rtl) DCW_CHECK(measureRtl(sdfg, inputs, o, e));
    std::istringstream lines(capture.fpgaStreams); // the last run's streams
    std::string line;
    while (std::getline(lines, line)) {
      StreamObservation s;
      std::istringstream f(line);
      if (std::getline(f, s.name, '\t') && f >> s.depth >> s.writes >> s.reads >> s.maxOccupancy >> s.fullWaits >> s.emptyWaits)
        e.streams.push_back(std::move(s));
    }
    r.fpga = std::move(e);
  }
  return r;
}

} // namespace dcw::codegen
