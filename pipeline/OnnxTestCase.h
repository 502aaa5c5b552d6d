// OnnxTestCase: runs one ONNX backend test case folder (model.onnx + test_data_set_*/input_N.pb,
// output_N.pb) and compares with ONNX's default tolerances (rtol 1e-3, atol 1e-7; NaN equals NaN;
// exact for integers and bools), through the pipeline (pipeline/Pipeline.h). Failures to load or lower
// (an op or attribute without an implementation) make a case "unsupported" with the reason;
// generation, compilation, run or numerical mismatches make it "failed".
#pragma once

#include "core/support/Diagnostic.h"
#include "core/support/Expected.h"
#include "pipeline/Pipeline.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace dcw::pipeline {

struct CaseResult {
  enum class Status { Passed, Failed, Unsupported };
  std::string name;
  Status status = Status::Failed;
  std::string message;   // reason or largest error
  double maxAbsError = 0;
  int dataSets = 0;
  std::map<std::string, int> implementations; // library nodes expanded, by implementation
};

// With `run` false the case's program is only built (generated and compiled, for the first data set's
// interface when it has sequences): Passed then means it compiled — what a machine without the target's
// device can check (`dcw test-onnx --target cuda --build-only` where no GPU is).
CaseResult runOnnxTestCase(const std::string& folder, const Options& options = {}, bool run = true);

// The committed list of the cases of a suite that are expected not to pass (`dcw test-onnx
// --expected-failures FILE`), so that a conformance run fails on any change in either direction: a
// case that does not pass and is not listed, a listed case that passes now or fails in another way
// (listed as unsupported, now a wrong result), and a listed name that is no case of the suite.
// One case a line: `NAME STATUS  # reason`, STATUS `failed` or `unsupported` (as `dcw test-onnx`
// prints them); `#` starts a comment, blank lines are ignored.
struct ExpectedFailure {
  std::string name;
  CaseResult::Status status = CaseResult::Status::Failed;
  std::string reason; // the comment, without '#'
  int line = 0;       // 1-based, in the list's file
};

struct ExpectedFailures {
  std::string file;
  std::vector<ExpectedFailure> cases;

  // Parses the text of a list; `file` locates the diagnostics ("FILE:LINE").
  static Expected<ExpectedFailures> parse(const std::string& text, const std::string& file);
  static Expected<ExpectedFailures> load(const std::string& file);
  const ExpectedFailure* find(const std::string& name) const;
};

// Every disagreement between the results of a run and the list, one located error each, in case and
// then list order; empty when they agree. A listed name that is not among the results counts only
// when `selected(name)` says the run would have included it (`--filter` narrows a run).
std::vector<Diagnostic> compareWithExpectedFailures(const std::vector<CaseResult>& results, const ExpectedFailures& list,
                                                    const std::function<bool(const std::string&)>& selected);

// "passed", "failed" or "unsupported", as `dcw test-onnx` prints a case.
const char* statusName(CaseResult::Status s);

} // namespace dcw::pipeline
