// Pipeline: model file -> prepared IR -> sources -> program; see Pipeline.h.
#include "pipeline/Pipeline.h"

#include "codegen/cpu/CompilerMessage.h"
#include "codegen/cuda/CudaTarget.h"
#include "core/edit/Editor.h"
#include "core/edit/History.h"
#include "core/expansions/ExpandPass.h"
#include "core/expansions/Implementations.h"
#include "core/ir/LibraryNode.h"
#include "core/onnx/InterfaceValue.h"
#include "core/ir/Validate.h"
#include "core/support/Sha256.h"
#include "transforms/FoldConstants.h"
#include "transforms/Script.h"
#include "transforms/autodiff/GradientOp.h"
#include "transforms/catalogue/FpgaTransform.h"
#include "transforms/catalogue/GpuTransform.h"

#include <chrono>

namespace dcw::pipeline {

const char* stageName(Stage s) {
  switch (s) {
  case Stage::Load: return "load";
  case Stage::Steps: return "steps";
  case Stage::Lower: return "lower";
  case Stage::Generate: return "generate";
  case Stage::Build: return "build";
  }
  return "?";
}

namespace {

Failure failure(Stage stage, Diagnostic d, const std::string& path = {}) {
  if (!path.empty() && d.location.rfind(path, 0) != 0) d.location = path + (d.location.empty() ? "" : ": " + d.location);
  return Failure{stage, std::move(d), {}};
}

// The steps as one script: the file's, then the lines (each located as origin:N).
Expected<transforms::Script> collectSteps(const Steps& steps, std::string* sha256) {
  transforms::Script all;
  if (!steps.scriptPath.empty()) {
    auto s = transforms::readScript(steps.scriptPath);
    if (!s) return s.takeError();
    *sha256 = s->sha256;
    all = std::move(*s);
  }
  int n = 0;
  for (auto& line : steps.lines) {
    ++n;
    auto cmd = transforms::parseCommand(line, steps.linesOrigin + ":" + std::to_string(n));
    if (!cmd) return cmd.takeError();
    all.steps.push_back(transforms::ScriptStep{n, std::move(*cmd)});
  }
  return all;
}

// Applies the steps through a history (they stay applied).
Expected<void> applySteps(io::LoadedModel& m, const Steps& steps, size_t* applied) {
  std::string sha;
  auto script = collectSteps(steps, &sha);
  if (!script) return script.takeError();
  edit::History h(*m.sdfg);
  const size_t n = script->steps.size();
  auto r = transforms::replay(*script, h, steps.scriptPath.empty() ? steps.linesOrigin : steps.scriptPath);
  if (r && applied) *applied = n;
  return r;
}

} // namespace

// Loads the model and applies the steps (falling back to the unspecialized model; see Pipeline.h).
Result<io::LoadedModel> loadWithSteps(const std::string& path, const Steps& steps, const Options& options, size_t* applied) {
  io::LoadOptions load;
  load.fixedDims = options.fixedDims;
  load.interface = options.interface;
  load.fixedValues = options.fixedValues;
  auto m = io::loadModel(path, load);
  if (!m) return failure(Stage::Load, m.error());
  if (steps.empty()) return std::move(*m);
  Diagnostics notes;
  if (!steps.scriptPath.empty()) {
    auto parsed = transforms::readScript(steps.scriptPath);
    if (!parsed) return failure(Stage::Steps, parsed.error());
    if (!parsed->sha256.empty())
      if (auto sha = sha256File(path); sha && *sha != parsed->sha256)
        notes.warning(steps.scriptPath,
                      "was recorded on a different file (sha256 " + parsed->sha256.substr(0, 12) + "...) than " + path + " (sha256 " +
                          sha->substr(0, 12) + "...)",
                      "replaying it anyway; a step that does not fit fails at its line");
  }
  auto r = applySteps(*m, steps, applied);
  if (!r && (!options.fixedDims.empty() || !options.fixedValues.empty()) && !options.specializedStepsMustFit) {
    // Steps are recorded on the model as imported, with its dims (`dcw optimize --dim`) or without
    // them; specialization changes what fits. Without the dims: the model as loaded for the fixed
    // values (inputs that decide its structure), then as imported. The result is specialized to the
    // inputs after the steps, as a saved .dcw.json is. If the steps fit none, the error of the model
    // as imported is the one to report.
    std::vector<io::LoadOptions> tries(1);
    if (!options.fixedValues.empty() && !options.fixedDims.empty()) {
      tries.front().fixedValues = options.fixedValues;
      tries.front().interface = options.interface;
      tries.emplace_back();
    }
    for (size_t k = 0; k < tries.size() && !r; ++k) {
      auto plain = io::loadModel(path, tries[k]);
      if (!plain) {
        if (k + 1 == tries.size()) return failure(Stage::Load, plain.error());
        continue;
      }
      auto again = applySteps(*plain, steps, applied);
      if (!again) {
        if (k + 1 == tries.size()) return failure(Stage::Steps, again.error());
        continue;
      }
      io::specializeModel(*plain->sdfg, options.fixedDims, options.fixedValues);
      m = std::move(plain);
      r = Expected<void>();
    }
  }
  if (!r) return failure(Stage::Steps, r.error());
  m->warnings.append(notes);
  return std::move(*m);
}

Result<Prepared> prepare(const std::string& path, const Steps& steps, const Options& options) {
  auto target = codegen::requireTarget(options.target);
  if (!target) return failure(Stage::Load, target.error());
  auto loaded = loadWithSteps(path, steps, options);
  if (!loaded) return loaded.failure();
  Prepared p;
  p.model = std::move(*loaded);
  p.target = *target;
  ir::Sdfg& sdfg = *p.model.sdfg;
  if (options.edit)
    if (auto r = options.edit(p.model); !r) return failure(Stage::Steps, r.error(), path);
  transforms::foldConstants(sdfg);
  auto stages = codegen::peelStringOps(sdfg);
  if (!stages) return failure(Stage::Lower, stages.error(), path);
  if (!stages->empty()) p.stringStages = std::make_shared<const codegen::StringStages>(std::move(*stages));
  {
    edit::Editor editor(sdfg); // a pass: its journal is not kept
    if (auto g = autodiff::lowerGradientOps(editor); !g) return failure(Stage::Lower, g.error(), path);
  }
  // Sequence or optional ops the import could not resolve (StaticSequences.h): refused with the node at
  // fault and why, rather than as the first such op without an implementation.
  if (auto why = sdfg.metadata.find(onnx::kUnresolvedStructureMetadata); why != sdfg.metadata.end()) {
    bool left = false;
    sdfg.forEachElement([&](const ir::Element& e) {
      auto* l = dynamic_cast<const ir::LibraryNode*>(&e);
      left = left || (l && expansions::isStructureOp(*l));
    });
    const std::string& text = why->second;
    const size_t nl = text.find('\n');
    if (left)
      return failure(Stage::Lower,
                     Diagnostic::error(path + ": " + text.substr(0, nl), nl == std::string::npos ? text : text.substr(nl + 1),
                                       "run with the model's inputs (dcw run --inputs DIR; SequenceProto/OptionalProto files "
                                       "for sequence and optional inputs), or make positions and conditions constants"),
                     path);
  }
  // An FPGA or GPU program runs its device states as kernels: a model that has none (no FpgaTransform or
  // GpuTransform among the steps) moves whole, and the warnings say so.
  const std::string hardware((*target)->implementationTarget());
  if (hardware == "fpga" || hardware == "cuda") {
    const bool fpga = hardware == "fpga";
    edit::Editor editor(sdfg); // a pass: its journal is not kept
    auto moved = fpga ? transforms::moveModelToFpga(editor) : transforms::moveModelToGpu(editor);
    if (!moved) return failure(Stage::Lower, moved.error(), path);
    const std::string transformation = fpga ? "FpgaTransform" : "GpuTransform";
    if (!moved->empty())
      p.model.warnings.warning(path, std::string("no state of the model was on the ") + (fpga ? "FPGA" : "GPU") + ", so " + transformation +
                                         " moved the whole model (from " + *moved + ")",
                               "to choose, put `" + transformation + " state=PATH whole_sdfg=false` lines in a script");
  }
  expansions::ExpandOptions eo;
  eo.target = hardware;
  eo.prefer = options.prefer;
  // On the GPU, cuBLAS takes the matrix products and cuDNN the convolutions they can (the pure maps the
  // rest) unless the user said; cuDNN only where its header is found (cuda-sim: its stand-in).
  if (hardware == "cuda" && eo.prefer.empty()) {
    eo.prefer = codegen::gpuImplementations(options.target);
  }
  auto expanded = expansions::expandAll(sdfg, eo);
  if (!expanded) return failure(Stage::Lower, expanded.error(), path);
  if (hardware == "fpga" || hardware == "cuda") {
    edit::Editor editor(sdfg); // a pass: its journal is not kept
    if (hardware == "fpga") transforms::scheduleDeviceMaps(editor);
    else transforms::scheduleGpuMaps(editor);
  }
  p.expandedNodes = expanded->expanded;
  p.implementations = expanded->byImplementation;
  p.model.validation = ir::validate(sdfg);
  if (const Diagnostic* e = p.model.validation.firstError()) {
    Diagnostic d = *e;
    d.message = "the expanded model does not validate: " + d.message;
    d.hint = "this is a bug in an expansion, a transformation or autodiff; please report it";
    return failure(Stage::Generate, d, path);
  }
  Diagnostics owned = codegen::checkTarget(sdfg, **target);
  if (const Diagnostic* e = owned.firstError()) return failure(Stage::Lower, *e, path);
  return p;
}

Result<codegen::GeneratedCode> generate(const Prepared& prepared, const Options& options) {
  auto code = prepared.target->generate(*prepared.model.sdfg, options.generate);
  if (!code) return failure(Stage::Generate, code.error(), prepared.model.path);
  return std::move(*code);
}

Result<Program> build(Prepared prepared, const Options& options) {
  auto t0 = std::chrono::steady_clock::now();
  auto code = generate(prepared, options);
  if (!code) return code.failure();
  codegen::RunOptions run;
  run.target = options.target;
  run.threads = options.threads;
  run.generate = options.generate;
  run.compile = options.compile;
  run.isolated = options.isolated;
  run.limits = options.limits;
  run.cancel = options.cancel;
  run.stringStages = prepared.stringStages;
  const std::string path = prepared.model.path;
  auto lib = prepared.target->build(*code, options.compile);
  if (!lib) {
    Failure f = failure(Stage::Build, lib.error(), path);
    f.element = codegen::elementOfCompilerMessage(lib.error().message, code->sourceMap);
    if (!f.element.empty()) f.diagnostic.location = f.element;
    return f;
  }
  Program program;
  program.prepared = std::move(prepared);
  auto ex = codegen::Executor::load(*program.prepared.model.sdfg, std::move(*code), std::move(*lib), run);
  if (!ex) return failure(Stage::Build, ex.error(), path);
  program.executor = std::move(*ex);
  program.buildSeconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return program;
}

Result<Program> build(const std::string& path, const Steps& steps, const Options& options) {
  auto p = prepare(path, steps, options);
  if (!p) return p.failure();
  return build(std::move(*p), options);
}

} // namespace dcw::pipeline
