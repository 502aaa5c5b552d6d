// OnnxTestCase: runs one ONNX backend test case folder (model.onnx + test_data_set_*/input_N.pb,
// output_N.pb) and compares with ONNX's default tolerances (rtol 1e-3, atol 1e-7; NaN equals NaN;
// exact for integers and bools), through the pipeline (pipeline/Pipeline.h). Failures to load or lower
// (an op or attribute without an implementation) make a case "unsupported" with the reason;
// generation, compilation, run or numerical mismatches make it "failed".
#pragma once

#include "pipeline/Pipeline.h"

#include <string>

namespace dcw::pipeline {

struct CaseResult {
  enum class Status { Passed, Failed, Unsupported };
  std::string name;
  Status status = Status::Failed;
  std::string message;   // reason or largest error
  double maxAbsError = 0;
  int dataSets = 0;
};

CaseResult runOnnxTestCase(const std::string& folder, const Options& options = {});

} // namespace dcw::pipeline
