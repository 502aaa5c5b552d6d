// The `dcw` command line: one function per subcommand, registered in one table (Commands.cpp).
// Every subcommand returns an exit code: 0 success, 2 bad input (after printing exactly one line
// `error: <file or node>: <what is wrong>; <what to do>` on stderr), 1 internal failure.
#pragma once

#include "pipeline/Specialize.h"

#include "core/support/Diagnostic.h"
#include "core/support/Expected.h"
#include "pipeline/Pipeline.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace dcw::cli {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitBadInput = 2;

// Prints `error: ...` (one line) and returns kExitBadInput.
int reportError(const Diagnostic& d);
void reportWarnings(const Diagnostics& d);

struct Command {
  const char* name;
  const char* summary;
  // Adds the subcommand's options to `sub` and returns the function that runs it.
  std::function<std::function<int()>(CLI::App& sub)> setup;
};

const std::vector<Command>& commands();

// The commands, each in its own file.
std::function<int()> setupInspect(CLI::App& sub);
std::function<int()> setupConvert(CLI::App& sub);
std::function<int()> setupImportTorch(CLI::App& sub);
std::function<int()> setupRun(CLI::App& sub);
std::function<int()> setupCodegen(CLI::App& sub);
std::function<int()> setupTestOnnx(CLI::App& sub);
std::function<int()> setupBench(CLI::App& sub);
std::function<int()> setupTransforms(CLI::App& sub);
std::function<int()> setupApply(CLI::App& sub);
std::function<int()> setupOptimize(CLI::App& sub);
std::function<int()> setupProfile(CLI::App& sub);
std::function<int()> setupGrad(CLI::App& sub);
std::function<int()> setupTrain(CLI::App& sub);
std::function<int()> setupRtlSim(CLI::App& sub);

// Prints the warnings located at the script file (e.g. recorded on another model).
void reportScriptWarnings(const Diagnostics& d, const std::string& script);

// `--dim NAME=VALUE` options (run, bench, profile, optimize, apply) as a map; an entry that is not
// NAME=INTEGER is refused naming it.
Expected<std::map<std::string, int64_t>> parseDimOptions(const std::vector<std::string>& dims);
// The `--dim` options as values for the model's dynamic dims (pipeline::dimsFromValues: by symbol or by
// the model's own dim name, 1 for the others) and for its scalar integer inputs named so
// (pipeline::specializationFromValues); a name that matches neither is warned about, naming the dims
// there are.
Expected<pipeline::Specialization> fixedDimsFromOptions(const std::string& model, const std::vector<std::string>& dims);
// What run, bench, profile, codegen and rtl-sim do with `--dim`: the model specialized through `opts`
// (fixedDimsFromOptions) before compiling; returns the values as given (for random inputs' shapes).
Expected<std::map<std::string, int64_t>> specializeFromDimOptions(const std::string& model, const std::vector<std::string>& dims,
                                                                   pipeline::Options& opts);
// Adds `--target NAME` (checked against the target registry, codegen/Target.h) to a subcommand.
CLI::Option* addTargetOption(CLI::App& sub, std::string& target);

// Adds `--prefer IMPL` (repeatable): implementations tried first for library nodes without a choice
// of their own, e.g. `--prefer onednn`; a node the implementation refuses gets the target's default.
CLI::Option* addPreferOption(CLI::App& sub, std::vector<std::string>& prefer);

// Where generated code runs (run, profile): a worker process by default, with an optional time and
// memory limit, or dcw's own process with `--in-process`.
struct IsolationOptions {
  bool inProcess = false;
  double timeLimit = 0;
  int64_t memoryLimitMiB = -1;
};
// Adds `--in-process`, `--time-limit S` and `--memory-limit MIB`; `inProcessNote` says what running in
// process gives this command.
void addIsolationOptions(CLI::App& sub, IsolationOptions& o, const std::string& inProcessNote);
// Fills the pipeline's isolation fields; limits together with --in-process are refused.
Expected<void> applyIsolationOptions(const IsolationOptions& o, pipeline::Options& into);

} // namespace dcw::cli
