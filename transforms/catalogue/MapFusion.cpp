#include "transforms/catalogue/MapFusion.h"

#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Tasklet.h"
#include "core/tasklet/TaskletCode.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/GraphTools.h"
#include "transforms/catalogue/ScopeTools.h"


namespace dcw::transforms {

using namespace dcw::ir;

namespace {

using SymMap = std::map<std::string, sym::Expr>;

// Renames map parameters used as symbols in tasklet code (connectors and locals keep their names).
std::string renameSymbolsInCode(const Tasklet& t, const std::map<std::string, std::string>& params) {
  auto prog = tasklet::parse(t.code, t.label());
  if (!prog) return t.code;
  std::map<std::string, std::string> names = params;
  for (auto& c : t.inConnectors()) names.erase(c.name);
  for (auto& c : t.outConnectors()) names.erase(c.name);
  for (auto& s : prog->statements) names.erase(s.target);
  bool used = false;
  for (auto& r : tasklet::readNames(*prog))
    if (names.count(r)) used = true;
  if (!used) return t.code;
  for (auto& s : prog->statements) s.value = scope::renameExpr(s.value, names);
  return prog->str();
}

std::string uniqueConnector(const Node& n, const std::string& base, const std::set<std::string>& taken) {
  auto free = [&](const std::string& b) {
    return !n.findIn("IN_" + b) && !n.findOut("OUT_" + b) && !taken.count(b);
  };
  if (free(base)) return base;
  for (int k = 1;; ++k)
    if (free(base + "_" + std::to_string(k))) return base + "_" + std::to_string(k);
}

// Data names of the outer edges of a map: read through its entry, written through its exit.
std::set<std::string> outerReads(const State& st, const MapEntry& e) {
  std::set<std::string> s;
  for (auto* ed : st.inEdges(e.id()))
    if (!ed->memlet.isEmpty()) s.insert(ed->memlet.data);
  return s;
}
std::set<std::string> outerWrites(const State& st, const MapExit& x) {
  std::set<std::string> s;
  for (auto* ed : st.outEdges(x.id()))
    if (!ed->memlet.isEmpty()) s.insert(ed->memlet.data);
  return s;
}

} // namespace

const Pattern& MapFusion::pattern() const {
  static const Pattern p = Pattern::dataflow({{"first_exit", {ElementKind::MapExit}},
                                              {"array", {ElementKind::AccessNode}},
                                              {"second_entry", {ElementKind::MapEntry}}},
                                             {{0, 1}, {1, 2}});
  return p;
}

std::optional<std::map<std::string, std::string>> MapFusion::sameIterationSpace(const MapEntry& a, const MapEntry& b) {
  if (a.params.size() != b.params.size() || a.range.rank() != b.range.rank()) return std::nullopt;
  std::map<std::string, std::string> ren;
  for (size_t k = 0; k < a.params.size(); ++k) {
    const Range &ra = a.range[k], &rb = b.range[k];
    auto eq = [](const sym::Expr& x, const sym::Expr& y) { return x == y || sym::proveEqual(x, y) == true; };
    if (!eq(ra.begin, rb.begin) || !eq(ra.end, rb.end) || !eq(ra.step, rb.step)) return std::nullopt;
    if (a.params[k] != b.params[k]) ren[b.params[k]] = a.params[k];
  }
  return ren;
}

bool MapFusion::reaches(const State& st, ElementId from, ElementId to, ElementId avoid) {
  // Reaching `to` wins over avoiding it: when `to` is `avoid`, nothing is avoided.
  if (to == avoid) return graph::reachesAvoiding(st, from, to, {});
  return graph::reachesAvoiding(st, from, to, {avoid});
}

std::optional<MapFusion::Refusal> MapFusion::checkProducerConsumer(const State& st, const MapExit& x1, const AccessNode& a,
                                                                   const MapEntry& e2) {
  auto* e1 = dynamic_cast<const MapEntry*>(st.node(x1.entryId));
  if (!e1) return Refusal{"the first map's exit has no entry", "the model is malformed"};
  if (e1 == &e2) return Refusal{"both ends belong to the same map", {}};
  auto* x2 = scope::exitOf(st, e2);
  if (!x2) return Refusal{"the second map has no exit", "the model is malformed"};
  if (scope::enclosing(st, *e1) != scope::enclosing(st, e2))
    return Refusal{"the maps lie in different scopes", "fuse maps of the same scope"};
  auto ren = sameIterationSpace(*e1, e2);
  if (!ren)
    return Refusal{"the maps have different iteration spaces ([" + e1->range.str() + "] vs [" + e2.range.str() + "])",
                   "fuse maps whose ranges agree (tile or reshape one first)"};
  const Sdfg* sdfg = owningSdfg(&st);
  const DataDescriptor* d = sdfg ? sdfg->findData(a.data()) : nullptr;
  if (!d) return Refusal{"array '" + a.data() + "' has no descriptor", {}};
  if (!d->transient || d->constant)
    return Refusal{"array '" + a.data() + "' is not transient (it is visible outside the SDFG)",
                   "only intermediate (transient) arrays can be removed"};
  // The array must be used only here: one access node in the whole SDFG.
  for (State* s : sdfg->allStates())
    for (auto& n : s->nodes())
      if (auto* an = dynamic_cast<const AccessNode*>(n.get()); an && an != &a && an->data() == a.data())
        return Refusal{"array '" + a.data() + "' is also accessed at " + pathOf(*an),
                       "fusion would remove data that is read elsewhere"};
  auto ins = st.inEdges(a.id());
  if (ins.size() != 1 || ins[0]->src != x1.id())
    return Refusal{"array '" + a.data() + "' is written by more than the first map", {}};
  if (!ins[0]->memlet.wcr.empty()) return Refusal{"the first map writes '" + a.data() + "' with write-conflict resolution", {}};
  for (auto* e : st.outEdges(a.id()))
    if (e->dst != e2.id())
      return Refusal{"array '" + a.data() + "' is also read outside the second map", "fusion would remove data that is read elsewhere"};
  // The producer: one tasklet writing one element per iteration.
  std::string outConn = "IN_" + scope::swapPrefix(ins[0]->srcConnector, "OUT_", "");
  std::vector<DataflowEdge*> prod;
  for (auto* e : st.inEdges(x1.id()))
    if (e->dstConnector == outConn) prod.push_back(e);
  if (prod.size() != 1 || !dynamic_cast<const Tasklet*>(st.node(prod[0]->src)))
    return Refusal{"'" + a.data() + "' is not written by exactly one tasklet of the first map",
                   "fuse maps whose bodies are tasklets writing one element"};
  const Memlet& pm = prod[0]->memlet;
  if (!pm.wcr.empty() || pm.dynamic || pm.subset.volume() != sym::Expr(1))
    return Refusal{"the first map writes " + pm.str() + " per iteration, not one element", {}};
  // The consumers: tasklets reading the same element.
  SymMap rename;
  for (auto& [from, to] : *ren) rename[from] = sym::Expr::symbol(to);
  size_t consumers = 0;
  for (auto* e : st.outEdges(a.id())) {
    std::string oc = "OUT_" + scope::swapPrefix(e->dstConnector, "IN_", "");
    for (auto* ie : st.outEdges(e2.id())) {
      if (ie->srcConnector != oc) continue;
      if (!dynamic_cast<const Tasklet*>(st.node(ie->dst)))
        return Refusal{"the second map reads '" + a.data() + "' in a node that is not a tasklet", "fuse maps whose bodies are tasklets"};
      Memlet m = ie->memlet.substituted(rename);
      bool same = m.subset.rank() == pm.subset.rank();
      for (size_t k = 0; same && k < m.subset.rank(); ++k)
        same = m.subset[k] == pm.subset[k] || (sym::proveEqual(m.subset[k].begin, pm.subset[k].begin) == true &&
                                              sym::proveEqual(m.subset[k].end, pm.subset[k].end) == true);
      if (!same || ie->memlet.dynamic)
        return Refusal{"the second map reads " + ie->memlet.str() + " where the first map wrote " + pm.str() +
                           " (the same iteration must read what it wrote)",
                       "only element-wise producer-consumer pairs can be fused"};
      ++consumers;
    }
  }
  if (consumers == 0) return Refusal{"the second map does not read '" + a.data() + "' in its body", {}};
  // No other dependency between the maps.
  if (reaches(st, x1.id(), e2.id(), a.id()))
    return Refusal{"the second map also depends on the first through another path", "fuse the maps in between first"};
  auto w1 = outerWrites(st, x1), r1 = outerReads(st, *e1), w2 = outerWrites(st, *x2), r2 = outerReads(st, e2);
  for (auto& n : w1)
    if (n != a.data() && (r2.count(n) || w2.count(n)))
      return Refusal{"both maps access '" + n + "', which the first map writes", "fusion would reorder the accesses"};
  for (auto& n : w2)
    if (r1.count(n)) return Refusal{"the second map writes '" + n + "', which the first map reads", "fusion would reorder the accesses"};
  return std::nullopt;
}

bool MapFusion::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto b = Binding::resolve(match, root);
  if (!holds(b, whyNot)) return false;
  auto* x1 = b->get<MapExit>("first_exit");
  auto* a = b->get<AccessNode>("array");
  auto* e2 = b->get<MapEntry>("second_entry");
  const std::string& path = match.elements.at("array");
  if (!x1 || !a || !e2) {
    if (whyNot) whyNot->error(path, "the match does not have the shape " + pattern().describe());
    return false;
  }
  if (x1->parent() != a->parent() || a->parent() != e2->parent()) {
    if (whyNot) whyNot->error(path, "the nodes are not in one state");
    return false;
  }
  if (auto r = checkProducerConsumer(*a->parent(), *x1, *a, *e2)) {
    if (whyNot) whyNot->error(path, r->message, r->hint);
    return false;
  }
  return true;
}

void MapFusion::fuseInto(edit::Editor& ed, State& st, MapEntry& e1, MapEntry& e2, const std::set<std::string>& locals) {
  MapExit* x1 = scope::exitOf(st, e1);
  MapExit* x2 = scope::exitOf(st, e2);
  Sdfg& sdfg = *owningSdfg(&st);
  auto ren = sameIterationSpace(e1, e2).value_or(std::map<std::string, std::string>{});
  SymMap rename;
  for (auto& [from, to] : ren) rename[from] = sym::Expr::symbol(to);

  // 1. Rename the second map's parameters in its body.
  auto inside = scope::nodesInside(st, e2);
  std::set<ElementId> body;
  for (auto* n : inside) body.insert(n->id());
  if (!rename.empty()) {
    for (auto* n : inside) {
      if (auto* t = dynamic_cast<Tasklet*>(n)) {
        if (t->language == TaskletLanguage::Dcw) {
          std::string code = renameSymbolsInCode(*t, ren);
          if (code != t->code) ed.set(*t, &Tasklet::code, code);
        }
      } else if (auto* me = dynamic_cast<MapEntry*>(n)) {
        ed.set(*me, &MapEntry::range, me->range.substituted(rename));
      } else if (auto* ns = dynamic_cast<NestedSdfgNode*>(n)) {
        auto sm = ns->symbolMapping;
        for (auto& [k, v] : sm) v = v.substitute(rename);
        ed.set(*ns, &NestedSdfgNode::symbolMapping, sm);
      }
    }
    std::vector<DataflowEdge*> inner;
    for (auto& e : st.edges()) {
      bool srcIn = body.count(e->src) || e->src == e2.id();
      bool dstIn = body.count(e->dst) || e->dst == x2->id();
      if (srcIn && dstIn && !e->memlet.isEmpty()) inner.push_back(e.get());
    }
    for (auto* e : inner) {
      Memlet m = e->memlet.substituted(rename);
      if (!(m == e->memlet)) ed.set(*e, &DataflowEdge::memlet, m);
    }
  }

  // 2. The intermediate arrays become scalars local to an iteration.
  for (const std::string& data : locals) {
    DataflowEdge* outer = nullptr;
    for (auto* e : st.outEdges(x1->id()))
      if (e->memlet.data == data) outer = e;
    if (!outer) continue;
    auto* arrayNode = dynamic_cast<AccessNode*>(st.node(outer->dst));
    std::string base = scope::swapPrefix(outer->srcConnector, "OUT_", "");
    DataflowEdge* prod = nullptr;
    for (auto* e : st.inEdges(x1->id()))
      if (e->dstConnector == "IN_" + base) prod = e;
    DType dt = sdfg.findData(data)->dtype;
    Node* producer = st.node(prod->src);
    std::vector<std::pair<Node*, std::string>> consumers;
    for (auto* e : st.outEdges(arrayNode->id()))
      for (auto* ie : st.outEdges(e->dst))
        if (ie->srcConnector == "OUT_" + scope::swapPrefix(e->dstConnector, "IN_", "")) consumers.push_back({st.node(ie->dst), ie->dstConnector});
    std::string prodConn = prod->srcConnector;
    // Remove the array (node, edges, descriptor) and declare the scalar under the same name.
    ed.removeNode(st, arrayNode->id());
    ed.removeEdge(st, prod->id());
    ed.removeInConnector(*x1, "IN_" + base);
    ed.removeOutConnector(*x1, "OUT_" + base);
    ed.removeData(sdfg, data);
    ed.addTransient(sdfg, data, dt, {});
    auto* local = ed.add<AccessNode>(st, data);
    Memlet m = Memlet::simple(data, Subset());
    ed.addEdge(st, *producer, prodConn, *local, "", m);
    for (auto& [n, conn] : consumers) ed.addEdge(st, *local, "", *n, conn, m);
  }

  // 3. The second map's inputs: through the first map's entry (or from the locals).
  std::set<std::string> takenIn;
  for (auto* outerIn : st.inEdges(e2.id())) {
    Node* src = st.node(outerIn->src);
    std::string base2 = scope::swapPrefix(outerIn->dstConnector, "IN_", "");
    std::vector<DataflowEdge*> innerOut;
    for (auto* e : st.outEdges(e2.id()))
      if (!outerIn->dstConnector.empty() && e->srcConnector == "OUT_" + base2) innerOut.push_back(e);
    if (outerIn->memlet.isEmpty()) {
      if (src != x1) ed.addEdge(st, *src, outerIn->srcConnector, e1, "", Memlet{});
      continue;
    }
    // Reuse a connector of the first entry fed by the same node with the same memlet.
    std::string base;
    for (auto* e : st.inEdges(e1.id()))
      if (e->src == outerIn->src && e->srcConnector == outerIn->srcConnector && e->memlet == outerIn->memlet &&
          e->dstConnector.rfind("IN_", 0) == 0 && e1.findOut("OUT_" + scope::swapPrefix(e->dstConnector, "IN_", "")))
        base = scope::swapPrefix(e->dstConnector, "IN_", "");
    if (base.empty()) {
      base = uniqueConnector(e1, outerIn->memlet.data, takenIn);
      takenIn.insert(base);
      ed.addInConnector(e1, {"IN_" + base});
      ed.addOutConnector(e1, {"OUT_" + base});
      ed.addEdge(st, *src, outerIn->srcConnector, e1, "IN_" + base, outerIn->memlet);
    }
    for (auto* e : innerOut) ed.addEdge(st, e1, "OUT_" + base, *st.node(e->dst), e->dstConnector, e->memlet);
  }
  for (auto* e : st.outEdges(e2.id()))
    if (e->srcConnector.empty() && e->memlet.isEmpty()) ed.addEdge(st, e1, "", *st.node(e->dst), e->dstConnector, Memlet{});

  // 4. The second map's outputs: through the first map's exit.
  std::set<std::string> takenOut;
  for (auto* outerOut : st.outEdges(x2->id())) {
    Node* dst = st.node(outerOut->dst);
    if (outerOut->memlet.isEmpty()) {
      ed.addEdge(st, *x1, "", *dst, outerOut->dstConnector, Memlet{});
      continue;
    }
    std::string base2 = scope::swapPrefix(outerOut->srcConnector, "OUT_", "");
    std::string base = uniqueConnector(*x1, outerOut->memlet.data, takenOut);
    takenOut.insert(base);
    ed.addInConnector(*x1, {"IN_" + base});
    ed.addOutConnector(*x1, {"OUT_" + base});
    for (auto* e : st.inEdges(x2->id()))
      if (e->dstConnector == "IN_" + base2) ed.addEdge(st, *st.node(e->src), e->srcConnector, *x1, "IN_" + base, e->memlet);
    ed.addEdge(st, *x1, "OUT_" + base, *dst, outerOut->dstConnector, outerOut->memlet);
  }
  for (auto* e : st.inEdges(x2->id()))
    if (e->dstConnector.empty() && e->memlet.isEmpty()) ed.addEdge(st, *st.node(e->src), e->srcConnector, *x1, "", Memlet{});

  // 5. The second map's ends go.
  ed.removeNode(st, x2->id());
  ed.removeNode(st, e2.id());
}

Expected<void> MapFusion::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  auto* x1 = b.get<MapExit>("first_exit");
  auto* a = b.get<AccessNode>("array");
  auto* e2 = b.get<MapEntry>("second_entry");
  State& st = *a->parent();
  auto* e1 = dynamic_cast<MapEntry*>(st.node(x1->entryId));
  fuseInto(ed, st, *e1, *e2, {a->data()});
  return {};
}

} // namespace dcw::transforms
