#include "pipeline/ModelValues.h"

#include "core/io/ModelFile.h"

#include <filesystem>

namespace dcw::pipeline {

namespace fs = std::filesystem;

Expected<onnx::DeclaredInterface> declaredValues(const std::string& modelPath) {
  auto format = io::detectFormat(modelPath);
  if (format == io::ModelFormat::Onnx) return onnx::declaredInterface(modelPath);
  return onnx::DeclaredInterface{};
}

Expected<std::vector<onnx::InterfaceValue>> readValues(const std::string& folder, const std::string& prefix,
                                                       const std::vector<std::pair<std::string, onnx::InterfaceValue::Kind>>& kinds) {
  std::vector<onnx::InterfaceValue> values;
  for (size_t i = 0;; ++i) {
    std::string f = (fs::path(folder) / (prefix + "_" + std::to_string(i) + ".pb")).string();
    if (!fs::exists(f)) break;
    auto v = onnx::readInterfaceValue(f, i < kinds.size() ? kinds[i].second : onnx::InterfaceValue::Kind::Tensor);
    if (!v) return v.takeError();
    values.push_back(std::move(*v));
  }
  return values;
}

void bindInterface(Options& options, const onnx::DeclaredInterface& declared, const std::vector<onnx::InterfaceValue>& inputs) {
  if (!declared.structured()) return;
  for (size_t i = 0; i < inputs.size() && i < declared.inputs.size(); ++i) options.interface[declared.inputs[i].first] = inputs[i];
}

Expected<std::vector<onnx::InterfaceValue>> runValues(Program& program, const std::vector<onnx::InterfaceValue>& inputs,
                                                      std::vector<std::string>* names) {
  const ir::Sdfg& sdfg = *program.prepared.model.sdfg;
  auto it = sdfg.metadata.find(onnx::kInterfaceMetadata);
  if (it == sdfg.metadata.end()) { // tensors in, tensors out
    std::vector<ir::Tensor> flat;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].kind != onnx::InterfaceValue::Kind::Tensor)
        return fail("input " + std::to_string(i) + (i < sdfg.inputs.size() ? " ('" + sdfg.inputs[i] + "')" : std::string()),
                    "is " + inputs[i].describe() + ", but the model takes a tensor");
      flat.push_back(inputs[i].tensor);
    }
    DCW_TRY(auto out, program.executor->run(flat));
    std::vector<onnx::InterfaceValue> values;
    for (size_t i = 0; i < out.size(); ++i) {
      values.push_back(onnx::InterfaceValue::ofTensor(std::move(out[i])));
      if (names) names->push_back(i < sdfg.outputs.size() ? sdfg.outputs[i] : std::to_string(i));
    }
    return values;
  }
  DCW_TRY(auto layout, onnx::ModelInterface::parse(it->second));
  DCW_TRY(auto flat, layout.flatten(inputs));
  DCW_TRY(auto out, program.executor->run(flat));
  if (names)
    for (auto& [n, l] : layout.outputs) names->push_back(n);
  return layout.regroup(out);
}

} // namespace dcw::pipeline
