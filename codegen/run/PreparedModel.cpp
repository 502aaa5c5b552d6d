#include "codegen/run/PreparedModel.h"

#include "core/expansions/ExpandPass.h"
#include "core/ir/Validate.h"
#include "transforms/FoldConstants.h"

namespace dcw::codegen {

Expected<io::LoadedModel> loadExpanded(const std::string& path, int* expandedNodes) {
  auto m = io::loadModel(path);
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
  auto loaded = io::loadModel(path);
  if (!loaded) return PrepareError{PrepareStage::Load, loaded.error()};
  PreparedModel p;
  int n = 0;
  auto m = loadExpanded(path, &n);
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
