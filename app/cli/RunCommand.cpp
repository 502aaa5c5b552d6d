// `dcw run MODEL [--inputs DIR | --random SEED] [--outputs DIR] [--target cpu] [--threads N] [--script S]
//  [--time-limit S] [--memory-limit MiB] [--in-process]`: the program runs in a worker process by default
// (a crash, hang or memory blow-up in generated code is reported, naming the element, and dcw exits 2);
// builds the model through the pipeline (pipeline/Pipeline.h) for the target and runs it on tensors in ONNX's test-case
// format (input_N.pb / output_N.pb). With --script, the script is replayed on the model first.
#include "app/cli/Cli.h"

#include "pipeline/Pipeline.h"
#include "pipeline/Specialize.h"
#include "codegen/run/RandomInputs.h"
#include "core/onnx/TensorFile.h"

#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <random>

namespace dcw::cli {

namespace fs = std::filesystem;
using namespace dcw::ir;


std::function<int()> setupRun(CLI::App& sub) {
  struct Opts {
    std::string model, inputs, outputs, target = "cpu", script;
    uint64_t seed = 0;
    bool random = false;
    int threads = 0;
    std::vector<std::string> dims, prefer;
    IsolationOptions isolation;
  };
  auto o = std::make_shared<Opts>();
  sub.add_option("MODEL", o->model, "Model file (.onnx or .dcw.json)")->required();
  auto* in = sub.add_option("--inputs", o->inputs, "Folder with input_N.pb files (ONNX TensorProto)");
  auto* rnd = sub.add_option("--random", o->seed, "Use random inputs from this seed (written to --outputs too)");
  in->excludes(rnd);
  sub.add_option("--outputs", o->outputs, "Folder to write output_N.pb (and, with --random, input_N.pb)");
  addTargetOption(sub, o->target);
  addPreferOption(sub, o->prefer);
  sub.add_option("--threads", o->threads, "OpenMP threads (default: all cores)");
  sub.add_option("--dim", o->dims, "Value of a symbolic dimension for --random, NAME=VALUE (default 1)");
  sub.add_option("--script", o->script, "Replay this DCW script on the model before compiling");
  addIsolationOptions(sub, o->isolation, "");
  return [o, rnd]() -> int {
    o->random = rnd->count() > 0;
    if (!o->random && o->inputs.empty())
      return reportError(Diagnostic::error("dcw run", "no inputs given", "use --inputs DIR or --random SEED"));
    pipeline::Options opts;
    opts.target = o->target;
    opts.prefer = o->prefer;
    opts.threads = o->threads;
    if (auto r = applyIsolationOptions(o->isolation, opts); !r) return reportError(r.error());
    // The model is specialized to the input shapes (dynamic dims become constants) before compiling.
    std::vector<Tensor> inputs;
    std::map<std::string, int64_t> dims;
    if (o->random) {
      auto parsed = parseDimOptions(o->dims);
      if (!parsed) return reportError(parsed.error());
      dims = *parsed;
      auto fixed = fixedDimsFromOptions(o->model, o->dims);
      if (!fixed) return reportError(fixed.error());
      opts.fixedDims = *fixed;
    } else {
      for (size_t i = 0;; ++i) {
        std::string f = (fs::path(o->inputs) / ("input_" + std::to_string(i) + ".pb")).string();
        if (!fs::exists(f)) {
          if (i == 0) return reportError(Diagnostic::error(o->inputs, "holds no input_0.pb", "write the inputs as input_N.pb TensorProto files"));
          break;
        }
        auto t = onnx::readTensorFile(f);
        if (!t) return reportError(t.error());
        inputs.push_back(std::move(t->tensor));
      }
      auto fixed = pipeline::dimsFromInputs(o->model, inputs);
      if (!fixed) return reportError(fixed.error());
      opts.fixedDims = *fixed;
    }
    pipeline::Steps steps;
    steps.scriptPath = o->script;
    auto built = pipeline::build(o->model, steps, opts);
    if (!built) return reportError(built.error());
    auto& p = *built;
    const io::LoadedModel& model = p.prepared.model;
    if (!o->script.empty()) reportScriptWarnings(model.warnings, o->script);
    const auto& sig = p.executor->code().signature;
    if (o->random) {
      auto r = codegen::randomInputs(sig, o->seed, dims);
      if (!r) return reportError(r.error());
      inputs = std::move(*r);
    }
    auto out = p.executor->run(inputs);
    if (!out) {
      Diagnostic d = out.error();
      d.location = o->model + ": " + d.location; // name the model file too
      return reportError(d);
    }
    if (!o->outputs.empty()) {
      std::error_code ec;
      fs::create_directories(o->outputs, ec);
      if (o->random)
        for (size_t i = 0; i < inputs.size(); ++i)
          if (auto r = onnx::writeTensorFile((fs::path(o->outputs) / ("input_" + std::to_string(i) + ".pb")).string(), inputs[i],
                                             model.sdfg->inputs[i]);
              !r)
            return reportError(r.error());
      for (size_t i = 0; i < out->size(); ++i)
        if (auto r = onnx::writeTensorFile((fs::path(o->outputs) / ("output_" + std::to_string(i) + ".pb")).string(), (*out)[i],
                                           model.sdfg->outputs[i]);
            !r)
          return reportError(r.error());
    }
    for (size_t i = 0; i < out->size(); ++i) {
      const Tensor& t = (*out)[i];
      std::cout << model.sdfg->outputs[i] << ": " << dtypeName(t.dtype) << "[";
      for (size_t k = 0; k < t.dims.size(); ++k) std::cout << (k ? ", " : "") << t.dims[k];
      std::cout << "]\n";
    }
    return kExitOk;
  };
}

} // namespace dcw::cli
