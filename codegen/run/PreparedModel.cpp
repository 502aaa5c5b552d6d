#include "codegen/run/PreparedModel.h"

#include "core/expansions/ExpandPass.h"
#include "core/ir/Validate.h"
#include "transforms/FoldConstants.h"

namespace dcw::codegen {

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

Expected<std::map<std::string, int64_t>> dimsFromValues(const std::string& path, const std::map<std::string, int64_t>& values) {
  auto m = io::loadModel(path);
  if (!m) return m.takeError();
  std::map<std::string, int64_t> out;
  for (auto& name : m->sdfg->inputs)
    if (const ir::DataDescriptor* d = m->sdfg->findData(name))
      for (auto& e : d->shape)
        if (e.isSymbol()) {
          auto v = values.find(e.symbolName());
          out.emplace(dimName(*m->sdfg, e.symbolName()), v == values.end() ? 1 : v->second);
        }
  return out;
}

Expected<io::LoadedModel> loadExpanded(const std::string& path, int* expandedNodes, const io::LoadOptions& load) {
  auto m = io::loadModel(path, load);
  if (!m) return m.takeError();
  transforms::foldConstants(*m->sdfg);
  auto r = expansions::expandAll(*m->sdfg);
  if (!r) {
    Diagnostic d = r.error();
    d.location = path + ": " + d.location;
    return fail(d);
  }
  if (expandedNodes) *expandedNodes = r->expanded;
  m->validation = ir::validate(*m->sdfg);
  if (const Diagnostic* e = m->validation.firstError()) {
    Diagnostic d = *e;
    d.location = path + ": " + d.location;
    d.message = "the expanded model does not validate: " + d.message;
    d.hint = "this is a bug in an expansion; please report it";
    return fail(d);
  }
  return m;
}

std::variant<PreparedModel, PrepareError> prepareModel(const std::string& path, const RunOptions& options) {
  io::LoadOptions load;
  load.fixedDims = options.fixedDims;
  auto loaded = io::loadModel(path, load);
  if (!loaded) return PrepareError{PrepareStage::Load, loaded.error()};
  PreparedModel p;
  int n = 0;
  auto m = loadExpanded(path, &n, load);
  if (!m) return PrepareError{PrepareStage::Expand, m.error()};
  p.model = std::move(*m);
  p.expandedNodes = n;
  auto e = Executor::create(*p.model.sdfg, options);
  if (!e) {
    Diagnostic d = e.error();
    if (d.location.rfind(path, 0) != 0) d.location = path + ": " + d.location;
    return PrepareError{PrepareStage::Generate, d};
  }
  p.executor = std::move(*e);
  return p;
}

} // namespace dcw::codegen
