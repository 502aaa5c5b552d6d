// OnnxImporter: turns an ONNX model file into an SDFG. The model is parsed, its external data is
// loaded (only from files inside the model's folder), the ONNX checker and shape inference run, and
// the graph becomes one state: graph inputs/outputs are non-transient arrays, initializers constant
// arrays, intermediate values transients, dynamic dims symbols, and every node a LibraryNode whose
// class (domain, op type, since-version, typed connectors and attributes) comes from ONNX's schema
// registry. If/Loop/Scan bodies become subgraphs of their node. Bad input yields a Diagnostic naming
// the file or node; nothing is ever read outside the model's folder.
#pragma once

#include "core/ir/Sdfg.h"
#include "core/onnx/InterfaceValue.h"
#include "core/support/Diagnostic.h"
#include "core/support/Expected.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>

namespace dcw::onnx {

struct ImportOptions {
  bool runChecker = true;
  bool runShapeInference = true;
  // Refuse files larger than this before reading them (bytes).
  uint64_t maxFileSize = uint64_t(4) << 30;
  // Specialization: concrete values for dynamic dims, by the model's dim_param name. Applied to graph
  // inputs, outputs and value_info before shape inference, so the whole graph gets static shapes.
  std::map<std::string, int64_t> fixedDims;
  // Specialization to a run's inputs, by graph input name, for a model with sequences or optionals
  // (StaticSequences.h): sequence/optional inputs become their tensors, one-element integer/bool inputs
  // that decide structure are folded; the SDFG's "interface" metadata says how (InterfaceValue.h).
  std::map<std::string, InterfaceValue> interface;
  // Inputs whose values the program is specialized to, by name (small integer inputs a run gives: a
  // sample rate an If branches on, a window length): every use reads a constant, so what they decide is
  // decided at import. The inputs stay in the program's interface.
  std::map<std::string, ir::Tensor> fixedValues;
};

struct ImportResult {
  std::unique_ptr<ir::Sdfg> sdfg;
  Diagnostics warnings; // non-fatal findings (opaque ops, values without inferred shapes, ...)
};

Expected<ImportResult> importOnnxFile(const std::string& path, const ImportOptions& options = {});
// Imports from bytes already in memory (used by the fuzzer). External data is resolved against
// `baseDir`; an empty baseDir refuses all external data.
Expected<ImportResult> importOnnxBytes(const std::string& bytes, const std::string& sourceName,
                                       const std::string& baseDir, const ImportOptions& options = {});

// Highest ai.onnx opset this build understands (from the installed ONNX schema registry).
int maxSupportedOpset();

} // namespace dcw::onnx
