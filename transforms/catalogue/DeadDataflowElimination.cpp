#include "transforms/catalogue/DeadDataflowElimination.h"

#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Path.h"
#include "core/ir/StateScopes.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/GraphTools.h"
#include "transforms/catalogue/ScopeTools.h"

#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

// An access node of `data` anywhere in the SDFG with an edge to a node outside `dead` (of `deadState`).
const AccessNode* liveReader(const Sdfg& s, const std::string& data, const State& deadState, const std::set<ElementId>& dead) {
  for (State* st : s.allStates())
    for (auto& n : st->nodes()) {
      auto* a = dynamic_cast<const AccessNode*>(n.get());
      if (!a || a->data() != data) continue;
      for (auto* e : st->outEdges(a->id()))
        if (st != &deadState || !dead.count(e->dst)) return a;
    }
  return nullptr;
}

struct DeadSet {
  std::set<ElementId> nodes;
  std::set<std::string> touchedData; // containers of removed access nodes
  std::string problem;               // set when removal would leave a live node half-connected
};

DeadSet deadSubgraph(const Sdfg& sdfg, const State& st, const AccessNode& seed) {
  DeadSet d;
  d.nodes.insert(seed.id());
  auto tree = st.scopes();
  if (!tree) {
    d.problem = tree.error().message;
    return d;
  }
  const auto& scopes = (*tree)->scopes;
  auto topLevel = [&](const Node& n) {
    auto it = scopes.find(n.id());
    return it == scopes.end() || it->second == nullptr;
  };
  auto allOutsDead = [&](ElementId n) {
    auto outs = st.outEdges(n);
    if (outs.empty()) return false;
    for (auto* e : outs)
      if (!d.nodes.count(e->dst)) return false;
    return true;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto& up : st.nodes()) {
      Node* n = up.get();
      if (d.nodes.count(n->id()) || !topLevel(*n)) continue;
      switch (n->kind()) {
      case ElementKind::AccessNode: {
        auto* a = static_cast<AccessNode*>(n);
        if (!allOutsDead(a->id())) break;
        if (!st.inEdges(a->id()).empty()) {
          const DataDescriptor* desc = sdfg.findData(a->data());
          if (!desc || !desc->transient || graph::namedInControlFlow(sdfg, a->data()) || liveReader(sdfg, a->data(), st, d.nodes))
            break;
        }
        d.nodes.insert(a->id());
        changed = true;
        break;
      }
      case ElementKind::Tasklet:
      case ElementKind::NestedSdfg:
      case ElementKind::LibraryNode:
        if (allOutsDead(n->id())) {
          d.nodes.insert(n->id());
          changed = true;
        }
        break;
      case ElementKind::MapEntry: {
        auto* me = static_cast<MapEntry*>(n);
        MapExit* mx = scope::exitOf(st, *me);
        if (!mx || !allOutsDead(mx->id())) break;
        d.nodes.insert(me->id());
        d.nodes.insert(mx->id());
        for (Node* in : scope::nodesInside(st, *me)) d.nodes.insert(in->id());
        changed = true;
        break;
      }
      default: break;
      }
    }
  }
  for (ElementId id : d.nodes) {
    if (auto* a = dynamic_cast<AccessNode*>(st.node(id))) d.touchedData.insert(a->data());
    for (auto* e : st.inEdges(id)) {
      if (d.nodes.count(e->src)) continue;
      const Node* src = st.node(e->src);
      if (src && src->kind() != ElementKind::AccessNode)
        d.problem = "'" + src->label() + "' also produces live data through '" + st.node(id)->label() + "'";
    }
  }
  return d;
}

} // namespace

const Pattern& DeadDataflowElimination::pattern() const {
  static const Pattern p = Pattern::node("access", {ElementKind::AccessNode});
  return p;
}

bool DeadDataflowElimination::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto b = Binding::resolve(match, root);
  if (!holds(b, whyNot)) return false;
  const std::string& path = match.elements.at("access");
  auto* a = b->get<AccessNode>("access");
  State* st = b->stateOf("access");
  if (!a || !st) {
    if (whyNot) whyNot->error(path, "is not an access node");
    return false;
  }
  const Sdfg* sdfg = owningSdfg(a);
  const DataDescriptor* desc = sdfg ? sdfg->findData(a->data()) : nullptr;
  if (!desc) {
    if (whyNot) whyNot->error(path, "accesses unknown data '" + a->data() + "'");
    return false;
  }
  if (!desc->transient) {
    if (whyNot) whyNot->error(path, "'" + a->data() + "' is not transient: it is an argument of its SDFG", "only internal data can be dead");
    return false;
  }
  if (!st->outEdges(a->id()).empty()) {
    if (whyNot) whyNot->error(path, "'" + a->data() + "' is read here", "match an access node that is only written");
    return false;
  }
  if (st->inEdges(a->id()).empty()) {
    if (whyNot) whyNot->error(path, "nothing writes '" + a->data() + "' here");
    return false;
  }
  if (scope::enclosing(*st, *a)) {
    if (whyNot) whyNot->error(path, "the access node lies inside a map scope", "remove dead data at the top level of a state");
    return false;
  }
  if (const AccessNode* r = liveReader(*sdfg, a->data(), *st, {a->id()})) {
    if (whyNot) whyNot->error(path, "'" + a->data() + "' is read elsewhere (" + pathOf(*r) + ")");
    return false;
  }
  if (graph::namedInControlFlow(*sdfg, a->data())) {
    if (whyNot) whyNot->error(path, "'" + a->data() + "' is named by a control-flow condition or assignment");
    return false;
  }
  DeadSet d = deadSubgraph(*sdfg, *st, *a);
  if (!d.problem.empty()) {
    if (whyNot) whyNot->error(path, d.problem, "split the producer's outputs first");
    return false;
  }
  return true;
}

Expected<void> DeadDataflowElimination::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  auto* a = b.get<AccessNode>("access");
  State& st = *b.stateOf("access");
  Sdfg& sdfg = *owningSdfg(a);
  DeadSet d = deadSubgraph(sdfg, st, *a);
  // Remove in state order (deterministic), then the data nothing accesses any more.
  std::vector<ElementId> order;
  std::set<ElementId> neighbours; // live access nodes next to the dead subgraph
  for (auto& n : st.nodes()) {
    if (!d.nodes.count(n->id())) continue;
    order.push_back(n->id());
    for (auto* e : st.inEdges(n->id()))
      if (!d.nodes.count(e->src)) neighbours.insert(e->src);
    for (auto* e : st.outEdges(n->id()))
      if (!d.nodes.count(e->dst)) neighbours.insert(e->dst);
  }
  for (ElementId id : order) ed.removeNode(st, id);
  // Read nodes that lost their last edge.
  std::vector<ElementId> lonely;
  for (auto& n : st.nodes())
    if (neighbours.count(n->id()) && n->kind() == ElementKind::AccessNode && st.inEdges(n->id()).empty() &&
        st.outEdges(n->id()).empty())
      lonely.push_back(n->id());
  for (ElementId id : lonely) {
    d.touchedData.insert(static_cast<AccessNode*>(st.node(id))->data());
    ed.removeNode(st, id);
  }
  for (const std::string& name : d.touchedData) {
    const DataDescriptor* desc = sdfg.findData(name);
    if (!desc || !desc->transient) continue;
    bool used = false;
    for (State* s : sdfg.allStates())
      for (auto& n : s->nodes())
        if (auto* x = dynamic_cast<AccessNode*>(n.get()); x && x->data() == name) used = true;
    if (!used) ed.removeData(sdfg, name);
  }
  return {};
}

} // namespace dcw::transforms
