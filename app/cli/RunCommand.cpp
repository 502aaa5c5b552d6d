// `dcw run MODEL [--inputs DIR | --random SEED] [--outputs DIR] [--target cpu] [--threads N] [--script S]
//  [--time-limit S] [--memory-limit MiB] [--in-process]`: the program runs in a worker process by default
// (a crash, hang or memory blow-up in generated code is reported, naming the element, and dcw exits 2);
// builds the model through the pipeline (pipeline/Pipeline.h) for the target and runs it on values in ONNX's test-case
// format (input_N.pb / output_N.pb: tensors, and sequences or optionals where the model takes or returns them). With --script, the script is replayed on the model first.
#include "app/cli/Cli.h"

#include "pipeline/ModelValues.h"
#include "pipeline/Pipeline.h"
#include "pipeline/Specialize.h"
#include "codegen/run/RandomInputs.h"

#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <random>

namespace dcw::cli {

namespace fs = std::filesystem;
using namespace dcw::ir;


namespace {

// "float32[2, 3]" (InterfaceValue::describe); a sequence or optional lists what it holds.
std::string describe(const onnx::InterfaceValue& v) {
  if (v.kind == onnx::InterfaceValue::Kind::Tensor) return v.describe();
  if (v.kind == onnx::InterfaceValue::Kind::Optional && v.elements.empty()) return "optional, empty";
  std::string s = v.kind == onnx::InterfaceValue::Kind::Sequence ? "sequence of " + std::to_string(v.elements.size()) + " (" : "optional (";
  for (size_t i = 0; i < v.elements.size(); ++i) s += (i ? ", " : "") + describe(v.elements[i]);
  return s + ")";
}

} // namespace

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
  sub.add_option("--threads", o->threads, "OpenMP threads (default: the cores other processes leave free, measured as the runs go)");
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
    // Inputs as the model declares them: tensors, and sequences or optionals (pipeline/ModelValues.h).
    std::vector<onnx::InterfaceValue> inputs;
    std::map<std::string, int64_t> dims;
    if (o->random) {
      if (auto declared = pipeline::declaredValues(o->model); declared && declared->structured())
        for (auto& [name, kind] : declared->inputs)
          if (kind != onnx::InterfaceValue::Kind::Tensor)
            return reportError(Diagnostic::error(o->model + ": input '" + name + "'",
                                                 std::string("is ") + (kind == onnx::InterfaceValue::Kind::Sequence ? "a sequence" : "an optional") +
                                                     ": random inputs cannot choose how many tensors it holds",
                                                 "give the inputs with --inputs DIR (input_N.pb: SequenceProto/OptionalProto files)"));
      auto parsed = specializeFromDimOptions(o->model, o->dims, opts);
      if (!parsed) return reportError(parsed.error());
      dims = *parsed;
    } else {
      auto declared = pipeline::declaredValues(o->model);
      if (!declared) return reportError(declared.error());
      auto values = pipeline::readValues(o->inputs, "input", declared->inputs);
      if (!values) return reportError(values.error());
      if (values->empty())
        return reportError(Diagnostic::error(o->inputs, "holds no input_0.pb", "write the inputs as input_N.pb TensorProto files"));
      inputs = std::move(*values);
      if (declared->structured()) {
        pipeline::bindInterface(opts, *declared, inputs); // the program is built for these sequences and optionals
      } else {
        std::vector<Tensor> tensors;
        for (auto& v : inputs) tensors.push_back(v.tensor);
        // Small integer inputs (a sample rate an If branches on, a window length) by value, then the dims.
        auto values = pipeline::valuesFromInputs(o->model, tensors);
        if (!values) return reportError(values.error());
        opts.fixedValues = *values;
        auto fixed = pipeline::dimsFromInputs(o->model, tensors, opts.fixedValues);
        if (!fixed) return reportError(fixed.error());
        opts.fixedDims = *fixed;
      }
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
      for (size_t i = 0; i < r->size(); ++i) { // an input fixed by --dim holds its value
        auto f = i < model.sdfg->inputs.size() ? opts.fixedValues.find(model.sdfg->inputs[i]) : opts.fixedValues.end();
        inputs.push_back(onnx::InterfaceValue::ofTensor(f != opts.fixedValues.end() ? f->second : std::move((*r)[i])));
      }
    }
    std::vector<std::string> names;
    auto out = pipeline::runValues(p, inputs, &names);
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
          if (auto r = onnx::writeInterfaceValue((fs::path(o->outputs) / ("input_" + std::to_string(i) + ".pb")).string(), inputs[i],
                                            model.sdfg->inputs[i]);
              !r)
            return reportError(r.error());
      for (size_t i = 0; i < out->size(); ++i)
        if (auto r = onnx::writeInterfaceValue((fs::path(o->outputs) / ("output_" + std::to_string(i) + ".pb")).string(), (*out)[i], names[i]);
            !r)
          return reportError(r.error());
    }
    for (size_t i = 0; i < out->size(); ++i) std::cout << names[i] << ": " << describe((*out)[i]) << "\n";
    return kExitOk;
  };
}

} // namespace dcw::cli
