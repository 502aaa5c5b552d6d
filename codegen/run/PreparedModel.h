// PreparedModel: the path from a model file to something that runs — load (.onnx or .dcw.json),
// expand every library node with its `pure` implementation, validate, generate, compile, load.
#pragma once

#include "codegen/run/Executor.h"
#include "core/io/ModelFile.h"

#include <memory>
#include <variant>

namespace dcw::codegen {

struct PreparedModel {
  io::LoadedModel model;             // the expanded SDFG
  std::unique_ptr<Executor> executor;
  int expandedNodes = 0;
};

// Stage reached when preparation fails, to tell "unsupported" (import/expansion) from a bug.
enum class PrepareStage { Load, Expand, Generate };

struct PrepareError {
  PrepareStage stage;
  Diagnostic diagnostic;
};

// `script` (a DCW script file, transforms/Script.h; empty = none) is replayed on the model as imported,
// before constants are folded and the remaining library nodes expanded. A script is recorded on the
// model as imported without specialization; when it does not fit the model specialized to
// `fixedDims`, the unspecialized model is used (dims are then bound at run time). A script that does
// not fit fails at stage Load with the error naming the script line. A script recorded on another
// file (sha256) adds a warning located at the script to the model's warnings.
std::variant<PreparedModel, PrepareError> prepareModel(const std::string& path, const RunOptions& options = {},
                                                       const std::string& script = {});
// Loads (replays the script) and expands only (for `dcw codegen`).
Expected<io::LoadedModel> loadExpanded(const std::string& path, int* expandedNodes = nullptr, const io::LoadOptions& load = {},
                                       const std::string& script = {});
// Model dim names (ONNX dim_param) with the values the given input tensors have, for specialization.
Expected<std::map<std::string, int64_t>> dimsFromInputs(const std::string& path, const std::vector<ir::Tensor>& inputs);
// Model dim names of the inputs' symbolic dims, each with the value given by symbol name in `values`
// (default 1), for specialization before random inputs are made.
Expected<std::map<std::string, int64_t>> dimsFromValues(const std::string& path, const std::map<std::string, int64_t>& values);

} // namespace dcw::codegen
