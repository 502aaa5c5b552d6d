// OnnxTestCase: runs one ONNX backend test case folder (model.onnx + test_data_set_*/input_N.pb,
// output_N.pb) and compares with ONNX's default tolerances (rtol 1e-3, atol 1e-7; NaN equals NaN;
// exact for integers and bools). Import or expansion failures make a case "unsupported" with the
// reason; generation, compilation, run or numerical mismatches make it "failed".
#pragma once

#include "codegen/run/Executor.h"

#include <string>

namespace dcw::codegen {

struct CaseResult {
  enum class Status { Passed, Failed, Unsupported };
  std::string name;
  Status status = Status::Failed;
  std::string message;   // reason or largest error
  double maxAbsError = 0;
  int dataSets = 0;
};

CaseResult runOnnxTestCase(const std::string& folder, const RunOptions& options = {});

} // namespace dcw::codegen
