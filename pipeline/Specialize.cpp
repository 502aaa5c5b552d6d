#include "pipeline/Specialize.h"

#include "core/io/ModelFile.h"
#include "core/onnx/InterfaceValue.h"

#include <set>

namespace dcw::pipeline {

namespace {

// The model's own name for a symbol (import renames dim_params that are not identifiers).
std::string dimName(const ir::Sdfg& s, const std::string& symbol) {
  auto it = s.metadata.find("symbol:" + symbol);
  return it == s.metadata.end() ? symbol : it->second;
}

// The names of an ONNX model's inputs, in order, without importing it.
Expected<std::vector<std::string>> inputNames(const std::string& path) {
  std::vector<std::string> names;
  DCW_TRY(auto declared, onnx::declaredInterface(path));
  for (auto& [n, k] : declared.inputs) names.push_back(n);
  return names;
}

// One integer or boolean: a scalar or a [1] tensor (not token ids, which are data).
bool smallInteger(const ir::Tensor& t) {
  return (t.dtype == ir::DType::Int64 || t.dtype == ir::DType::Int32 || t.dtype == ir::DType::Bool) && t.bytes && t.dims.size() <= 1 &&
         t.elementCount() == 1;
}

} // namespace

Expected<std::map<std::string, ir::Tensor>> valuesFromInputs(const std::string& path, const std::vector<ir::Tensor>& inputs) {
  // A saved SDFG was specialized when it was converted; its value symbols are bound when it runs.
  if (io::detectFormat(path) != io::ModelFormat::Onnx) return std::map<std::string, ir::Tensor>{};
  DCW_TRY(auto names, inputNames(path));
  std::map<std::string, ir::Tensor> out;
  for (size_t i = 0; i < names.size() && i < inputs.size(); ++i)
    if (smallInteger(inputs[i])) out.emplace(names[i], inputs[i]);
  return out;
}

Expected<Specialization> specializationFromValues(const std::string& path, const std::map<std::string, int64_t>& values,
                                                  std::vector<std::string>* unmatched) {
  Specialization s;
  std::map<std::string, int64_t> dims = values;
  if (io::detectFormat(path) == io::ModelFormat::Onnx) {
    DCW_TRY(auto declared, onnx::declaredInterface(path));
    for (auto& [name, kind] : declared.inputs) {
      auto v = dims.find(name);
      if (v == dims.end() || !declared.scalarIntegers.count(name)) continue;
      ir::Tensor t;
      t.dtype = declared.scalarIntegers.at(name);
      if (t.dtype == ir::DType::Int32) {
        int32_t x = int32_t(v->second);
        t.bytes = std::make_shared<const std::string>(reinterpret_cast<const char*>(&x), sizeof x);
      } else {
        int64_t x = v->second;
        t.bytes = std::make_shared<const std::string>(reinterpret_cast<const char*>(&x), sizeof x);
      }
      s.values.emplace(name, std::move(t));
      dims.erase(v);
    }
  }
  DCW_TRY(s.dims, dimsFromValues(path, dims, unmatched, s.values));
  return s;
}

Expected<std::map<std::string, int64_t>> dimsFromInputs(const std::string& path, const std::vector<ir::Tensor>& inputs,
                                                        const std::map<std::string, ir::Tensor>& fixedValues) {
  io::LoadOptions load;
  load.fixedValues = fixedValues;
  auto m = io::loadModel(path, load);
  if (!m) return m.takeError();
  std::map<std::string, int64_t> out;
  const auto& names = m->sdfg->inputs;
  for (size_t i = 0; i < names.size() && i < inputs.size(); ++i) {
    const ir::DataDescriptor* d = m->sdfg->findData(names[i]);
    if (!d || d->shape.size() != inputs[i].dims.size()) continue; // reported when the inputs are checked
    for (size_t k = 0; k < d->shape.size(); ++k)
      if (d->shape[k].isSymbol()) out.emplace(dimName(*m->sdfg, d->shape[k].symbolName()), inputs[i].dims[k]);
  }
  return out;
}

Expected<std::map<std::string, int64_t>> dimsFromValues(const std::string& path, const std::map<std::string, int64_t>& values,
                                                        std::vector<std::string>* unmatched,
                                                        const std::map<std::string, ir::Tensor>& fixedValues) {
  io::LoadOptions load;
  load.fixedValues = fixedValues;
  auto m = io::loadModel(path, load);
  if (!m) return m.takeError();
  std::map<std::string, int64_t> out;
  std::set<std::string> used;
  for (auto& name : m->sdfg->inputs)
    if (const ir::DataDescriptor* d = m->sdfg->findData(name))
      for (auto& e : d->shape)
        if (e.isSymbol()) {
          const std::string model = dimName(*m->sdfg, e.symbolName());
          auto v = values.find(e.symbolName());
          if (v == values.end()) v = values.find(model);
          if (v != values.end()) used.insert(v->first);
          out.emplace(model, v == values.end() ? 1 : v->second);
        }
  if (unmatched)
    for (auto& [name, value] : values)
      if (!used.count(name)) unmatched->push_back(name);
  return out;
}

} // namespace dcw::pipeline
