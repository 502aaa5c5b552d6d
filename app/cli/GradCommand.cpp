// `dcw grad MODEL --of OUTPUT --wrt NAME... [--inputs DIR | --random SEED] --outputs DIR
//   [--recompute NAME...] [--report-memory] [--threads N]`:
// differentiates the (summed) output with respect to each name (inputs or initializers) by reverse-mode
// autodiff over the IR (transforms/autodiff), compiles the forward+backward program and runs it once.
// Writes grad_N.pb (N in --wrt order) and output_N.pb (the model's own outputs) as ONNX TensorProto
// files; with --random, also the inputs used (input_N.pb), so the run can be repeated with --inputs.
#include "app/cli/Cli.h"
#include "app/cli/GradientProgram.h"
#include "pipeline/Specialize.h"

#include "codegen/run/RandomInputs.h"
#include "core/onnx/TensorFile.h"

#include <filesystem>
#include <iostream>
#include <memory>

namespace dcw::cli {

namespace fs = std::filesystem;
using namespace dcw::ir;

std::function<int()> setupGrad(CLI::App& sub) {
  struct Opts {
    std::string model, of, inputs, outputs;
    std::vector<std::string> wrt, recompute;
    uint64_t seed = 0;
    int threads = 0;
    std::string target = "cpu";
    bool reportMemory = false;
  };
  auto o = std::make_shared<Opts>();
  sub.footer("Writes grad_N.pb: the gradient of the sum of OUTPUT's elements with respect to the N-th --wrt name,\n"
             "output_N.pb: the model's outputs (forward values), and with --random the inputs used (input_N.pb).");
  sub.add_option("MODEL", o->model, "Model file (.onnx or .dcw.json)")->required();
  sub.add_option("--of", o->of, "The output to differentiate (its elements are summed)")->required();
  sub.add_option("--wrt", o->wrt, "Inputs or initializers (weights) to differentiate with respect to")->required();
  auto* in = sub.add_option("--inputs", o->inputs, "Folder with input_N.pb files (ONNX TensorProto)");
  auto* rnd = sub.add_option("--random", o->seed, "Use random inputs from this seed");
  in->excludes(rnd);
  sub.add_option("--outputs", o->outputs, "Folder to write grad_N.pb and output_N.pb")->required();
  sub.add_option("--recompute", o->recompute, "Intermediates to recompute in the backward pass instead of storing them");
  sub.add_flag("--report-memory", o->reportMemory, "Print the bytes of forward intermediates the backward pass keeps alive");
  sub.add_option("--threads", o->threads, "OpenMP threads (default: all cores)");
  addTargetOption(sub, o->target);
  return [o, rnd]() -> int {
    const bool random = rnd->count() > 0;
    if (!random && o->inputs.empty())
      return reportError(Diagnostic::error("dcw grad", "no inputs given", "use --inputs DIR or --random SEED"));
    GradientRequest rq;
    rq.model = o->model;
    rq.of = o->of;
    rq.wrt = o->wrt;
    rq.recompute = o->recompute;
    rq.threads = o->threads;
    rq.target = o->target;
    rq.memoryReport = o->reportMemory;
    std::vector<Tensor> inputs;
    if (!random) {
      auto t = readTensorFolder(o->inputs);
      if (!t) return reportError(t.error());
      inputs = std::move(*t);
      auto fixed = pipeline::dimsFromInputs(o->model, inputs);
      if (!fixed) return reportError(fixed.error());
      rq.fixedDims = *fixed;
    } else {
      auto fixed = pipeline::dimsFromValues(o->model, {});
      if (!fixed) return reportError(fixed.error());
      rq.fixedDims = *fixed;
    }
    auto p = buildGradientProgram(rq);
    if (!p) return reportError(p.error());
    reportWarnings(p->model.warnings);
    if (random) {
      auto r = codegen::randomInputs(p->executor->code().signature, o->seed);
      if (!r) return reportError(r.error());
      inputs = std::move(*r);
    }
    auto out = p->executor->run(inputs);
    if (!out) return reportError(out.error());

    std::error_code ec;
    fs::create_directories(o->outputs, ec);
    if (ec) return reportError(Diagnostic::error(o->outputs, "cannot create the folder: " + ec.message()));
    auto write = [&](const std::string& file, const Tensor& t, const std::string& name) -> bool {
      auto r = onnx::writeTensorFile((fs::path(o->outputs) / file).string(), t, name);
      if (!r) reportError(r.error());
      return bool(r);
    };
    const auto& sdfg = *p->model.sdfg;
    if (random)
      for (size_t i = 0; i < inputs.size(); ++i)
        if (!write("input_" + std::to_string(i) + ".pb", inputs[i], sdfg.inputs[i])) return kExitBadInput;
    size_t forward = 0;
    for (size_t i = 0; i < out->size(); ++i) {
      const std::string& name = sdfg.outputs[i];
      if (std::find(p->gradients.begin(), p->gradients.end(), name) != p->gradients.end()) continue;
      if (!write("output_" + std::to_string(forward++) + ".pb", (*out)[i], name)) return kExitBadInput;
    }
    for (size_t k = 0; k < p->gradients.size(); ++k) {
      const Tensor& g = (*out)[size_t(p->outputIndex(p->gradients[k]))];
      if (!write("grad_" + std::to_string(k) + ".pb", g, p->gradients[k])) return kExitBadInput;
      std::cout << "grad_" << k << ".pb: d " << o->of << " / d " << o->wrt[k] << ": " << dtypeName(g.dtype) << "[";
      for (size_t j = 0; j < g.dims.size(); ++j) std::cout << (j ? ", " : "") << g.dims[j];
      std::cout << "]\n";
    }
    if (o->reportMemory) {
      std::cout << "backward keeps alive: " << p->storedBytes << " bytes in " << p->stored.size() << " intermediates";
      if (!o->recompute.empty())
        std::cout << " (storing all: " << p->storedBytesAllStored << " bytes; recompute saves "
                  << (p->storedBytesAllStored - p->storedBytes) << ")";
      std::cout << "\n";
      for (auto& s : p->stored) std::cout << "  stored " << s << "\n";
    }
    return kExitOk;
  };
}

} // namespace dcw::cli
