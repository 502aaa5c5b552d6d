// GradientProgram: model file -> compiled gradient (or training-step) program; see GradientProgram.h.
#include "app/cli/GradientProgram.h"

#include "core/edit/History.h"
#include "core/onnx/TensorFile.h"
#include "pipeline/Pipeline.h"
#include "transforms/autodiff/Autodiff.h"
#include "transforms/autodiff/Differentiate.h"

#include <algorithm>
#include <filesystem>

namespace dcw::cli {

namespace fs = std::filesystem;
using namespace dcw::ir;

int GradientProgram::outputIndex(const std::string& name) const {
  auto& outs = model.sdfg->outputs;
  auto it = std::find(outs.begin(), outs.end(), name);
  return it == outs.end() ? -1 : int(it - outs.begin());
}

Expected<std::vector<Tensor>> readTensorFolder(const std::string& dir) {
  std::vector<Tensor> out;
  for (size_t i = 0;; ++i) {
    std::string f = (fs::path(dir) / ("input_" + std::to_string(i) + ".pb")).string();
    if (!fs::exists(f)) {
      if (i == 0) return fail(dir, "holds no input_0.pb", "write the inputs as input_N.pb TensorProto files");
      break;
    }
    auto t = onnx::readTensorFile(f);
    if (!t) return t.takeError();
    out.push_back(std::move(t->tensor));
  }
  return out;
}

namespace {

int64_t sum(const std::map<std::string, int64_t>& m) {
  int64_t s = 0;
  for (auto& [k, v] : m) s += v;
  return s;
}

Diagnostic located(Diagnostic d, const std::string& path) {
  if (d.location.rfind(path, 0) != 0) d.location = path + ": " + d.location;
  return d;
}

} // namespace

Expected<GradientProgram> buildGradientProgram(const GradientRequest& rq) {
  GradientProgram p;
  // The model-specific part runs as the pipeline's edit hook, after loading and before lowering.
  auto differentiate = [&](io::LoadedModel& model) -> Expected<void> {
    Sdfg& sdfg = *model.sdfg;
    p.dataInputs = sdfg.inputs;
    // Checked here as well as by autodiff, so that the message names the command-line option.
    const DataDescriptor* of = sdfg.findData(rq.of);
    if (!of || std::find(sdfg.outputs.begin(), sdfg.outputs.end(), rq.of) == sdfg.outputs.end()) {
      std::string outs;
      for (auto& o : sdfg.outputs) outs += (outs.empty() ? "" : ", ") + o;
      return fail(rq.model + ": " + rq.of, "'" + rq.of + "' is not an output of the model", "outputs: " + outs);
    }
    if (rq.trainWeights) {
      edit::Editor ed(sdfg);
      auto w = autodiff::makeTrainable(ed, rq.wrt);
      if (!w) return fail(located(w.error(), rq.model));
      p.weights = std::move(*w);
    }
    autodiff::Request req;
    req.of = {rq.of};
    req.wrt = rq.wrt;
    for (auto& r : rq.recompute) req.keep[r] = autodiff::Keep::Recompute;
    if (rq.memoryReport) {
      auto with = autodiff::intermediatesNeeded(sdfg, req);
      if (!with) return fail(located(with.error(), rq.model));
      p.storedBytes = sum(*with);
      for (auto& [k, v] : *with) p.stored.push_back(k);
      autodiff::Request all = req;
      all.keep.clear();
      auto without = autodiff::intermediatesNeeded(sdfg, all);
      if (!without) return fail(located(without.error(), rq.model));
      p.storedBytesAllStored = sum(*without);
    }
    {
      edit::History history(sdfg);
      const size_t before = sdfg.outputs.size();
      if (auto r = history.execute(std::make_unique<autodiff::Differentiate>(req)); !r) return fail(located(r.error(), rq.model));
      // The gradients are appended to the outputs in `wrt` order (Autodiff.h).
      if (sdfg.outputs.size() != before + rq.wrt.size())
        return fail(rq.model, "differentiation added " + std::to_string(sdfg.outputs.size() - before) + " outputs for " +
                                  std::to_string(rq.wrt.size()) + " names", "this is a bug in autodiff; please report it");
      p.gradients.assign(sdfg.outputs.begin() + long(before), sdfg.outputs.end());
    }
    if (rq.optimizer) {
      edit::Editor ed(sdfg);
      auto o = autodiff::appendOptimizerStep(ed, p.weights.names, p.gradients, *rq.optimizer);
      if (!o) return fail(located(o.error(), rq.model));
      p.optimizer = std::move(*o);
    }
    return {};
  };
  pipeline::Options opts;
  opts.fixedDims = rq.fixedDims;
  opts.threads = rq.threads;
  opts.target = rq.target;
  opts.edit = differentiate;
  auto built = pipeline::build(rq.model, {}, opts);
  if (!built) {
    Diagnostic d = built.error();
    if (built.failure().stage == pipeline::Stage::Generate) {
      d.message = "the differentiated model does not validate: " + d.message;
      d.hint = "this is a bug in autodiff or an expansion; please report it";
    }
    return fail(d);
  }
  p.model = std::move(built->prepared.model);
  p.executor = std::move(built->executor);
  p.compileSeconds = built->buildSeconds;
  return p;
}

} // namespace dcw::cli
