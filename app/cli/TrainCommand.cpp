// `dcw train MODEL --loss OUTPUT --optimizer sgd|adam --lr LR --steps N --data DIR [--weights NAME...]
//   [--freeze NAME...] [--save DIR] [--threads N]`:
// trains the model's floating-point initializers (the weights; BatchNormalization statistics and
// --freeze names excepted, or exactly --weights) to lower a scalar loss output that the model computes
// from its data inputs. One program is generated per training step — forward, backward (autodiff) and
// the optimizer's update (autodiff/OptimizerStep.h) — and compiled once; the host loop only feeds the
// updated weights (and Adam's state) back in, and prints `step K loss L` per step (K from 1; L is the
// loss before that step's update, as PyTorch's loop reports it).
// --data DIR holds input_N.pb (one batch, reused at every step) or folders step_0/, step_1/, ...
// (one batch each, cycled). With --save, the trained weights are written as weight_N.pb.
#include "app/cli/Cli.h"
#include "app/cli/GradientProgram.h"
#include "pipeline/Specialize.h"

#include "core/onnx/TensorFile.h"

#include <chrono>
#include <cstring>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>

namespace dcw::cli {

namespace fs = std::filesystem;
using namespace dcw::ir;

namespace {

// The batches of --data: step_K/ folders in K order, else the folder itself.
Expected<std::vector<std::vector<Tensor>>> readBatches(const std::string& dir) {
  if (!fs::is_directory(dir)) return fail(dir, "is not a folder", "give --data a folder with input_N.pb or step_K/ folders");
  std::vector<std::vector<Tensor>> out;
  for (size_t k = 0;; ++k) {
    fs::path sub = fs::path(dir) / ("step_" + std::to_string(k));
    if (!fs::is_directory(sub)) break;
    auto t = readTensorFolder(sub.string());
    if (!t) return t.takeError();
    out.push_back(std::move(*t));
  }
  if (out.empty()) {
    auto t = readTensorFolder(dir);
    if (!t) return fail(dir, "holds neither input_0.pb nor step_0/", "write one batch as input_N.pb, or one per step as step_K/input_N.pb");
    out.push_back(std::move(*t));
  }
  return out;
}

Tensor zerosLike(const Tensor& t) {
  Tensor z = t;
  z.bytes = std::make_shared<const std::string>(t.byteSize(), '\0');
  return z;
}

Tensor scalarFloat(float v) {
  Tensor t;
  t.dtype = DType::Float32;
  std::string b(sizeof v, '\0');
  std::memcpy(b.data(), &v, sizeof v);
  t.bytes = std::make_shared<const std::string>(std::move(b));
  return t;
}

double scalarValue(const Tensor& t) {
  if (t.dtype == DType::Float32 && t.byteSize() >= 4) {
    float f;
    std::memcpy(&f, t.bytes->data(), 4);
    return f;
  }
  if (t.dtype == DType::Float64 && t.byteSize() >= 8) {
    double d;
    std::memcpy(&d, t.bytes->data(), 8);
    return d;
  }
  return 0;
}

} // namespace

std::function<int()> setupTrain(CLI::App& sub) {
  struct Opts {
    std::string model, loss, optimizer = "sgd", data, save;
    double lr = 0.01;
    int steps = 1, threads = 0;
    std::string target = "cpu";
    std::vector<std::string> weights, freeze;
  };
  auto o = std::make_shared<Opts>();
  sub.add_option("MODEL", o->model, "Model file (.onnx or .dcw.json) that computes a scalar loss")->required();
  sub.add_option("--loss", o->loss, "The scalar loss output")->required();
  sub.add_option("--optimizer", o->optimizer, "sgd or adam (PyTorch's defaults: betas 0.9, 0.999, eps 1e-8)")
      ->check(CLI::IsMember({"sgd", "adam"}));
  sub.add_option("--lr", o->lr, "Learning rate")->check(CLI::PositiveNumber);
  sub.add_option("--steps", o->steps, "Number of steps")->check(CLI::PositiveNumber);
  sub.add_option("--data", o->data, "Folder with input_N.pb (one batch) or step_K/input_N.pb (cycled)")->required();
  sub.add_option("--weights", o->weights, "Train exactly these initializers (default: every float initializer)");
  sub.add_option("--freeze", o->freeze, "Initializers not to train");
  sub.add_option("--save", o->save, "Folder to write the trained weights (weight_N.pb, in training order)");
  sub.add_option("--threads", o->threads, "OpenMP threads (default: all cores)");
  addTargetOption(sub, o->target);
  return [o]() -> int {
    auto batches = readBatches(o->data);
    if (!batches) return reportError(batches.error());
    auto fixed = pipeline::dimsFromInputs(o->model, batches->front());
    if (!fixed) return reportError(fixed.error());

    GradientRequest rq;
    rq.model = o->model;
    rq.of = o->loss;
    rq.fixedDims = *fixed;
    rq.threads = o->threads;
    rq.target = o->target;
    rq.trainWeights = true;
    autodiff::OptimizerConfig cfg;
    cfg.kind = o->optimizer == "adam" ? autodiff::Optimizer::Adam : autodiff::Optimizer::Sgd;
    cfg.lr = o->lr;
    rq.optimizer = cfg;
    if (!o->weights.empty()) {
      rq.wrt = o->weights;
    } else {
      auto m = io::loadModel(o->model);
      if (!m) return reportError(m.error());
      rq.wrt = autodiff::floatConstants(*m->sdfg, o->freeze);
      if (rq.wrt.empty())
        return reportError(Diagnostic::error(o->model, "has no floating-point initializers to train", "name weights with --weights"));
    }
    auto p = buildGradientProgram(rq);
    if (!p) return reportError(p.error());
    reportWarnings(p->model.warnings);
    const auto& sdfg = *p->model.sdfg;
    const int lossIndex = p->outputIndex(o->loss);
    if (const DataDescriptor* d = sdfg.findData(o->loss); !d || d->totalSize().constantValue() != std::optional<int64_t>(1))
      return reportError(Diagnostic::error(o->model + ": " + o->loss, "the loss output is not a scalar (" + (d ? d->typeString() : "?") + ")",
                                           "train on a scalar loss (e.g. a mean over the batch)"));
    for (size_t b = 0; b < batches->size(); ++b)
      if ((*batches)[b].size() != p->dataInputs.size())
        return reportError(Diagnostic::error(o->data, "batch " + std::to_string(b) + " has " + std::to_string((*batches)[b].size()) +
                                                          " tensors but the model has " + std::to_string(p->dataInputs.size()) + " inputs",
                                             "write one input_N.pb per model input"));

    // Program arguments: data inputs, weights, (Adam: m and v per weight, the step count).
    std::vector<Tensor> weights = p->weights.initial, state;
    if (cfg.kind == autodiff::Optimizer::Adam)
      for (auto& w : weights) state.insert(state.end(), {zerosLike(w), zerosLike(w)});
    std::vector<int> nextIdx, stateIdx;
    for (auto& n : p->optimizer.next) nextIdx.push_back(p->outputIndex(n));
    for (auto& n : p->optimizer.stateOut) stateIdx.push_back(p->outputIndex(n));
    for (auto* list : {&nextIdx, &stateIdx})
      for (int i : *list)
        if (i < 0) return reportError(Diagnostic::error(o->model, "the training program lost an output of the optimizer step",
                                                        "this is a bug in dcw train; please report it"));

    double runSeconds = 0;
    std::cout << std::setprecision(8);
    for (int step = 0; step < o->steps; ++step) {
      std::vector<Tensor> args = (*batches)[size_t(step) % batches->size()];
      args.insert(args.end(), weights.begin(), weights.end());
      if (cfg.kind == autodiff::Optimizer::Adam) {
        args.insert(args.end(), state.begin(), state.end());
        args.push_back(scalarFloat(float(step + 1)));
      }
      auto t0 = std::chrono::steady_clock::now();
      auto out = p->executor->run(args);
      runSeconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!out) return reportError(out.error());
      for (size_t i = 0; i < weights.size(); ++i) weights[i] = std::move((*out)[size_t(nextIdx[i])]);
      for (size_t i = 0; i < state.size(); ++i) state[i] = std::move((*out)[size_t(stateIdx[i])]);
      std::cout << "step " << (step + 1) << " loss " << scalarValue((*out)[size_t(lossIndex)]) << "\n";
    }
    std::cout << "trained " << weights.size() << " weights; compile " << std::fixed << std::setprecision(2) << p->compileSeconds
              << " s; " << std::setprecision(3) << runSeconds * 1e3 / o->steps << " ms per step\n";
    if (!o->save.empty()) {
      std::error_code ec;
      fs::create_directories(o->save, ec);
      for (size_t i = 0; i < weights.size(); ++i)
        if (auto r = onnx::writeTensorFile((fs::path(o->save) / ("weight_" + std::to_string(i) + ".pb")).string(), weights[i],
                                           p->weights.names[i]);
            !r)
          return reportError(r.error());
    }
    return kExitOk;
  };
}

} // namespace dcw::cli
