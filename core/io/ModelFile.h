// ModelFile: opens whatever a user hands DCW as a model — an ONNX file (`.onnx`) or a saved SDFG
// (`.dcw.json`) — and returns the SDFG, the load warnings and the validation result. This is the one
// entry point used by the command line, the GUI and tests.
#pragma once

#include "core/ir/Sdfg.h"
#include "core/onnx/InterfaceValue.h"
#include "core/support/Diagnostic.h"
#include "core/support/Expected.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace dcw::io {

enum class ModelFormat { Onnx, DcwJson };

struct LoadedModel {
  std::unique_ptr<ir::Sdfg> sdfg;
  ModelFormat format = ModelFormat::Onnx;
  std::string path;
  Diagnostics warnings;    // from loading
  Diagnostics validation;  // from ir::validate (errors here mean the model is refused)
};

// Chooses the format by extension (.onnx / .dcw.json / .json) and, failing that, by content.
// Fails when the file cannot be loaded or does not validate (the first validation error is reported).
struct LoadOptions {
  // Values for dynamic dims by the model's own dim names (ONNX dim_param): the model is specialized
  // (an ONNX file on import; a .dcw.json by ir::specializeSymbols).
  std::map<std::string, int64_t> fixedDims;
  // A run's inputs by name, for an ONNX model with sequences or optionals (onnx::ImportOptions::interface).
  std::map<std::string, onnx::InterfaceValue> interface;
  // Inputs whose values the model is specialized to (onnx::ImportOptions::fixedValues; for a .dcw.json,
  // the symbols that stand for their elements, metadata "value-symbol:S").
  std::map<std::string, ir::Tensor> fixedValues;
};

// The format loadModel reads `path` as.
ModelFormat detectFormat(const std::string& path);

Expected<LoadedModel> loadModel(const std::string& path, const LoadOptions& options = {});

// Fixes the symbols of a loaded SDFG that stand for the given dims (by the model's dim names) and for
// the elements of the given inputs (value symbols): what loadModel does to a .dcw.json, and what a run
// does to a model whose steps were recorded before its dims were known (ir::specializeSymbols).
void specializeModel(ir::Sdfg& sdfg, const std::map<std::string, int64_t>& fixedDims,
                     const std::map<std::string, ir::Tensor>& fixedValues);

} // namespace dcw::io
