// `dcw profile MODEL [--script S] [--target cpu|fpga-sim [--fpga-device u250|u280]] [--repeat R] [--warmup W] [--threads N] [--dim N=V]
//               [--instrument all|states|maps|nodes|model|PATH...] [--no-counters] [--software-counters]
//               [--no-peaks] [--remeasure-peaks] [--in-process | --time-limit S --memory-limit MIB]
//               --report OUT.json [--trace OUT.trace.json]`
// `dcw profile --compare A.json B.json [--top N]`
// Profiles the compiled model on random inputs with timers around the chosen elements (default: all —
// states, top-level maps and the library nodes: nested SDFG nodes of `pure` expansions, tasklets
// outside maps of library calls such as oneDNN — i.e. the ONNX ops) and hardware counters
// where the kernel allows, and writes the report keyed by element path (codegen/run/ProfileReport.h)
// and a Chrome trace that Perfetto opens. The program runs in a worker process (a crash or hang in it
// is reported, naming the element) unless --in-process, which also reads hardware counters. --compare prints the elements two reports share, sorted by
// the largest change, with the totals.
#include "app/cli/Cli.h"
#include "core/support/AtomicFile.h"

#include "codegen/run/ChromeTrace.h"
#include "pipeline/Pipeline.h"
#include "pipeline/Specialize.h"
#include "codegen/run/Profiler.h"
#include "codegen/run/RandomInputs.h"
#include "core/support/MachineLoad.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace dcw::cli {

std::function<int()> setupProfile(CLI::App& sub) {
  struct Opts {
    std::string model, script, target = "cpu", report, trace, fpgaDevice = "u250";
    int repeat = 10, warmup = 1, threads = 0;
    size_t top = 0;
    std::vector<std::string> instrument, dims, compare, prefer;
    bool noCounters = false, noPeaks = false, softwareCounters = false, remeasurePeaks = false, rtl = false;
    IsolationOptions isolation;
  };
  auto o = std::make_shared<Opts>();
  sub.add_option("MODEL", o->model, "Model file (.onnx or .dcw.json)");
  sub.add_option("--script", o->script, "Replay this DCW script on the model before compiling");
  addTargetOption(sub, o->target);
  addPreferOption(sub, o->prefer);
  sub.add_option("--repeat", o->repeat, "Timed runs")->check(CLI::Range(1, 100000));
  sub.add_option("--warmup", o->warmup, "Untimed runs first")->check(CLI::Range(0, 100000));
  sub.add_option("--threads", o->threads, "OpenMP threads (default: all cores)");
  sub.add_option("--fpga-device", o->fpgaDevice, "FPGA targets: the board the cycle and resource estimates are for")
      ->check(CLI::IsMember({"u250", "u280"}));
  sub.add_flag("--rtl", o->rtl,
               "FPGA targets: also simulate the kernels RTL covers with Verilator on the same inputs; the report gives their measured "
               "cycles beside the estimates (as `dcw rtl-sim` does)");
  sub.add_option("--dim", o->dims, "Value of a symbolic dimension, NAME=VALUE (default 1)");
  sub.add_option("--instrument", o->instrument,
                 "What to time: all (default), states, maps (top-level maps), nodes (library nodes: nested SDFGs of pure "
                 "expansions and library calls such as oneDNN), model, "
                 "or element paths");
  sub.add_flag("--no-counters", o->noCounters, "Do not open perf_event counters");
  sub.add_flag("--software-counters", o->softwareCounters,
               "Without hardware counters, count task clock, page faults and context switches (slow to read: distorts times)");
  sub.add_flag("--no-peaks", o->noPeaks, "Do not measure (or read the cached) machine peaks");
  sub.add_flag("--remeasure-peaks", o->remeasurePeaks, "Measure the machine peaks again (and refresh the cache)");
  addIsolationOptions(sub, o->isolation, "hardware counters are read only in process");
  sub.add_option("--report", o->report, "Write the report (JSON, keyed by element path) here");
  sub.add_option("--trace", o->trace, "Write a Chrome trace-event file (opens in Perfetto) here");
  sub.add_option("--compare", o->compare, "Compare two reports: --compare A.json B.json")->expected(2);
  sub.add_option("--top", o->top, "With --compare: print at most N elements (default: all)");
  return [o]() -> int {
    if (!o->compare.empty()) {
      if (!o->model.empty())
        return reportError(Diagnostic::error("--compare", "takes two reports and no model", "drop MODEL, or drop --compare"));
      auto a = codegen::readReport(o->compare[0]);
      if (!a) return reportError(a.error());
      auto b = codegen::readReport(o->compare[1]);
      if (!b) return reportError(b.error());
      auto c = codegen::compareReports(*a, *b);
      std::cout << codegen::formatComparison(c, o->compare[0] + " (" + a->model + ")", o->compare[1] + " (" + b->model + ")", o->top);
      return kExitOk;
    }
    if (o->model.empty())
      return reportError(Diagnostic::error("dcw profile", "needs a MODEL (or --compare A.json B.json)", "give the model file"));
    if (o->report.empty())
      return reportError(Diagnostic::error("dcw profile", "needs --report OUT.json", "say where the report goes"));
    std::vector<std::string> what = o->instrument.empty() ? std::vector<std::string>{"all"} : o->instrument;

    pipeline::Options opts;
    opts.target = o->target;
    opts.prefer = o->prefer;
    opts.threads = o->threads;
    opts.generate.instrument = codegen::parseInstrumentation(what);
    if (auto r = applyIsolationOptions(o->isolation, opts); !r) return reportError(r.error());
    auto parsed = specializeFromDimOptions(o->model, o->dims, opts);
    if (!parsed) return reportError(parsed.error());
    std::map<std::string, int64_t> dims = *parsed;
    pipeline::Steps steps;
    steps.scriptPath = o->script;
    auto built = pipeline::build(o->model, steps, opts);
    if (!built) return reportError(built.error());
    auto& p = *built;
    if (!o->script.empty()) reportScriptWarnings(p.prepared.model.warnings, o->script);
    auto inputs = codegen::randomInputs(p.executor->code().signature, 0, dims);
    if (!inputs) return reportError(inputs.error());

    codegen::ProfileOptions po;
    po.repeat = o->repeat;
    po.warmup = o->warmup;
    po.threads = o->threads;
    po.counters = !o->noCounters;
    po.softwareCounters = o->softwareCounters;
    po.fpgaDevice = o->fpgaDevice;
    po.rtl = o->rtl;
    if (o->rtl && o->target.rfind("fpga", 0) != 0)
      return reportError(Diagnostic::error("--rtl", "RTL simulation is for FPGA kernels", "profile with --target fpga-sim"));
    auto report = codegen::profileRuns(*p.executor, *inputs, po);
    if (!report) return reportError(report.error());
    report->model = o->model;
    report->script = o->script;
    codegen::addModuleTimes(*report, *p.prepared.model.sdfg);
    report->target = o->target;
    std::string joined;
    for (auto& w : what) joined += (joined.empty() ? "" : " ") + w;
    report->instrument = joined;
    if (!o->noCounters && !report->counters.unavailable.empty()) std::cerr << "note: " << report->counters.unavailable << "\n";
    if (!o->noPeaks) {
      codegen::MachinePeakOptions mo;
      mo.threads = o->threads;
      mo.useCache = !o->remeasurePeaks;
      auto peaks = codegen::machinePeaks(mo);
      if (!peaks) std::cerr << "note: machine peaks not measured: " << peaks.error().str() << "\n";
      else report->peaks = *peaks;
    }
    if (auto w = writeFileAtomically(o->report, codegen::reportJson(*report)); !w) return reportError(w.error());
    if (!o->trace.empty())
      if (auto w = writeFileAtomically(o->trace, codegen::chromeTraceJson(*report)); !w) return reportError(w.error());
    char line[256];
    std::snprintf(line, sizeof line, "profiled %zu elements over %d runs: wall median %.3f ms (min %.3f, max %.3f); peak memory +%.1f MiB\n",
                  report->elements.size(), report->repeat, report->wallMs.median, report->wallMs.min, report->wallMs.max,
                  static_cast<double>(report->memory.peakDeltaBytes) / (1 << 20));
    std::cout << line;
    if (const std::string note = MachineLoad::note(report->otherBusyCores); !note.empty()) std::cout << "note: " << note << "\n";
    if (report->memory.gpuPeakBytes >= 0) {
      const double peak = static_cast<double>(report->memory.gpuPeakBytes);
      std::snprintf(line, sizeof line, "GPU memory: DCW's allocations peaked at %.1f %s (transients, weights, library workspaces)",
                    peak < (1 << 20) ? peak / 1024 : peak / (1 << 20), peak < (1 << 20) ? "KiB" : "MiB");
      std::cout << line;
      if (report->memory.gpuDeviceTotalBytes > 0) {
        std::snprintf(line, sizeof line, "; the device had %.1f of %.1f MiB in use", double(report->memory.gpuDeviceUsedBytes) / (1 << 20),
                      double(report->memory.gpuDeviceTotalBytes) / (1 << 20));
        std::cout << line;
      }
      std::cout << "\n";
    }
    for (auto& m : report->modules) // the top module groups' shares of the run
      if (m.depth == 0) {
        std::snprintf(line, sizeof line, "  %-48s %10.3f ms  %5.1f%%  (%d ops)\n", m.address.c_str(), m.ms,
                      report->wallMs.median > 0 ? 100.0 * m.ms / report->wallMs.median : 0.0, m.ops);
        std::cout << line;
      }
    if (report->fpga) std::cout << codegen::formatEstimate(*report->fpga);
    std::cout << "report: " << o->report << (o->trace.empty() ? "" : ", trace: " + o->trace) << "\n";
    return kExitOk;
  };
}

} // namespace dcw::cli
