#include "transforms/catalogue/StateFusion.h"

#include "core/ir/MapNodes.h"
#include "transforms/Binding.h"

#include <deque>
#include <map>
#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

struct StateFusionPlan {
  ControlFlowRegion* region = nullptr;
  State* first = nullptr;
  State* second = nullptr;
  std::map<ElementId, ElementId> merged;                 // second's node -> first's node
  std::vector<std::pair<ElementId, ElementId>> ordering; // first's node -> second's node (empty memlet)
};

std::set<ElementId> reach(const State& st, ElementId from, bool forward) {
  std::set<ElementId> seen;
  std::deque<ElementId> q{from};
  while (!q.empty()) {
    ElementId n = q.front();
    q.pop_front();
    for (auto* e : forward ? st.outEdges(n) : st.inEdges(n)) {
      ElementId o = forward ? e->dst : e->src;
      if (seen.insert(o).second) q.push_back(o);
    }
  }
  return seen;
}

std::map<std::string, std::vector<AccessNode*>> accessNodes(const State& st) {
  std::map<std::string, std::vector<AccessNode*>> out;
  for (auto& n : st.nodes())
    if (auto* an = dynamic_cast<AccessNode*>(n.get())) out[an->data()].push_back(an);
  return out;
}

bool analyseStateFusion(const Match& match, const Sdfg& root, StateFusionPlan& p, Diagnostics* whyNot) {
  auto bind = Binding::resolve(match, root);
  if (!holds(bind, whyNot)) return false;
  const std::string& path = match.elements.at("first");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  p.first = bind->get<State>("first");
  p.second = bind->get<State>("second");
  if (!p.first || !p.second) return fail("both blocks must be states");
  p.region = dynamic_cast<ControlFlowRegion*>(p.first->parent());
  if (!p.region || p.second->parent() != p.first->parent()) return fail("the states are not in the same region");
  auto outs = p.region->outEdges(p.first->id());
  auto ins = p.region->inEdges(p.second->id());
  if (outs.size() != 1 || outs[0]->dst != p.second->id())
    return fail("the first state has " + std::to_string(outs.size()) + " outgoing edges; it must lead only to the second");
  if (ins.size() != 1) return fail("the second state has " + std::to_string(ins.size()) + " incoming edges; it must have one");
  if (!outs[0]->isUnconditional()) return fail("the edge between the states has a condition (" + outs[0]->condition.str() + ")");
  if (!outs[0]->assignments.empty()) return fail("the edge between the states assigns symbols");
  if (p.region->startBlock() == p.second->id()) return fail("the second state is the region's start block");
  auto scopes2 = p.second->scopeOf();
  if (!scopes2) return fail("the second state's scopes are malformed: " + scopes2.error().message);
  auto topLevelCompute = [&](ElementId id) {
    Node* n = p.second->node(id);
    if (!n || n->kind() == ElementKind::AccessNode || n->kind() == ElementKind::MapExit) return false;
    auto it = scopes2->find(id);
    return it == scopes2->end() || it->second == nullptr;
  };

  auto nodes1 = accessNodes(*p.first);
  auto nodes2 = accessNodes(*p.second);
  for (auto& [d, n2s] : nodes2) {
    auto it = nodes1.find(d);
    if (it == nodes1.end()) continue;
    std::vector<AccessNode*> written1;
    for (auto* a : it->second)
      if (!p.first->inEdges(a->id()).empty()) written1.push_back(a);
    std::vector<AccessNode*> sources2, written2;
    for (auto* a : n2s) (p.second->inEdges(a->id()).empty() ? sources2 : written2).push_back(a);
    if (written1.empty()) {
      if (!written2.empty())
        return fail("the second state overwrites '" + d + "', which the first state reads",
                    "the reads could run after the write in one state");
      continue; // both only read
    }
    // The first state's last write of d: every other write of d reaches it.
    ElementId f = kNoId;
    for (auto* c : written1) {
      bool last = true;
      for (auto* o : written1)
        if (o != c && !reach(*p.first, o->id(), true).count(c->id())) last = false;
      if (last) f = c->id();
    }
    if (f == kNoId) return fail("the first state writes '" + d + "' through several unordered access nodes");
    std::set<ElementId> afterMerged;
    for (auto* s : sources2) {
      p.merged[s->id()] = f;
      auto r = reach(*p.second, s->id(), true);
      afterMerged.insert(r.begin(), r.end());
    }
    for (auto* w : written2) {
      if (afterMerged.count(w->id())) continue;
      // Order the second's write after the first's: an empty memlet into the first computations on
      // the way to it (top-level nodes none of whose top-level ancestors computes).
      auto anc = reach(*p.second, w->id(), false);
      std::vector<ElementId> firsts;
      for (ElementId a : anc) {
        if (!topLevelCompute(a)) continue;
        bool hasEarlier = false;
        for (ElementId b : reach(*p.second, a, false)) hasEarlier |= topLevelCompute(b);
        if (!hasEarlier) firsts.push_back(a);
      }
      if (firsts.empty())
        return fail("the second state writes '" + d + "' again without a computation to order after the first's write");
      for (ElementId a : firsts) p.ordering.push_back({f, a});
    }
  }
  return true;
}

} // namespace

const Pattern& StateFusion::pattern() const {
  static const Pattern p = Pattern::controlFlow({{"first", {ElementKind::State}}, {"second", {ElementKind::State}}}, {{0, 1}});
  return p;
}

bool StateFusion::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  StateFusionPlan p;
  return analyseStateFusion(match, root, p, whyNot);
}

Expected<void> StateFusion::apply(const Match& match, edit::Editor& ed) const {
  StateFusionPlan p;
  if (auto ok = analyseForApply(analyseStateFusion, match, ed.root(), p, "first"); !ok) return ok;
  State& s1 = *p.first;
  State& s2 = *p.second;

  // The second's nodes are copied (deeply: nested SDFGs and subgraphs too) into the first; the
  // originals leave with the second state, which the journal keeps for undo.
  std::map<ElementId, Node*> map;
  for (auto& n : s2.nodes()) {
    if (auto it = p.merged.find(n->id()); it != p.merged.end()) map[n->id()] = s1.node(it->second);
    else map[n->id()] = ed.addNode(s1, n->clone());
  }
  relinkMapCopies(map);
  for (auto& e : s2.edges()) ed.addEdge(s1, *map.at(e->src), e->srcConnector, *map.at(e->dst), e->dstConnector, e->memlet);
  for (auto& [f, a] : p.ordering) ed.addEdge(s1, *s1.node(f), "", *map.at(a), "", Memlet{});

  struct Out {
    ElementId dst;
    sym::Expr condition;
    std::vector<std::pair<std::string, sym::Expr>> assignments;
  };
  std::vector<Out> outs;
  for (auto* e : p.region->outEdges(s2.id())) outs.push_back({e->dst, e->condition, e->assignments});
  ed.removeBlock(*p.region, s2.id());
  for (auto& o : outs) {
    InterstateEdge* e = ed.addInterstateEdge(*p.region, s1.id(), o.dst == s2.id() ? s1.id() : o.dst, o.condition);
    if (!o.assignments.empty()) ed.set(*e, &InterstateEdge::assignments, o.assignments);
  }
  return {};
}

} // namespace dcw::transforms
