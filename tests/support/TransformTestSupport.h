// Helpers shared by the transformation test suites: real models from Debian's libonnx-testdata (or
// any ONNX file) loaded and expanded, matches found by node label, and the two checks every
// transformation must pass —
//  - structural: the command applies through a History, the model validates, and undo gives back
//    the model byte for byte (JSON) while redo gives the transformed one again;
//  - numerical: the model compiled and run before and after on the same random inputs agrees.
#pragma once

#include "codegen/run/Executor.h"
#include "codegen/run/RandomInputs.h"
#include "core/edit/History.h"
#include "core/expansions/ExpandPass.h"
#include "core/io/ModelFile.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Validate.h"
#include "core/serialize/JsonFormat.h"
#include "transforms/ApplyTransformation.h"
#include "transforms/Matcher.h"
#include "transforms/TransformationRegistry.h"

#include <QtTest>

#include <memory>
#include <string>
#include <vector>

namespace dcw::testsupport {

inline std::string onnxCase(const std::string& name) {
  return "/usr/share/libonnx-testdata/data/node/" + name + "/model.onnx";
}

// Loads a model; with `expand`, every library node is replaced by its pure implementation.
inline std::unique_ptr<ir::Sdfg> loadModel(const std::string& path, bool expand = true) {
  auto m = io::loadModel(path);
  if (!m) {
    qWarning("%s", m.error().str().c_str());
    return nullptr;
  }
  if (expand)
    if (auto r = expansions::expandAll(*m->sdfg); !r) {
      qWarning("%s", r.error().str().c_str());
      return nullptr;
    }
  return std::move(m->sdfg);
}

// Every node of kind T through nested SDFGs (state order).
template <class T>
std::vector<T*> allNodes(const ir::Sdfg& s) {
  std::vector<T*> out;
  for (ir::State* st : s.allStates())
    for (auto& n : st->nodes()) {
      if (auto* t = dynamic_cast<T*>(n.get())) out.push_back(t);
      if (auto* ns = dynamic_cast<ir::NestedSdfgNode*>(n.get())) {
        auto inner = allNodes<T>(ns->sdfg());
        out.insert(out.end(), inner.begin(), inner.end());
      }
    }
  return out;
}

// The applicable matches of one registered transformation anywhere in the model.
inline std::vector<transforms::Match> applicable(const ir::Sdfg& s, const std::string& name) {
  const auto* t = transforms::TransformationRegistry::instance().find(name);
  std::vector<transforms::Match> out;
  if (!t) return out;
  for (auto& m : transforms::enumerateMatches(*t, s))
    if (t->canApply(m, s, nullptr)) out.push_back(m);
  return out;
}

inline std::vector<ir::Tensor> runModel(const ir::Sdfg& s, const std::vector<ir::Tensor>& inputs, const std::string& target = "cpu") {
  codegen::RunOptions o;
  o.target = target;
  auto ex = codegen::Executor::create(s, o);
  if (!ex) {
    qWarning("%s", ex.error().str().c_str());
    return {};
  }
  auto out = (*ex)->run(inputs);
  if (!out) {
    qWarning("%s", out.error().str().c_str());
    return {};
  }
  return std::move(*out);
}

inline std::vector<ir::Tensor> randomInputsFor(const ir::Sdfg& s, uint64_t seed = 7, const std::string& target = "cpu") {
  codegen::RunOptions o;
  o.target = target;
  auto ex = codegen::Executor::create(s, o);
  if (!ex) return {};
  auto in = codegen::randomInputs((*ex)->code().signature, seed);
  return in ? std::move(*in) : std::vector<ir::Tensor>{};
}

// Applies the commands through a History on `model` and checks structure and numbers (see above).
// Returns false (with a QWARN) on any failure; `tolerance` bounds the largest absolute difference.
// `targetAfter`: the target the transformed model runs on (a transformation onto a device changes it);
// `targetBefore`: the one the model runs on before (a model on a device already).
inline bool checkSteps(ir::Sdfg& model, std::vector<std::unique_ptr<edit::Command>> commands, double tolerance = 1e-5,
                       bool numeric = true, const std::string& targetAfter = "cpu", const std::string& targetBefore = "cpu") {
  const std::string before = serialize::toJson(model);
  std::vector<ir::Tensor> inputs, ref;
  if (numeric) {
    inputs = randomInputsFor(model, 7, targetBefore);
    ref = runModel(model, inputs, targetBefore);
    if (ref.empty()) return false;
  }
  edit::History h(model);
  for (auto& c : commands) {
    std::string line = c->scriptLine();
    if (auto r = h.execute(std::move(c)); !r) {
      qWarning("'%s' failed: %s", line.c_str(), r.error().str().c_str());
      return false;
    }
  }
  auto problems = ir::validate(model);
  if (problems.hasErrors()) {
    qWarning("invalid after the steps: %s", problems.firstError()->str().c_str());
    return false;
  }
  const std::string after = serialize::toJson(model);
  if (after == before) {
    qWarning("the steps changed nothing");
    return false;
  }
  if (numeric) {
    auto out = runModel(model, inputs, targetAfter);
    if (out.empty()) return false;
    auto d = codegen::compareOutputs(ref, out);
    if (!d.mismatch.empty() || d.maxAbs > tolerance) {
      qWarning("outputs differ: %s max abs diff %g", d.mismatch.c_str(), d.maxAbs);
      return false;
    }
  }
  h.jumpTo(0);
  if (serialize::toJson(model) != before) {
    qWarning("undo did not restore the model exactly");
    return false;
  }
  h.jumpTo(h.size());
  if (serialize::toJson(model) != after) {
    qWarning("redo did not give the transformed model exactly");
    return false;
  }
  return true;
}

// Applies a given transformation object (not looked up in the registry) at a match: lets a suite test
// a transformation by itself. Same checks as ApplyTransformation: options, canApply, then apply.
class ApplyDirect : public edit::Command {
public:
  ApplyDirect(const transforms::Transformation& t, transforms::Match m) : t_(t), m_(std::move(m)) {}
  std::string scriptLine() const override { return "apply " + m_.str(); }
  std::string title() const override { return m_.transformation; }
  Expected<void> execute(edit::Editor& ed) const override {
    if (auto r = t_.checkOptions(m_, m_.transformation); !r) return r;
    Diagnostics why;
    if (!t_.canApply(m_, ed.root(), &why))
      return fail(m_.transformation, "does not apply: " + (why.firstError() ? why.firstError()->message : std::string("?")));
    return t_.apply(m_, ed);
  }

private:
  const transforms::Transformation& t_;
  transforms::Match m_;
};

// Structural + numerical check of one transformation object at one match.
inline bool checkTransformation(ir::Sdfg& model, const transforms::Transformation& t, transforms::Match m,
                                double tolerance = 1e-5, bool numeric = true, const std::string& targetAfter = "cpu",
                                const std::string& targetBefore = "cpu") {
  std::vector<std::unique_ptr<edit::Command>> v;
  v.push_back(std::make_unique<ApplyDirect>(t, std::move(m)));
  return checkSteps(model, std::move(v), tolerance, numeric, targetAfter, targetBefore);
}

// The structural matches of a transformation object that canApply accepts.
inline std::vector<transforms::Match> applicableMatches(const ir::Sdfg& s, const transforms::Transformation& t) {
  std::vector<transforms::Match> out;
  for (auto& m : transforms::enumerateMatches(t, s))
    if (t.canApply(m, s, nullptr)) out.push_back(m);
  return out;
}

// A model transformed while its library nodes were not expanded, expanded now (the default policy),
// computes what the model at `path` as imported (expanded) does on the same random inputs, to
// `tolerance` (largest absolute difference).
inline bool sameNumbersAsImported(const std::string& path, ir::Sdfg& transformed, double tolerance) {
  auto reference = loadModel(path, true);
  if (!reference) return false;
  if (auto r = expansions::expandAll(transformed); !r) {
    qWarning("%s", r.error().str().c_str());
    return false;
  }
  auto inputs = randomInputsFor(*reference);
  auto want = runModel(*reference, inputs), got = runModel(transformed, inputs);
  if (want.empty() || got.empty()) return false;
  auto d = codegen::compareOutputs(want, got);
  if (!d.mismatch.empty() || d.maxAbs > tolerance) {
    qWarning("outputs differ: %s max abs diff %g", d.mismatch.c_str(), d.maxAbs);
    return false;
  }
  return true;
}

inline std::unique_ptr<edit::Command> applyCmd(transforms::Match m) {
  return std::make_unique<transforms::ApplyTransformation>(std::move(m));
}

inline bool checkMatch(ir::Sdfg& model, transforms::Match m, double tolerance = 1e-5) {
  std::vector<std::unique_ptr<edit::Command>> v;
  v.push_back(applyCmd(std::move(m)));
  return checkSteps(model, std::move(v), tolerance);
}

} // namespace dcw::testsupport
