// The one registry of `dcw` subcommands. `dcw help` and `--help` are generated from it.
#include "app/cli/Cli.h"

#include "codegen/Target.h"

#include <iostream>

namespace dcw::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> list = {
      {"inspect", "Summarize a model: operations, arrays, symbols, parameters, depth", setupInspect},
      {"convert", "Convert a model (.onnx or .dcw.json) to a .dcw.json file", setupConvert},
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

CLI::Option* addTargetOption(CLI::App& sub, std::string& target) {
  auto names = codegen::targetNames();
  std::string list;
  for (auto& n : names) list += (list.empty() ? "" : ", ") + n;
  return sub.add_option("--target", target, "Target to generate for (" + list + ")")->check(CLI::IsMember(names));
}

void reportWarnings(const Diagnostics& ds) {
  for (auto& d : ds.items())
    if (d.severity != Severity::Error) std::cerr << severityName(d.severity) << ": " << d.str() << "\n";
}

} // namespace dcw::cli
