#include "pipeline/Specialize.h"

#include "core/io/ModelFile.h"

#include <set>

namespace dcw::pipeline {

namespace {

// The model's own name for a symbol (import renames dim_params that are not identifiers).
std::string dimName(const ir::Sdfg& s, const std::string& symbol) {
  auto it = s.metadata.find("symbol:" + symbol);
  return it == s.metadata.end() ? symbol : it->second;
}

} // namespace

Expected<std::map<std::string, int64_t>> dimsFromInputs(const std::string& path, const std::vector<ir::Tensor>& inputs) {
  auto m = io::loadModel(path);
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
                                                        std::vector<std::string>* unmatched) {
  auto m = io::loadModel(path);
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
