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

std::variant<PreparedModel, PrepareError> prepareModel(const std::string& path, const RunOptions& options = {});
// Loads and expands only (for `dcw codegen`).
Expected<io::LoadedModel> loadExpanded(const std::string& path, int* expandedNodes = nullptr);

} // namespace dcw::codegen
