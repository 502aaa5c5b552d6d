#include "codegen/run/PreparedModel.h"

#include "core/edit/Editor.h"
#include "transforms/autodiff/GradientOp.h"

#include "core/expansions/ExpandPass.h"
#include "core/edit/History.h"
#include "core/ir/Validate.h"
#include "core/support/Sha256.h"
#include "transforms/FoldConstants.h"
#include "transforms/Script.h"

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

namespace {

// Replays the script file on the model through a history (the steps stay applied).
Expected<void> replayScript(io::LoadedModel& m, const std::string& script) {
  auto s = transforms::readScript(script);
  if (!s) return s.takeError();
  edit::History h(*m.sdfg);
  return transforms::replay(*s, h, script);
}

// Loads the model and replays the script on it (see prepareModel).
Expected<io::LoadedModel> loadScripted(const std::string& path, const io::LoadOptions& load, const std::string& script) {
  auto m = io::loadModel(path, load);
  if (!m || script.empty()) return m;
  auto parsed = transforms::readScript(script);
  if (!parsed) return parsed.takeError();
  Diagnostics notes;
  if (!parsed->sha256.empty())
    if (auto sha = sha256File(path); sha && *sha != parsed->sha256)
      notes.warning(script, "was recorded on a different file (sha256 " + parsed->sha256.substr(0, 12) + "...) than " + path +
                                " (sha256 " + sha->substr(0, 12) + "...)",
                    "replaying it anyway; a step that does not fit fails at its line");
  auto r = replayScript(*m, script);
  if (!r && !load.fixedDims.empty()) {
    // Scripts are recorded on the model as imported; specialization may have changed what fits.
    // If it does not fit the model as imported either, that error is the one to report.
    auto plain = io::loadModel(path);
    if (!plain) return plain.takeError();
    auto again = replayScript(*plain, script);
    if (!again) return again.takeError();
    notes.warning(script, "does not fit the model specialized to the input shapes (" + r.error().str() + ")",
                  "the model runs unspecialized (dims are bound at run time)");
    m = std::move(plain);
    r = Expected<void>();
  }
  if (!r) return r.takeError();
  m->warnings.append(notes);
  return m;
}

// Folds constants, lowers ONNX training `Gradient` ops to autodiff, expands every library node left
// and validates.
Expected<io::LoadedModel> expandLoaded(io::LoadedModel m, const std::string& path, int* expandedNodes) {
  transforms::foldConstants(*m.sdfg);
  {
    edit::Editor editor(*m.sdfg); // a pass: its journal is not kept
    if (auto g = autodiff::lowerGradientOps(editor); !g) {
      Diagnostic d = g.error();
      d.location = path + ": " + d.location;
      return fail(d);
    }
  }
  auto r = expansions::expandAll(*m.sdfg);
  if (!r) {
    Diagnostic d = r.error();
    d.location = path + ": " + d.location;
    return fail(d);
  }
  if (expandedNodes) *expandedNodes = r->expanded;
  m.validation = ir::validate(*m.sdfg);
  if (const Diagnostic* e = m.validation.firstError()) {
    Diagnostic d = *e;
    d.location = path + ": " + d.location;
    d.message = "the expanded model does not validate: " + d.message;
    d.hint = "this is a bug in an expansion; please report it";
    return fail(d);
  }
  return m;
}

} // namespace

Expected<io::LoadedModel> loadExpanded(const std::string& path, int* expandedNodes, const io::LoadOptions& load,
                                       const std::string& script) {
  auto m = loadScripted(path, load, script);
  if (!m) return m.takeError();
  return expandLoaded(std::move(*m), path, expandedNodes);
}

std::variant<PreparedModel, PrepareError> prepareModel(const std::string& path, const RunOptions& options,
                                                       const std::string& script) {
  io::LoadOptions load;
  load.fixedDims = options.fixedDims;
  auto loaded = loadScripted(path, load, script);
  if (!loaded) return PrepareError{PrepareStage::Load, loaded.error()};
  PreparedModel p;
  int n = 0;
  auto m = expandLoaded(std::move(*loaded), path, &n);
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
