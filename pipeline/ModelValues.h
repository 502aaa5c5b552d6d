// ModelValues: a run's inputs and outputs as the model declares them — tensors, and for an ONNX model
// with sequences or optionals at its interface, those too (onnx/InterfaceValue.h) — read from and
// written to ONNX's test-case files (input_N.pb / output_N.pb), and run through a built program by the
// layout its import recorded. Used by `dcw run` and `dcw test-onnx`, so both pass the same values.
#pragma once

#include "core/onnx/InterfaceValue.h"
#include "core/support/Expected.h"
#include "pipeline/Pipeline.h"

#include <string>
#include <vector>

namespace dcw::pipeline {

// The kinds the model declares for its inputs and outputs: an ONNX file's, or all tensors for a saved
// SDFG (its interface was fixed when it was converted).
Expected<onnx::DeclaredInterface> declaredValues(const std::string& modelPath);

// `prefix`_0.pb, `prefix`_1.pb, ... in `folder`, each read as the kind `kinds` gives it (tensor beyond).
// (They are written by onnx::writeInterfaceValue.)
Expected<std::vector<onnx::InterfaceValue>> readValues(const std::string& folder, const std::string& prefix,
                                                       const std::vector<std::pair<std::string, onnx::InterfaceValue::Kind>>& kinds);

// Specializes `options` to the inputs when the model's interface has sequences or optionals.
void bindInterface(Options& options, const onnx::DeclaredInterface& declared, const std::vector<onnx::InterfaceValue>& inputs);

// Runs the program on the model's values: flattened to the program's tensors by the layout in the
// SDFG's metadata (when there is one) and the outputs regrouped. `names` receives the outputs' names.
Expected<std::vector<onnx::InterfaceValue>> runValues(Program& program, const std::vector<onnx::InterfaceValue>& inputs,
                                                      std::vector<std::string>* names = nullptr);

} // namespace dcw::pipeline
