// Pipeline: the one path from a model file to code and to a running program, used by every caller —
// each `dcw` command (run, bench, codegen, profile, test-onnx, grad, train), the app's code view,
// Code Changes, Verify, Profile and Compare, and the tests — so that what the app shows and times is
// exactly what the command line builds.
//
//   model file ─load (specialized to fixedDims)─▶ steps (script file, then history lines)
//     ─▶ edit hook (grad/train: trainable weights, differentiation, optimizer update)
//     ─▶ fold constants ─▶ peel the string ops at the model's edges (the host runs them: StringStages.h) ─▶ lower ONNX `Gradient` ops ─▶ expand every library node (its chosen
//        implementation; the target's default for the rest) ─▶ validate ─▶ check the target owns every
//        schedule and storage                                                     = prepare()
//     ─▶ generate sources + source map (the Target)                               = generate()
//     ─▶ build (toolchain, content-addressed cache) ─▶ load ─▶ Executor          = build()
//
// Steps are recorded on the model as imported, with its dims known (`dcw optimize --dim`) or not. When
// they do not fit the model specialized to `fixedDims` (specialization changes what a step matches),
// they are replayed on the model with its dims unknown and the result is specialized afterwards
// (io::specializeModel, as a saved .dcw.json is); when they fit neither, the error names the script line.
#pragma once

#include "codegen/Target.h"
#include "codegen/run/Executor.h"
#include "core/io/ModelFile.h"
#include "core/support/Expected.h"

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace dcw::pipeline {

// What is applied to the model as imported, in this order.
struct Steps {
  std::string scriptPath;             // a DCW script file (transforms/Script.h); empty: none
  std::vector<std::string> lines;     // command lines as the history holds them (the app's history)
  std::string linesOrigin = "history"; // how errors in `lines` are located ("history:3")
  bool empty() const { return scriptPath.empty() && lines.empty(); }
};

struct Options {
  std::string target = "cpu";
  std::map<std::string, int64_t> fixedDims; // dynamic dims by the model's dim names; empty: unspecialized
  // A run's inputs by name, for a model with sequences or optionals at its interface (InterfaceValue.h):
  // the program is specialized to their structure; empty: none.
  std::map<std::string, onnx::InterfaceValue> interface;
  // Inputs whose values the program is specialized to (io::LoadOptions::fixedValues); empty: none.
  std::map<std::string, ir::Tensor> fixedValues;
  // Runs after the steps and before lowering, on the model as it then is (grad/train).
  std::function<Expected<void>(io::LoadedModel&)> edit;
  // Steps that do not fit the model specialized to fixedDims fail, instead of being replayed on the
  // model with its dims unknown (`dcw apply --dim`: what was asked for is what is written).
  bool specializedStepsMustFit = false;
  // Implementations tried first for library nodes without a choice of their own (e.g. {"onednn"});
  // where one refuses a node, the target's default policy is used (expansions::ExpandOptions).
  std::vector<std::string> prefer;
  codegen::GenerateOptions generate;         // instrumentation
  codegen::CompileOptions compile;
  int threads = 0;                           // 0: the program's default (all cores)
  // Run the program in a worker process (codegen/run/WorkerProcess.h) with these limits; the cancel
  // flag, when set, kills a running program at once.
  bool isolated = false;
  codegen::WorkerLimits limits;
  std::shared_ptr<std::atomic<bool>> cancel;
};

// Where a failure happened: Load and Steps are the user's input, Lower means an op or a choice that
// cannot be implemented (unsupported), Generate and Build are DCW's own (or a bad transformation).
enum class Stage { Load, Steps, Lower, Generate, Build };
const char* stageName(Stage s);

struct Failure {
  Stage stage = Stage::Load;
  Diagnostic diagnostic;
  std::string element; // with Build: the element the compiler's first error maps to ("" when none)
};

// The IR ready for a target: every library node expanded, validated, schedules/storages checked.
struct Prepared {
  io::LoadedModel model;          // warnings include the script's
  const codegen::Target* target = nullptr;
  int expandedNodes = 0;
  std::map<std::string, int> implementations; // expanded nodes by implementation
  // The string ops peeled off the model's edges, which the host runs around the program.
  std::shared_ptr<const codegen::StringStages> stringStages;
};

// A built program: the prepared IR, its generated code and an executor that runs it.
struct Program {
  Prepared prepared;
  std::unique_ptr<codegen::Executor> executor; // holds the generated code (executor->code())
  double buildSeconds = 0;                     // generation + build + load
};

// A value or a located failure with its stage.
template <class T>
class Result {
public:
  Result(T v) : value_(std::make_unique<T>(std::move(v))) {}
  Result(Failure f) : failure_(std::move(f)) {}
  explicit operator bool() const { return value_ != nullptr; }
  T& operator*() { return *value_; }
  T* operator->() { return value_.get(); }
  const Failure& failure() const { return failure_; }
  const Diagnostic& error() const { return failure_.diagnostic; }

private:
  std::unique_ptr<T> value_;
  Failure failure_;
};

// The first stage alone: the model loaded (specialized) with the steps applied (`dcw apply`). `applied`
// receives the number of steps.
Result<io::LoadedModel> loadWithSteps(const std::string& modelPath, const Steps& steps, const Options& options = {},
                                      size_t* applied = nullptr);
Result<Prepared> prepare(const std::string& modelPath, const Steps& steps = {}, const Options& options = {});
// Sources of a prepared model (as `dcw codegen` writes them and the app's code view shows them).
Result<codegen::GeneratedCode> generate(const Prepared& prepared, const Options& options = {});
// prepare + generate + build + load.
Result<Program> build(const std::string& modelPath, const Steps& steps = {}, const Options& options = {});
// generate + build + load of a prepared model (kept in the result; `prepared.model` must stay alive).
Result<Program> build(Prepared prepared, const Options& options = {});

} // namespace dcw::pipeline
