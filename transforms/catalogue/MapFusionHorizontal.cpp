#include "transforms/catalogue/MapFusionHorizontal.h"

#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/MapFusion.h"
#include "transforms/catalogue/ScopeTools.h"

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

std::set<std::string> dataOf(const State& st, const std::vector<DataflowEdge*>& edges) {
  std::set<std::string> s;
  for (auto* e : edges)
    if (!e->memlet.isEmpty()) s.insert(e->memlet.data);
  (void)st;
  return s;
}

std::set<std::string> bodyData(const State& st, const MapEntry& e) {
  std::set<std::string> s;
  for (auto* n : scope::nodesInside(st, e))
    if (auto* a = dynamic_cast<const AccessNode*>(n)) s.insert(a->data());
  return s;
}

std::optional<MapFusion::Refusal> check(const State& st, const AccessNode& input, const MapEntry& e1, const MapEntry& e2) {
  if (&e1 == &e2) return MapFusion::Refusal{"first and second are the same map", {}};
  MapExit* x1 = scope::exitOf(st, e1);
  MapExit* x2 = scope::exitOf(st, e2);
  if (!x1 || !x2) return MapFusion::Refusal{"a map has no exit", "the model is malformed"};
  if (scope::enclosing(st, e1) != scope::enclosing(st, e2) || scope::enclosing(st, input) != scope::enclosing(st, e1))
    return MapFusion::Refusal{"the maps lie in different scopes", "fuse maps of the same scope"};
  if (!MapFusion::sameIterationSpace(e1, e2))
    return MapFusion::Refusal{"the maps have different iteration spaces ([" + e1.range.str() + "] vs [" + e2.range.str() + "])",
                              "fuse maps whose ranges agree"};
  if (MapFusion::reaches(st, x1->id(), e2.id()) || MapFusion::reaches(st, x2->id(), e1.id()))
    return MapFusion::Refusal{"one map depends on the other (a path leads from one to the other)",
                              "use MapFusion for producer-consumer pairs"};
  auto r1 = dataOf(st, st.inEdges(e1.id())), w1 = dataOf(st, st.outEdges(x1->id()));
  auto r2 = dataOf(st, st.inEdges(e2.id())), w2 = dataOf(st, st.outEdges(x2->id()));
  for (auto& n : w1)
    if (r2.count(n) || w2.count(n)) return MapFusion::Refusal{"both maps access '" + n + "', which the first map writes", {}};
  for (auto& n : w2)
    if (r1.count(n)) return MapFusion::Refusal{"both maps access '" + n + "', which the second map writes", {}};
  auto b1 = bodyData(st, e1), b2 = bodyData(st, e2);
  for (auto& n : b1)
    if (b2.count(n)) return MapFusion::Refusal{"both map bodies use '" + n + "'", "fusion would share one iteration's local"};
  return std::nullopt;
}

} // namespace

const Pattern& MapFusionHorizontal::pattern() const {
  static const Pattern p = Pattern::dataflow({{"input", {ElementKind::AccessNode}},
                                              {"first", {ElementKind::MapEntry}},
                                              {"second", {ElementKind::MapEntry}}},
                                             {{0, 1}, {0, 2}});
  return p;
}

bool MapFusionHorizontal::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto b = Binding::resolve(match, root);
  if (!holds(b, whyNot)) return false;
  auto* in = b->get<AccessNode>("input");
  auto* e1 = b->get<MapEntry>("first");
  auto* e2 = b->get<MapEntry>("second");
  const std::string where = match.elements.count("first") ? match.elements.at("first") : std::string(name());
  if (!in || !e1 || !e2 || in->parent() != e1->parent() || e1->parent() != e2->parent()) {
    if (whyNot) whyNot->error(where, "the match does not have the shape " + pattern().describe() + " in one state");
    return false;
  }
  if (auto r = check(*in->parent(), *in, *e1, *e2)) {
    if (whyNot) whyNot->error(where, r->message, r->hint);
    return false;
  }
  return true;
}

Expected<void> MapFusionHorizontal::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  auto* e1 = b.get<MapEntry>("first");
  auto* e2 = b.get<MapEntry>("second");
  MapFusion::fuseInto(ed, *e1->parent(), *e1, *e2, {});
  return {};
}

} // namespace dcw::transforms
