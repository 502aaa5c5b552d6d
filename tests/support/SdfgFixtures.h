// Small SDFGs and lookups shared by the transformation suites that build their own models or poke at
// particular maps (fusion, maps, data and control-flow groups), so that each suite keeps only its own
// models and checks:
//  - buildSdfg / addArg: a root SDFG written with the expansion builder, as pure expansions write them;
//  - elementwise: one map over [4, 5] arrays applying a tasklet element by element;
//  - loopModel: a LoopRegion over the rows of X whose body maps Y[row, j] = 2 X[row, j] + 1;
//  - mapNamed, dataIn, whyNot, applyNow, tile, dropTrivialDims: finding maps and data by name, asking a
//    transformation object why it refuses, applying one without a History (to set a model up);
//  - pureOptimizedScript: `dcw optimize --prefer pure` in place, its steps as a script;
//  - labelledMatch: a three-element match (node, its output, another node) found by labels;
//  - expandedCopy / runExpanded and the data-file paths of the catalogue groups.
#pragma once

#include "support/TestPaths.h"
#include "TransformTestSupport.h"

#include "core/expansions/SdfgBuilder.h"
#include "core/ir/AccessNode.h"
#include "core/ir/Tasklet.h"
#include "transforms/AutoOptimize.h"
#include "transforms/Script.h"
#include "transforms/catalogue/MapTiling.h"
#include "transforms/catalogue/TrivialMapElimination.h"

#include <QString>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dcw::testsupport {

// Builds a root SDFG with a standalone SdfgBuilder; `fn` receives the builder. Null when the
// builder refuses.
template <class Fn>
std::unique_ptr<ir::Sdfg> buildSdfg(Fn&& fn) {
  expansions::SdfgBuilder b("fusion_test", "test");
  fn(b);
  auto r = b.finish();
  if (!r) return nullptr;
  (*r)->reassignIds();
  return std::move(*r);
}

// Adds a float32 array and lists it as an input or an output of `s`.
inline void addArg(ir::Sdfg& s, const std::string& name, std::vector<sym::Expr> shape, bool input) {
  s.addArray(name, ir::DType::Float32, std::move(shape));
  (input ? s.inputs : s.outputs).push_back(name);
}

inline ir::Subset S(const char* text) { return *ir::Subset::parse(text); }

// in -> map(i, j){ y = code(x) } -> out over [4, 5] float32 arrays, as one map in `st` (labels made
// unique in the state, so a state may hold several).
inline void elementwise(ir::State* st, const std::string& in, const std::string& out, const std::string& code) {
  using namespace ir;
  auto* a = st->add<AccessNode>(in);
  auto* b = st->add<AccessNode>(out);
  auto* me = st->add<MapEntry>(st->uniqueNodeLabel(out + "_map"));
  auto* mx = st->add<MapExit>(st->uniqueNodeLabel(out + "_map_exit"));
  me->params = {"i", "j"};
  me->range = S("0:4, 0:5");
  me->exitId = mx->id();
  mx->entryId = me->id();
  auto* t = st->add<Tasklet>(st->uniqueNodeLabel(out + "_t"), code);
  t->addIn({"x", DType::Float32});
  t->addOut({"y", DType::Float32});
  me->addIn({"IN_" + in});
  me->addOut({"OUT_" + in});
  mx->addIn({"IN_" + out});
  mx->addOut({"OUT_" + out});
  st->addEdge(*a, "", *me, "IN_" + in, Memlet::simple(in, S("0:4, 0:5")));
  st->addEdge(*me, "OUT_" + in, *t, "x", Memlet::simple(in, S("i, j")));
  st->addEdge(*t, "y", *mx, "IN_" + out, Memlet::simple(out, S("i, j")));
  st->addEdge(*mx, "OUT_" + out, *b, "", Memlet::simple(out, S("0:4, 0:5")));
}

// X -> (x * 2) -> T in state "produce", then T -> (x + 1) -> Y in state "consume"; T a transient alive
// through the run ([4, 5] float32 arrays). `conflicting`: the first state reads T (T -> Y) and the
// second overwrites it (X -> T), so the two cannot run as one.
inline std::unique_ptr<ir::Sdfg> twoStateModel(bool conflicting = false) {
  using namespace ir;
  auto s = std::make_unique<Sdfg>("main");
  s->addArray("X", DType::Float32, {4, 5});
  s->addArray("T", DType::Float32, {4, 5}, true)->lifetime = Lifetime::Sdfg;
  s->addArray("Y", DType::Float32, {4, 5});
  s->inputs = {"X"};
  s->outputs = {"Y"};
  auto* s1 = s->addState("produce");
  auto* s2 = s->addState("consume");
  s->addEdge(s1->id(), s2->id());
  if (!conflicting) {
    elementwise(s1, "X", "T", "y = x * 2.0");
    elementwise(s2, "T", "Y", "y = x + 1.0");
  } else {
    elementwise(s1, "T", "Y", "y = x + 1.0");
    elementwise(s2, "X", "T", "y = x * 2.0");
  }
  return s;
}

// X[R, C] -> map "rows" (i, j){ y = x } -> S with write-conflict resolution `wcr`, in state "sum": per
// row (S[i]: each i its own element) or per column (S[j]: iterations of different rows share one).
inline std::unique_ptr<ir::Sdfg> reductionModel(int R, int C, bool byRow = true, const std::string& wcr = "sum") {
  using namespace ir;
  auto s = std::make_unique<Sdfg>("main");
  s->addArray("X", DType::Float32, {R, C});
  const int n = byRow ? R : C;
  s->addArray("S", DType::Float32, {n});
  s->inputs = {"X"};
  s->outputs = {"S"};
  auto* st = s->addState("sum");
  auto* a = st->add<AccessNode>("X");
  auto* b = st->add<AccessNode>("S");
  auto* me = st->add<MapEntry>("rows");
  auto* mx = st->add<MapExit>("rows_exit");
  me->params = {"i", "j"};
  me->range = Subset({Range::full(R), Range::full(C)});
  me->exitId = mx->id();
  mx->entryId = me->id();
  auto* t = st->add<Tasklet>("add", "y = x");
  t->addIn({"x", DType::Float32});
  t->addOut({"y", DType::Float32});
  me->addIn({"IN_X"});
  me->addOut({"OUT_X"});
  mx->addIn({"IN_S"});
  mx->addOut({"OUT_S"});
  st->addEdge(*a, "", *me, "IN_X", Memlet::simple("X", Subset::fullOf({R, C})));
  st->addEdge(*me, "OUT_X", *t, "x", Memlet::simple("X", *Subset::parse("i, j")));
  Memlet w = Memlet::simple("S", *Subset::parse(byRow ? "i" : "j"));
  w.wcr = wcr;
  st->addEdge(*t, "y", *mx, "IN_S", w);
  Memlet wo = Memlet::simple("S", Subset::fullOf({n}));
  wo.wcr = wcr;
  st->addEdge(*mx, "OUT_S", *b, "", wo);
  return s;
}

// The state of that label, or the one the editor made unique from it (host_to_device2).
inline const ir::State* stateLabelled(const ir::Sdfg& s, const std::string& label) {
  for (ir::State* st : s.allStates())
    if (st->label() == label) return st;
  for (ir::State* st : s.allStates())
    if (st->label().rfind(label, 0) == 0 && st->label().find_first_not_of("0123456789", label.size()) == std::string::npos) return st;
  return nullptr;
}

// Y[row, j] = f(X[row, j]) for j in 0:5, as one map in `st` (row: the loop variable's index text).
inline void rowMap(ir::State* st, const char* xRow, const char* yRow, const char* xFull, const char* yFull,
                   const std::string& code) {
  using namespace ir;
  auto* x = st->add<AccessNode>("X");
  auto* y = st->add<AccessNode>("Y");
  auto* me = st->add<MapEntry>("row");
  auto* mx = st->add<MapExit>("row_exit");
  me->params = {"j"};
  me->range = S("0:5");
  me->exitId = mx->id();
  mx->entryId = me->id();
  auto* t = st->add<Tasklet>("f", code);
  t->addIn({"x"});
  t->addOut({"y"});
  me->addIn({"IN_X"});
  me->addOut({"OUT_X"});
  mx->addIn({"IN_Y"});
  mx->addOut({"OUT_Y"});
  st->addEdge(*x, "", *me, "IN_X", Memlet::simple("X", S(xFull)));
  st->addEdge(*me, "OUT_X", *t, "x", Memlet::simple("X", S(xRow)));
  st->addEdge(*t, "y", *mx, "IN_Y", Memlet::simple("Y", S(yRow)));
  st->addEdge(*mx, "OUT_Y", *y, "", Memlet::simple("Y", S(yFull)));
}

// loop i = 0; i < 4; i = i + step { X[xFull] -> map j { y = 2x + 1 } -> Y[yFull] } -> done
inline std::unique_ptr<ir::Sdfg> loopModel(const char* xRow, const char* yRow, const char* xFull, const char* yFull,
                                           int step = 1) {
  using namespace ir;
  auto s = std::make_unique<Sdfg>("main");
  s->addArray("X", DType::Float32, {4, 5});
  s->addArray("Y", DType::Float32, {4, 5});
  s->inputs = {"X"};
  s->outputs = {"Y"};
  auto loop = std::make_unique<LoopRegion>("rows");
  loop->loopVariable = "i";
  loop->init = 0;
  loop->condition = sym::lt(sym::Expr::symbol("i"), sym::Expr(4));
  loop->update = sym::Expr::symbol("i") + sym::Expr(step);
  auto* l = static_cast<LoopRegion*>(s->addBlock(std::move(loop)));
  auto* done = s->addState("done");
  s->addEdge(l->id(), done->id());
  rowMap(l->addState("body"), xRow, yRow, xFull, yFull, "y = x * 2.0 + 1.0");
  return s;
}

// The first map entry labelled `label` anywhere in the model (through nested SDFGs), or null.
inline ir::MapEntry* mapNamed(const ir::Sdfg& s, const std::string& label) {
  for (auto* m : allNodes<ir::MapEntry>(s))
    if (m->label() == label) return m;
  return nullptr;
}

// The data descriptor `name` of the model or of any nested SDFG, or null.
inline const ir::DataDescriptor* dataIn(const ir::Sdfg& s, const std::string& name) {
  if (auto* d = s.findData(name)) return d;
  for (auto* n : allNodes<ir::NestedSdfgNode>(s))
    if (auto* d = n->sdfg().findData(name)) return d;
  return nullptr;
}

// "applies", or the first reason `t` gives for refusing `m`.
inline QString whyNot(const transforms::Transformation& t, const transforms::Match& m, const ir::Sdfg& s) {
  Diagnostics why;
  if (t.canApply(m, s, &why)) return "applies";
  return QString::fromStdString(why.firstError() ? why.firstError()->message : "?");
}

// Applies `t` at `m` directly (no History): for setting a model up before the step under test.
inline bool applyNow(ir::Sdfg& s, const transforms::Transformation& t, const transforms::Match& m) {
  if (!t.canApply(m, s, nullptr)) return false;
  edit::Editor ed(s);
  return bool(t.apply(m, ed));
}

// Tiles the map labelled `label` with MapTiling (tile_sizes `sizes`), directly.
inline bool tile(ir::Sdfg& s, const std::string& label, const std::string& sizes) {
  ir::MapEntry* me = mapNamed(s, label);
  if (!me) return false;
  transforms::Match m{"MapTiling", {{"entry", ir::pathOf(*me)}}, {{"tile_sizes", sizes}}};
  return applyNow(s, transforms::MapTiling(), m);
}

// TrivialMapElimination wherever it applies (what auto-optimize does before the map reorderings).
inline void dropTrivialDims(ir::Sdfg& m) {
  transforms::TrivialMapElimination t;
  for (bool again = true; again;) {
    again = false;
    for (auto& match : applicableMatches(m, t)) {
      if (!applyNow(m, t, match)) return;
      again = true;
      break;
    }
  }
}

// A file of tests/data/transforms/maps (models: tests/models/maps_models.py).
inline std::string mapsDataPath(const std::string& file) {
  return testpaths::source("/tests/data/transforms/maps/") + file;
}

// A file of tests/data/transforms/controlflow_graph (models: tests/models/controlflow_graph_models.py).
inline std::string controlflowDataFile(const std::string& name) {
  return testpaths::source("/tests/data/transforms/controlflow_graph/") + name;
}

// The match of `transformation` at the node labelled `first`, the access node its first out edge
// leads to, and the node labelled `second`, all in the model's first state (keys: firstKey,
// outputKey, secondKey). An empty match when a node is missing.
inline transforms::Match labelledMatch(const ir::Sdfg& m, const std::string& transformation, const std::string& first,
                                       const std::string& firstKey, const std::string& outputKey,
                                       const std::string& second, const std::string& secondKey) {
  ir::State* st = m.allStates()[0];
  ir::Node* a = st->nodeByLabel(first);
  ir::Node* b = st->nodeByLabel(second);
  ir::Node* out = a ? st->node(st->outEdges(a->id())[0]->dst) : nullptr;
  if (!a || !b || !out) return {};
  return {transformation, {{firstKey, ir::pathOf(*a)}, {outputKey, ir::pathOf(*out)}, {secondKey, ir::pathOf(*b)}}, {}};
}

// Whether `out` (non-empty) matches `ref` within `tolerance` (max abs difference); says why not, under `what`.
inline bool outputsClose(const std::vector<ir::Tensor>& ref, const std::vector<ir::Tensor>& out, double tolerance, const char* what) {
  if (out.empty()) return false;
  auto d = codegen::compareOutputs(ref, out);
  if (!d.mismatch.empty() || d.maxAbs > tolerance) {
    qWarning("%s: %s max abs diff %g", what, d.mismatch.c_str(), d.maxAbs);
    return false;
  }
  return true;
}

// `dcw optimize` on `s` in place, preferring `prefer` (library nodes left unexpanded unless `expand`).
inline bool autoOptimized(ir::Sdfg& s, std::vector<std::string> prefer, bool expand = false) {
  edit::History h(s);
  transforms::AutoOptimizeOptions o;
  o.expand = expand;
  o.prefer = std::move(prefer);
  return bool(transforms::autoOptimize(h, o));
}

// The model at `path`, unexpanded, after auto-optimize's steps `pipeline` alone (library nodes expanded
// as they prefer `prefer`; no parallel schedules): as `dcw optimize` has it when a later step of its
// pipeline runs. Null, with a warning, when it failed.
inline std::unique_ptr<ir::Sdfg> optimizedThrough(const std::string& path, std::vector<std::string> pipeline,
                                                  std::vector<std::string> prefer = {"onednn", "pure"}) {
  auto m = loadModel(path, false);
  if (!m) return nullptr;
  edit::History h(*m);
  transforms::AutoOptimizeOptions o;
  o.pipeline = std::move(pipeline);
  o.prefer = std::move(prefer);
  o.parallelize = false;
  if (auto r = transforms::autoOptimize(h, o); !r) {
    qWarning("%s", r.error().str().c_str());
    return nullptr;
  }
  return m;
}

// `dcw optimize` on `s` in place, preferring `prefer`: how many of its steps apply `transformation`
// (nullopt, with a warning, when it failed).
inline std::optional<size_t> autoOptimizedSteps(ir::Sdfg& s, std::vector<std::string> prefer, const std::string& transformation) {
  edit::History h(s);
  transforms::AutoOptimizeOptions o;
  o.prefer = std::move(prefer);
  if (auto r = transforms::autoOptimize(h, o); !r) {
    qWarning("%s", r.error().str().c_str());
    return std::nullopt;
  }
  size_t n = 0;
  for (size_t i = 0; i < h.size(); ++i) n += h.command(i).scriptLine().find("apply " + transformation + " ") != std::string::npos;
  return n;
}

// `dcw optimize --prefer pure` on `s` in place (tiling as `tile` says), its steps as the exported script
// (recorded as on a model named `name`); empty when auto-optimize failed.
inline std::string pureOptimizedScript(ir::Sdfg& s, const std::string& name, bool tile = true) {
  edit::History h(s);
  transforms::AutoOptimizeOptions o;
  o.prefer = {"pure"};
  o.tile = tile;
  if (!transforms::autoOptimize(h, o)) return {};
  return transforms::writeScript(h, name, "");
}

// A copy of `s` (through JSON) with every library node expanded, or null.
inline std::unique_ptr<ir::Sdfg> expandedCopy(const ir::Sdfg& s) {
  auto c = serialize::fromJson(serialize::toJson(s));
  if (!c) return nullptr;
  if (!expansions::expandAll(**c)) return nullptr;
  return std::move(*c);
}

// Outputs of the expanded copy of `s` on random inputs drawn with `seed`.
inline std::vector<ir::Tensor> runExpanded(const ir::Sdfg& s, uint64_t seed) {
  auto e = expandedCopy(s);
  if (!e) return {};
  return runModel(*e, randomInputsFor(*e, seed));
}

// The same with the nodes that have no implementation of their own expanded with the first of
// `prefer` that takes them (e.g. {"onednn"}); `code`, when given, receives the C++ tasklets' code.
inline std::vector<ir::Tensor> runExpandedPreferring(const ir::Sdfg& s, uint64_t seed, std::vector<std::string> prefer,
                                                     std::string* code = nullptr) {
  auto c = serialize::fromJson(serialize::toJson(s));
  if (!c) return {};
  expansions::ExpandOptions o;
  o.prefer = std::move(prefer);
  if (auto r = expansions::expandAll(**c, o); !r) {
    qWarning("%s", r.error().str().c_str());
    return {};
  }
  if (code)
    for (auto* t : allNodes<ir::Tasklet>(**c))
      if (t->language == ir::TaskletLanguage::Cpp) *code += t->code + "\n";
  return runModel(**c, randomInputsFor(**c, seed));
}

} // namespace dcw::testsupport
