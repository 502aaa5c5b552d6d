#include "transforms/catalogue/SubgraphFusion.h"

#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Path.h"
#include "core/ir/Tasklet.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/GraphTools.h"
#include "transforms/catalogue/MapFusion.h"
#include "transforms/catalogue/ScopeTools.h"

#include <algorithm>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

struct Step {
  MapEntry* entry = nullptr;
  std::set<std::string> locals; // arrays from the group to this map
};

struct SubgraphFusionPlan {
  State* state = nullptr;
  std::vector<Step> steps; // steps[0] is the map the others fuse into
};

Subset renamed(const Subset& s, const std::map<std::string, std::string>& ren) {
  std::map<std::string, sym::Expr> m;
  for (auto& [a, b] : ren) m[a] = sym::Expr::symbol(b);
  return s.substituted(m);
}

bool sameSubset(const Subset& a, const Subset& b) {
  if (a.rank() != b.rank()) return false;
  for (size_t k = 0; k < a.rank(); ++k)
    if (!(a[k] == b[k]) && !(sym::proveEqual(a[k].begin, b[k].begin) == true && sym::proveEqual(a[k].end, b[k].end) == true))
      return false;
  return true;
}

std::set<std::string> edgeData(const std::vector<DataflowEdge*>& edges) {
  std::set<std::string> s;
  for (auto* e : edges)
    if (!e->memlet.isEmpty()) s.insert(e->memlet.data);
  return s;
}

Expected<SubgraphFusionPlan> planSubgraphFusion(const Match& match, const Binding& b, const std::string& where) {
  SubgraphFusionPlan p;
  std::vector<Node*> selected;
  for (auto& [slot, path] : match.elements) {
    auto* n = b.get<Node>(slot);
    if (!n) return fail(path, "is not a node of a state");
    if (p.state && n->parent() != p.state) return fail(path, "the selection spans more than one state", "select maps of one state");
    p.state = n->parent();
    selected.push_back(n);
  }
  if (!p.state) return fail(where, "nothing is selected", "select the maps to fuse");
  State& st = *p.state;
  auto scopes = st.scopeOf();
  if (!scopes) return fail(where, scopes.error().message);
  // The maps (a map counts once, whether its entry or exit is selected).
  std::set<MapEntry*> maps;
  for (auto* n : selected) {
    if (auto* me = dynamic_cast<MapEntry*>(n)) maps.insert(me);
    else if (auto* mx = dynamic_cast<MapExit*>(n)) {
      if (auto* me = dynamic_cast<MapEntry*>(st.node(mx->entryId))) maps.insert(me);
    }
  }
  // Drop maps nested in other selected maps; check the other selected nodes.
  auto insideSelected = [&](const Node& n) {
    auto it = scopes->find(n.id());
    const MapEntry* s = it == scopes->end() ? nullptr : it->second;
    if (auto* mx = dynamic_cast<const MapExit*>(&n)) {
      auto e = scopes->find(mx->entryId);
      s = e == scopes->end() ? nullptr : e->second;
    }
    for (; s; s = scopes->count(s->id()) ? scopes->at(s->id()) : nullptr)
      if (maps.count(const_cast<MapEntry*>(s))) return true;
    return false;
  };
  for (auto it = maps.begin(); it != maps.end();) it = insideSelected(**it) ? maps.erase(it) : std::next(it);
  for (auto* n : selected)
    if (!dynamic_cast<MapEntry*>(n) && !dynamic_cast<MapExit*>(n) && !dynamic_cast<AccessNode*>(n) && !insideSelected(*n))
      return fail(pathOf(*n), "is neither a map nor data between the selected maps", "select only maps (and the arrays between them)");
  if (maps.size() < 2) return fail(where, "the selection holds " + std::to_string(maps.size()) + " map(s)", "select at least two maps");
  auto order = st.topologicalOrder();
  if (!order) return fail(where, order.error().message);
  std::vector<MapEntry*> ordered;
  for (auto* n : *order)
    if (auto* me = dynamic_cast<MapEntry*>(n); me && maps.count(me)) ordered.push_back(me);

  const Sdfg& sdfg = *owningSdfg(&st);
  MapEntry* e0 = ordered[0];
  const MapEntry* scope0 = scope::enclosing(st, *e0);
  std::vector<MapEntry*> group{e0};
  std::set<std::string> allLocals;
  p.steps.push_back({e0, {}});
  for (size_t k = 1; k < ordered.size(); ++k) {
    MapEntry* ek = ordered[k];
    MapExit* xk = scope::exitOf(st, *ek);
    std::string pk = pathOf(*ek);
    if (!xk) return fail(pk, "the map has no exit");
    if (scope::enclosing(st, *ek) != scope0) return fail(pk, "the selected maps lie in different scopes", "select maps of one scope");
    auto renK = MapFusion::sameIterationSpace(*e0, *ek);
    if (!renK)
      return fail(pk, "the map's iteration space [" + ek->range.str() + "] differs from [" + e0->range.str() + "]",
                  "select maps with equal ranges");
    Step step{ek, {}};
    std::set<ElementId> avoid; // connecting arrays and the group's entries
    for (auto* g : group) avoid.insert(g->id());
    for (auto* in : st.inEdges(ek->id())) {
      auto* a = dynamic_cast<AccessNode*>(st.node(in->src));
      if (!a) continue;
      auto writers = st.inEdges(a->id());
      MapExit* xj = nullptr;
      MapEntry* ej = nullptr;
      for (auto* w : writers)
        for (auto* g : group)
          if (w->src == g->exitId) {
            xj = static_cast<MapExit*>(st.node(g->exitId));
            ej = g;
          }
      if (!xj) continue; // not written by the group
      const std::string& data = a->data();
      if (step.locals.count(data)) continue;
      const DataDescriptor* d = sdfg.findData(data);
      if (!d || !d->transient || d->constant)
        return fail(pathOf(*a), "'" + data + "' connects selected maps but is not transient", "only intermediate arrays can become locals");
      for (State* s : sdfg.allStates())
        for (auto& n : s->nodes())
          if (auto* an = dynamic_cast<const AccessNode*>(n.get()); an && an != a && an->data() == data)
            return fail(pathOf(*a), "'" + data + "' is also accessed at " + pathOf(*an), "its values are needed elsewhere");
      if (writers.size() != 1 || !writers[0]->memlet.wcr.empty())
        return fail(pathOf(*a), "'" + data + "' has more than one writer or is written with write-conflict resolution");
      for (auto* e : st.outEdges(a->id()))
        if (e->dst != ek->id()) return fail(pathOf(*a), "'" + data + "' is also read by " + pathOf(*st.node(e->dst)));
      // The producer: one tasklet, one element per iteration.
      std::string base = scope::swapPrefix(writers[0]->srcConnector, "OUT_", "");
      std::vector<DataflowEdge*> prod;
      for (auto* e : st.inEdges(xj->id()))
        if (e->dstConnector == "IN_" + base) prod.push_back(e);
      if (prod.size() != 1 || !dynamic_cast<Tasklet*>(st.node(prod[0]->src)) || !prod[0]->memlet.wcr.empty() ||
          prod[0]->memlet.dynamic || prod[0]->memlet.subset.volume() != sym::Expr(1))
        return fail(pathOf(*a), "'" + data + "' is not written one element per iteration by one tasklet");
      Subset produced = renamed(prod[0]->memlet.subset, *MapFusion::sameIterationSpace(*e0, *ej));
      for (auto* e : st.outEdges(a->id())) {
        std::string oc = "OUT_" + scope::swapPrefix(e->dstConnector, "IN_", "");
        for (auto* ie : st.outEdges(ek->id())) {
          if (ie->srcConnector != oc) continue;
          if (!dynamic_cast<Tasklet*>(st.node(ie->dst)) || ie->memlet.dynamic ||
              !sameSubset(renamed(ie->memlet.subset, *renK), produced))
            return fail(pathOf(*a), pathOf(*ek) + " reads " + ie->memlet.str() + " where " + prod[0]->memlet.str() +
                                        " was written (the same iteration must read what it wrote)",
                        "only element-wise producer-consumer maps can be fused");
        }
      }
      step.locals.insert(data);
      avoid.insert(a->id());
    }
    for (auto* g : group)
      if (graph::reachesAvoiding(st, g->exitId, ek->id(), avoid))
        return fail(pk, "the map depends on " + pathOf(*g) + " through a path outside the selection",
                    "select the nodes in between too, or fuse them first");
    // Data: no reordered accesses, no shared locals.
    std::set<std::string> rG, wG, bodyG;
    for (auto* g : group) {
      auto r = edgeData(st.inEdges(g->id()));
      auto w = edgeData(st.outEdges(g->exitId));
      rG.insert(r.begin(), r.end());
      wG.insert(w.begin(), w.end());
      for (auto* n : scope::nodesInside(st, *g))
        if (auto* an = dynamic_cast<AccessNode*>(n)) bodyG.insert(an->data());
    }
    auto rK = edgeData(st.inEdges(ek->id())), wK = edgeData(st.outEdges(xk->id()));
    for (auto& n : wG)
      if (!step.locals.count(n) && !allLocals.count(n) && (rK.count(n) || wK.count(n)))
        return fail(pk, "the map accesses '" + n + "', which an earlier selected map writes", "fusion would reorder the accesses");
    for (auto& n : wK)
      if (rG.count(n)) return fail(pk, "the map writes '" + n + "', which an earlier selected map reads", "fusion would reorder the accesses");
    for (auto* n : scope::nodesInside(st, *ek))
      if (auto* an = dynamic_cast<AccessNode*>(n); an && bodyG.count(an->data()))
        return fail(pk, "the map's body uses '" + an->data() + "' as an earlier selected map's body does");
    allLocals.insert(step.locals.begin(), step.locals.end());
    p.steps.push_back(step);
    group.push_back(ek);
  }
  return p;
}

} // namespace

const Pattern& SubgraphFusion::pattern() const {
  static const Pattern p = Pattern::selection();
  return p;
}

bool SubgraphFusion::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto b = Binding::resolve(match, root);
  if (!holds(b, whyNot)) return false;
  return holds(planSubgraphFusion(match, *b, match.elements.empty() ? std::string(name()) : match.elements.begin()->second), whyNot);
}

Expected<void> SubgraphFusion::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  DCW_TRY(auto p, planSubgraphFusion(match, b, match.elements.empty() ? std::string(name()) : match.elements.begin()->second));
  MapEntry* e0 = p.steps[0].entry;
  for (size_t k = 1; k < p.steps.size(); ++k) MapFusion::fuseInto(ed, *p.state, *e0, *p.steps[k].entry, p.steps[k].locals);
  return {};
}

} // namespace dcw::transforms
