// `dcw bench MODEL [--threads N] [--warmup W] [--repeat R] [--json] [--script S] [--target T]`: latency of the compiled model
// on random inputs (symbolic dims = 1 unless --dim gives them): median and minimum, and how many cores
// other processes kept busy meanwhile (core/support/MachineLoad.h), with a note when that is a quarter or more.
#include "app/cli/Cli.h"

#include "pipeline/Pipeline.h"
#include "pipeline/Specialize.h"
#include "codegen/run/RandomInputs.h"
#include "core/support/MachineLoad.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iostream>
#include <memory>
#include <random>

#include <sys/resource.h>

namespace dcw::cli {

using namespace dcw::ir;

std::function<int()> setupBench(CLI::App& sub) {
  struct Opts {
    std::string model, script, target = "cpu";
    int threads = 0, warmup = 3, repeat = 20;
    bool json = false;
    std::vector<std::string> dims, prefer;
  };
  auto o = std::make_shared<Opts>();
  sub.add_option("MODEL", o->model, "Model file (.onnx or .dcw.json)")->required();
  sub.add_option("--threads", o->threads, "OpenMP threads (default: the cores other processes leave free, measured as the runs go)");
  sub.add_option("--warmup", o->warmup, "Untimed runs first")->check(CLI::Range(0, 100000));
  sub.add_option("--repeat", o->repeat, "Timed runs")->check(CLI::Range(1, 100000));
  sub.add_option("--dim", o->dims, "Value of a symbolic dimension, NAME=VALUE (default 1)");
  sub.add_flag("--json", o->json, "Print one JSON object");
  sub.add_option("--script", o->script, "Replay this DCW script on the model before compiling");
  addTargetOption(sub, o->target);
  addPreferOption(sub, o->prefer);
  return [o]() -> int {
    pipeline::Options opts;
    opts.target = o->target;
    opts.prefer = o->prefer;
    opts.threads = o->threads;
    auto parsed = specializeFromDimOptions(o->model, o->dims, opts); // dynamic dims fixed before compiling
    if (!parsed) return reportError(parsed.error());
    std::map<std::string, int64_t> dims = *parsed;
    pipeline::Steps steps;
    steps.scriptPath = o->script;
    auto built = pipeline::build(o->model, steps, opts);
    if (!built) return reportError(built.error());
    auto& p = *built;
    if (!o->script.empty()) reportScriptWarnings(p.prepared.model.warnings, o->script);
    auto random = codegen::randomInputs(p.executor->code().signature, 0, dims);
    if (!random) return reportError(random.error());
    std::vector<Tensor> inputs = std::move(*random);
    for (int i = 0; i < o->warmup; ++i)
      if (auto r = p.executor->run(inputs); !r) return reportError(r.error());
    std::vector<double> ms;
    const MachineLoad load; // other processes' use of the cores while the runs are timed
    for (int i = 0; i < o->repeat; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      auto r = p.executor->run(inputs);
      auto t1 = std::chrono::steady_clock::now();
      if (!r) return reportError(r.error());
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    const std::optional<double> others = load.otherBusyCores();
    std::sort(ms.begin(), ms.end());
    double median = ms.size() % 2 ? ms[ms.size() / 2] : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
    if (o->json) {
      nlohmann::ordered_json j{{"model", o->model}, {"median_ms", median}, {"min_ms", ms.front()}, {"repeat", o->repeat},
                               {"threads", o->threads}, {"target", o->target}, {"compile_s", p.executor->library().seconds},
                               {"cache_hit", p.executor->library().cacheHit}};
      // The peak resident memory of this process over its life (model, program, runs); the compiler and
      // other child processes are not counted.
      struct rusage usage {};
      if (getrusage(RUSAGE_SELF, &usage) == 0) j["peak_rss_mib"] = double(usage.ru_maxrss) / 1024.0;
      j["other_busy_cores"] = others ? nlohmann::ordered_json(*others) : nlohmann::ordered_json(); // null: too short to tell
      std::cout << j.dump() << std::endl;
    } else {
      std::cout << "median " << median << " ms, min " << ms.front() << " ms over " << o->repeat << " runs\n";
      if (const std::string note = MachineLoad::note(others); !note.empty()) std::cout << "note: " << note << "\n";
    }
    return kExitOk;
  };
}

} // namespace dcw::cli
