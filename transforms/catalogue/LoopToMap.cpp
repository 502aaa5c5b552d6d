#include "transforms/catalogue/LoopToMap.h"

#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Tasklet.h"
#include "transforms/Binding.h"

#include <map>
#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

struct LoopToMapPlan {
  LoopRegion* loop = nullptr;
  ControlFlowRegion* region = nullptr;
  State* body = nullptr;
  std::string var;
  sym::Expr begin, end;
};

bool insideLoop(const ControlFlowBlock* b, const LoopRegion* loop) {
  for (; b; b = b->parent())
    if (b == loop) return true;
  return false;
}

bool analyseLoopToMap(const Match& match, const Sdfg& root, LoopToMapPlan& p, Diagnostics* whyNot) {
  auto bind = Binding::resolve(match, root);
  if (!holds(bind, whyNot)) return false;
  const std::string& path = match.elements.at("loop");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  p.loop = bind->get<LoopRegion>("loop");
  if (!p.loop) return fail("is not a loop region");
  p.region = dynamic_cast<ControlFlowRegion*>(p.loop->parent());
  if (!p.region) return fail("the loop is not inside a region");
  p.var = p.loop->loopVariable;
  if (p.var.empty()) return fail("the loop has no loop variable (a while loop)");
  const sym::Expr i = sym::Expr::symbol(p.var);
  if (p.loop->update != i + sym::Expr(1))
    return fail("the loop's update is " + p.var + " = " + p.loop->update.str() + ", not " + p.var + " + 1",
                "only unit-step loops become maps");
  const sym::Expr& c = p.loop->condition;
  if (c.op() != sym::Op::Lt || c.operands().size() != 2 || c.operands()[0] != i)
    return fail("the loop's condition " + c.str() + " is not of the form " + p.var + " < end");
  p.begin = p.loop->init;
  p.end = c.operands()[1];
  if (p.begin.freeSymbols().count(p.var) || p.end.freeSymbols().count(p.var))
    return fail("the loop's bounds depend on the loop variable");
  if (p.loop->blocks().size() != 1 || !p.loop->edges().empty() || !dynamic_cast<State*>(p.loop->blocks()[0].get()))
    return fail("the loop body is not a single state", "fuse its states first (StateFusion)");
  p.body = static_cast<State*>(p.loop->blocks()[0].get());
  const Sdfg* sdfg = owningSdfg(p.body);
  for (auto& n : p.body->nodes()) {
    if (dynamic_cast<NestedSdfgNode*>(n.get())) return fail("the loop body holds the nested SDFG '" + n->label() + "'");
    if (auto* lib = dynamic_cast<LibraryNode*>(n.get()); lib && !lib->subgraphs().empty())
      return fail("the loop body holds '" + n->label() + "', a library node with subgraphs");
  }

  // Independence: every written container is indexed by exactly i in one dimension everywhere.
  std::set<std::string> written;
  for (auto& n : p.body->nodes())
    if (auto* an = dynamic_cast<AccessNode*>(n.get()); an && !p.body->inEdges(an->id()).empty()) written.insert(an->data());
  if (written.empty()) return fail("the loop body writes nothing");
  for (const std::string& d : written) {
    std::optional<size_t> dim;
    for (auto& e : p.body->edges()) {
      if (e->memlet.data != d) continue;
      if (!e->memlet.wcr.empty())
        return fail("the body writes '" + d + "' with write-conflict resolution (" + e->memlet.wcr + ")",
                    "iterations would combine their results");
      auto indexed = [&](size_t k) {
        const Range& r = e->memlet.subset[k];
        return r.begin == i && r.end == i + sym::Expr(1);
      };
      if (!dim) {
        for (size_t k = 0; k < e->memlet.subset.rank() && !dim; ++k)
          if (indexed(k)) dim = k;
        if (!dim)
          return fail("the body accesses '" + d + "' at " + e->memlet.str() + ", not at index " + p.var + " in any dimension",
                      "iterations must write disjoint slices and read only their own");
      } else if (*dim >= e->memlet.subset.rank() || !indexed(*dim)) {
        return fail("the body accesses '" + d + "' at " + e->memlet.str() + ", another slice than its iteration's",
                    "iterations must write disjoint slices and read only their own");
      }
      if (e->memlet.otherSubset) return fail("the body copies '" + d + "' between containers", "not supported");
    }
  }
  // The loop variable must not be needed after the loop.
  for (State* st : sdfg->allStates()) {
    if (insideLoop(st, p.loop)) continue;
    for (auto& e : st->edges())
      if (e->memlet.subset.freeSymbols().count(p.var) || e->memlet.volume.freeSymbols().count(p.var))
        return fail("the loop variable '" + p.var + "' is used outside the loop (" + pathOf(*st) + ")");
  }
  for (auto& e : p.region->edges()) {
    bool uses = e->condition.freeSymbols().count(p.var) > 0;
    for (auto& [n, v] : e->assignments) uses |= v.freeSymbols().count(p.var) > 0;
    if (uses) return fail("the loop variable '" + p.var + "' is used by an interstate edge after the loop");
  }
  return true;
}

} // namespace

const Pattern& LoopToMap::pattern() const {
  static const Pattern p = Pattern::controlFlow({{"loop", {ElementKind::LoopRegion}}});
  return p;
}

bool LoopToMap::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  LoopToMapPlan p;
  return analyseLoopToMap(match, root, p, whyNot);
}

Expected<void> LoopToMap::apply(const Match& match, edit::Editor& ed) const {
  LoopToMapPlan p;
  if (auto ok = analyseForApply(analyseLoopToMap, match, ed.root(), p, "loop"); !ok) return ok;
  State& body = *p.body;
  Sdfg& sdfg = *owningSdfg(p.body);
  ControlFlowRegion& region = *p.region;
  const std::string label = p.loop->label();
  const ElementId loopId = p.loop->id();
  const bool wasStart = region.startBlock() == loopId;
  struct Link {
    ElementId other;
    sym::Expr condition;
    std::vector<std::pair<std::string, sym::Expr>> assignments;
  };
  std::vector<Link> ins, outs;
  for (auto* e : region.inEdges(loopId)) ins.push_back({e->src, e->condition, e->assignments});
  for (auto* e : region.outEdges(loopId)) outs.push_back({e->dst, e->condition, e->assignments});

  // The new state (the loop's label once the loop is gone) and the map.
  ed.removeBlock(region, loopId);
  State* st = ed.addState(region, label);
  if (st->label() != label && !region.blockByLabel(label)) ed.relabel(*st, label); // addState always numbers
  auto link = [&](ElementId src, ElementId dst, const Link& l) {
    InterstateEdge* e = ed.addInterstateEdge(region, src, dst, l.condition);
    if (!l.assignments.empty()) ed.set(*e, &InterstateEdge::assignments, l.assignments);
  };
  for (auto& l : ins) link(l.other, st->id(), l);
  for (auto& l : outs) link(st->id(), l.other, l);
  if (wasStart) ed.setStartBlock(region, st->id());

  auto* me = ed.add<MapEntry>(*st, label + "_map");
  auto* mx = ed.add<MapExit>(*st, label + "_map_exit");
  me->params = {p.var};
  me->range = Subset({Range{p.begin, p.end, sym::Expr(1)}});
  me->exitId = mx->id();
  mx->entryId = me->id();

  // Sources outside before the map, sinks outside after it, everything else inside.
  std::map<ElementId, Node*> inside;
  std::map<ElementId, std::pair<Node*, std::string>> viaEntry, viaExit; // body node -> (outer node, conn)
  std::set<std::string> usedConn;
  auto conn = [&](const std::string& d) {
    std::string c = d;
    for (int k = 1; usedConn.count(c); ++k) c = d + "_" + std::to_string(k);
    usedConn.insert(c);
    return c;
  };
  for (auto& n : body.nodes()) {
    bool hasIn = !body.inEdges(n->id()).empty(), hasOut = !body.outEdges(n->id()).empty();
    if (auto* an = dynamic_cast<AccessNode*>(n.get())) {
      if (!hasIn && !hasOut) continue;
      const DataDescriptor* d = sdfg.findData(an->data());
      if (!hasIn) {
        Node* outer = ed.add<AccessNode>(*st, an->data());
        std::string c = conn(an->data());
        ed.addInConnector(*me, Connector{"IN_" + c});
        ed.addOutConnector(*me, Connector{"OUT_" + c});
        ed.addEdge(*st, *outer, "", *me, "IN_" + c, Memlet::full(an->data(), d->shape));
        viaEntry[n->id()] = {me, "OUT_" + c};
        continue;
      }
      if (!hasOut) {
        Node* outer = ed.add<AccessNode>(*st, an->data());
        std::string c = conn(an->data());
        ed.addInConnector(*mx, Connector{"IN_" + c});
        ed.addOutConnector(*mx, Connector{"OUT_" + c});
        ed.addEdge(*st, *mx, "OUT_" + c, *outer, "", Memlet::full(an->data(), d->shape));
        viaExit[n->id()] = {mx, "IN_" + c};
        continue;
      }
    }
    auto c = n->clone();
    if (auto* an = dynamic_cast<AccessNode*>(c.get())) an->setLabel(an->data()); // the map's state names it anew
    inside[n->id()] = ed.addNode(*st, std::move(c));
  }
  relinkMapCopies(inside);
  for (auto& e : body.edges()) {
    Node* src = nullptr;
    std::string srcConn = e->srcConnector;
    if (auto it = viaEntry.find(e->src); it != viaEntry.end()) {
      src = it->second.first;
      srcConn = e->memlet.isEmpty() ? "" : it->second.second;
    } else {
      src = inside.at(e->src);
    }
    Node* dst = nullptr;
    std::string dstConn = e->dstConnector;
    if (auto it = viaExit.find(e->dst); it != viaExit.end()) {
      dst = it->second.first;
      dstConn = e->memlet.isEmpty() ? "" : it->second.second;
    } else {
      dst = inside.at(e->dst);
    }
    ed.addEdge(*st, *src, srcConn, *dst, dstConn, e->memlet);
  }
  // Nodes inside without inputs stay in the map's scope through an empty memlet.
  for (auto& [old, nn] : inside)
    if (body.inEdges(old).empty()) ed.addEdge(*st, *me, "", *nn, "", Memlet{});
  return {};
}

} // namespace dcw::transforms
