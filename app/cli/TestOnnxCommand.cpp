// `dcw test-onnx DIR... [--target T]`: runs ONNX backend test case folders (model.onnx + test_data_set_*) and
// prints one line per case and the closing `N passed, M failed, K skipped` line. A DIR that holds
// case folders (like .../data/node) runs all of them. Cases run in parallel with --jobs.
// --expected-failures FILE names the cases expected not to pass (pipeline::ExpectedFailures): any
// disagreement with the run (an unlisted failure, a listed case that passes or fails differently, a
// listed name that is no case) is an error naming the case, and the exit code is 1.
#include "app/cli/Cli.h"

#include "pipeline/OnnxTestCase.h"

#include <atomic>
#include <filesystem>
#include <iostream>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

namespace dcw::cli {

namespace fs = std::filesystem;

std::function<int()> setupTestOnnx(CLI::App& sub) {
  struct Opts {
    std::vector<std::string> dirs;
    int jobs = 1;
    double requirePassRate = -1;
    std::vector<std::string> filter;
    std::vector<std::string> exclude;
    std::string expectedFailures;
    std::vector<std::string> prefer;
    std::string target = "cpu";
    bool inProcess = false;
    bool buildOnly = false;
  };
  auto o = std::make_shared<Opts>();
  sub.add_option("DIR", o->dirs, "Test case folders, or folders of test case folders")->required();
  sub.add_option("-j,--jobs", o->jobs, "Cases to prepare and run at the same time")->check(CLI::Range(1, 64));
  sub.add_option("--filter", o->filter, "Only cases whose name contains this text (repeat: any of them)");
  sub.add_option("--exclude", o->exclude, "Leave out cases whose name contains this text (repeat: any of them)");
  sub.add_option("--require-pass-rate", o->requirePassRate,
                 "Exit 1 when fewer than this percentage of the cases pass (skipped cases count as not passed)");
  sub.add_option("--expected-failures", o->expectedFailures,
                 "File of the cases expected not to pass (NAME STATUS  # reason, one a line); exit 1 on any disagreement");
  addPreferOption(sub, o->prefer);
  addTargetOption(sub, o->target);
  sub.add_flag("--build-only", o->buildOnly,
               "Generate and compile each case's program without running it (\"built\"): checks the code a target's compiler "
               "accepts where its device is missing (--target cuda without a GPU)");
  sub.add_flag("--in-process", o->inProcess,
               "Run the cases' programs inside dcw instead of a worker process each (a crash in one then ends the whole run)");
  return [o]() -> int {
    std::optional<pipeline::ExpectedFailures> expected;
    if (!o->expectedFailures.empty()) {
      auto list = pipeline::ExpectedFailures::load(o->expectedFailures);
      if (!list) return reportError(list.error());
      expected = std::move(*list);
    }
    std::vector<std::string> cases;
    for (auto& d : o->dirs) {
      std::error_code ec;
      if (!fs::is_directory(d, ec)) return reportError(Diagnostic::error(d, "is not a folder", "give ONNX test case folders"));
      if (fs::exists(fs::path(d) / "model.onnx")) {
        cases.push_back(d);
        continue;
      }
      std::vector<std::string> found;
      for (auto& e : fs::directory_iterator(d))
        if (e.is_directory() && fs::exists(e.path() / "model.onnx")) found.push_back(e.path().string());
      if (found.empty()) return reportError(Diagnostic::error(d, "holds no ONNX test case (no model.onnx)", "give test case folders"));
      std::sort(found.begin(), found.end());
      cases.insert(cases.end(), found.begin(), found.end());
    }
    auto selected = [&](const std::string& name) {
      for (auto& x : o->exclude)
        if (name.find(x) != std::string::npos) return false;
      if (o->filter.empty()) return true;
      for (auto& f : o->filter)
        if (name.find(f) != std::string::npos) return true;
      return false;
    };
    std::erase_if(cases, [&](const std::string& c) { return !selected(fs::path(c).filename().string()); });

    std::vector<pipeline::CaseResult> results(cases.size());
    std::vector<bool> done(cases.size(), false);
    std::atomic<size_t> next{0};
    std::mutex mu;
    size_t printed = 0;
    pipeline::Options opts;
    opts.threads = 1;
    opts.prefer = o->prefer;
    opts.target = o->target;
    // Each case's program in a worker process of its own: a program that crashes fails its case, not
    // the run (in process, `--target cuda` over the node suite on a GPU machine ended in a segfault of
    // dcw itself after 283 cases, with hundreds of programs and their CUDA runtimes loaded in it).
    opts.isolated = !o->inProcess;
    // Test programs are small and run once: compile time dominates, so optimise lightly.
    for (auto& f : opts.compile.flags)
      if (f == "-O3") f = "-O1";
    auto print = [&] { // in case order, as results arrive
      while (printed < cases.size() && done[printed]) {
        const auto& r = results[printed++];
        switch (r.status) {
        case pipeline::CaseResult::Status::Passed: std::cout << (o->buildOnly ? "built        " : "passed       ") << r.name << "\n"; break;
        case pipeline::CaseResult::Status::Failed: std::cout << "failed       " << r.name << ": " << r.message << "\n"; break;
        case pipeline::CaseResult::Status::Unsupported: std::cout << "unsupported  " << r.name << ": " << r.message << "\n"; break;
        }
      }
      std::cout.flush();
    };
    auto worker = [&] {
      for (size_t i; (i = next++) < cases.size();) {
        auto r = pipeline::runOnnxTestCase(cases[i], opts, !o->buildOnly);
        std::lock_guard lock(mu);
        results[i] = std::move(r);
        done[i] = true;
        print();
      }
    };
    std::vector<std::thread> pool;
    for (int j = 0; j < o->jobs; ++j) pool.emplace_back(worker);
    for (auto& t : pool) t.join();
    int passed = 0, failed = 0, skipped = 0;
    for (auto& r : results) {
      passed += r.status == pipeline::CaseResult::Status::Passed;
      failed += r.status == pipeline::CaseResult::Status::Failed;
      skipped += r.status == pipeline::CaseResult::Status::Unsupported;
    }
    std::map<std::string, int> used;
    for (auto& r : results)
      for (auto& [impl, n] : r.implementations) used[impl] += n;
    if (!used.empty()) {
      std::cout << "library nodes expanded:";
      for (auto& [impl, n] : used) std::cout << " " << impl << " " << n;
      std::cout << std::endl;
    }
    std::cout << passed << (o->buildOnly ? " built, " : " passed, ") << failed << " failed, " << skipped << " skipped" << std::endl;
    int status = kExitOk;
    if (expected) {
      auto differences = pipeline::compareWithExpectedFailures(results, *expected, selected);
      for (auto& d : differences) std::cerr << "error: " << d.str() << "\n";
      std::cout << expected->cases.size() << " expected failures listed in " << o->expectedFailures << ", "
                << differences.size() << " disagreements with this run" << std::endl;
      if (!differences.empty()) status = kExitFailure;
    }
    if (o->requirePassRate >= 0 && !cases.empty()) {
      double rate = 100.0 * passed / double(cases.size());
      if (rate < o->requirePassRate) {
        std::cerr << "error: pass rate " << rate << "% is below the required " << o->requirePassRate << "%" << std::endl;
        status = kExitFailure;
      }
    }
    return status;
  };
}

} // namespace dcw::cli
