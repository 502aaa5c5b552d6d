// The one registry of `dcw` subcommands. `dcw help` and `--help` are generated from it.
#include "app/cli/Cli.h"

#include "codegen/Target.h"
#include "core/expansions/Expansion.h"
#include "pipeline/Specialize.h"

#include <iostream>
#include <set>

namespace dcw::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      {"inspect", "Summarize a model: operations, arrays, symbols, parameters, depth", setupInspect},
      {"convert", "Convert a model (.onnx or .dcw.json) to a .dcw.json file", setupConvert},
      {"import-torch", "Export a TorchScript model (.pt) to ONNX with torch's exporter, for the other commands and the app", setupImportTorch},
      {"run", "Compile and run a model on tensors (ONNX TensorProto files) or random inputs", setupRun},
      {"codegen", "Write the generated sources of a model", setupCodegen},
      {"test-onnx", "Run ONNX backend test case folders and compare with their expected outputs", setupTestOnnx},
      {"bench", "Measure the latency of the compiled model", setupBench},
      {"profile", "Profile a model per element (time, FLOP/s, bytes, counters): a JSON report and a Chrome trace; or compare two reports", setupProfile},
      {"transforms", "List the transformations, or where they apply in a model (as script lines)", setupTransforms},
      {"apply", "Replay a script of transformations and edits on a model", setupApply},
      {"optimize", "Auto-optimize a model: expand, apply the transformation pipeline, parallelize", setupOptimize},
      {"grad", "Differentiate an output w.r.t. inputs or weights; write the gradients as TensorProto files", setupGrad},
      {"train", "Train a model's weights on a scalar loss with SGD or Adam in generated code", setupTrain},
      {"rtl-sim", "Simulate the FPGA kernels as RTL with Verilator: measured cycles against the estimate, outputs against C-simulation", setupRtlSim},
  };
  return list;
}

int reportError(const Diagnostic& d) {
  std::cerr << "error: " << d.str() << std::endl;
  return kExitBadInput;
}

Expected<std::map<std::string, int64_t>> parseDimOptions(const std::vector<std::string>& dims) {
  std::map<std::string, int64_t> values;
  for (auto& d : dims) {
    auto eq = d.find('=');
    if (eq == std::string::npos || eq == 0) return fail("--dim " + d, "expected NAME=VALUE", "for example --dim batch=1");
    size_t used = 0;
    int64_t v = 0;
    try {
      v = std::stoll(d.substr(eq + 1), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != d.size() - eq - 1) return fail("--dim " + d, "the value is not an integer", "for example --dim batch=1");
    if (v < 0) return fail("--dim " + d, "a dimension cannot be negative");
    values[d.substr(0, eq)] = v;
  }
  return values;
}

Expected<pipeline::Specialization> fixedDimsFromOptions(const std::string& model, const std::vector<std::string>& dims) {
  auto values = parseDimOptions(dims);
  if (!values) return values.takeError();
  std::vector<std::string> unmatched;
  auto fixed = pipeline::specializationFromValues(model, *values, &unmatched);
  if (!fixed) return fixed.takeError();
  if (!unmatched.empty()) {
    std::string known;
    for (auto& [name, v] : fixed->dims) known += (known.empty() ? "" : ", ") + name;
    for (auto& name : unmatched)
      std::cerr << "warning: --dim " << name << ": the model's inputs have no dynamic dim of that name ("
                << (known.empty() ? std::string("they have none") : "theirs: " + known) << ")\n";
  }
  return fixed;
}

Expected<std::map<std::string, int64_t>> specializeFromDimOptions(const std::string& model, const std::vector<std::string>& dims,
                                                                   pipeline::Options& opts) {
  DCW_TRY(auto values, parseDimOptions(dims));
  DCW_TRY(auto fixed, fixedDimsFromOptions(model, dims));
  opts.fixedDims = fixed.dims;
  opts.fixedValues = fixed.values;
  return values;
}

CLI::Option* addTargetOption(CLI::App& sub, std::string& target) {
  auto names = codegen::targetNames();
  std::string list;
  for (auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return sub.add_option("--target", target, "Target to generate for (" + list + ")")->check(CLI::IsMember(names));
}

CLI::Option* addPreferOption(CLI::App& sub, std::vector<std::string>& prefer) {
  std::set<std::string> names;
  for (auto& e : expansions::registry().all()) names.insert(e.implementation);
  std::string list;
  for (auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return sub.add_option("--prefer", prefer,
                        "Implementation to use for library nodes that have none chosen, where it takes the node (" + list +
                            "); repeat for an order")
      // One name per --prefer, so that `--prefer systolic model.onnx` leaves the model to the positional.
      ->allow_extra_args(false)
      ->check(CLI::IsMember(std::vector<std::string>(names.begin(), names.end())));
}

void addIsolationOptions(CLI::App& sub, IsolationOptions& o, const std::string& inProcessNote) {
  sub.add_flag("--in-process", o.inProcess,
               "Load the program into dcw itself instead of a worker process (a crash in generated code then ends dcw)" +
                   (inProcessNote.empty() ? std::string() : "; " + inProcessNote));
  sub.add_option("--time-limit", o.timeLimit, "Stop the program after this many seconds a run (default: no limit)")
      ->check(CLI::NonNegativeNumber);
  sub.add_option("--memory-limit", o.memoryLimitMiB, "Memory the program may use, in MiB (default: the machine's physical memory; 0: no limit)")
      ->check(CLI::Range(int64_t(0), int64_t(1) << 40));
}

Expected<void> applyIsolationOptions(const IsolationOptions& o, pipeline::Options& into) {
  if (o.inProcess && (o.timeLimit > 0 || o.memoryLimitMiB >= 0))
    return fail("--in-process", "the time and memory limits apply to the worker process", "drop --in-process, or the limits");
  into.isolated = !o.inProcess;
  into.limits.seconds = o.timeLimit;
  into.limits.memoryBytes = o.memoryLimitMiB < 0 ? -1 : o.memoryLimitMiB << 20;
  return {};
}

void reportWarnings(const Diagnostics& ds) {
  for (auto& d : ds.items())
    if (d.severity != Severity::Error) std::cerr << severityName(d.severity) << ": " << d.str() << "\n";
}

} // namespace dcw::cli
