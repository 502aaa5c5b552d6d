#include "transforms/catalogue/InlineNestedSDFG.h"

#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Tasklet.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/GraphTools.h"
#include "transforms/catalogue/ScopeTools.h"

#include <map>
#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

// Where an inner connector's data lives outside: the outer access node and the index offset.
struct OuterEnd {
  const DataflowEdge* edge = nullptr;
  AccessNode* node = nullptr;
  std::vector<sym::Expr> offset;
};

struct InlineNestedSDFGPlan {
  State* outerState = nullptr;
  Sdfg* outer = nullptr;
  NestedSdfgNode* nsdfg = nullptr;
  State* inner = nullptr;
  std::map<std::string, OuterEnd> ins, outs;     // connector -> outer end
  std::map<std::string, sym::Expr> symbols;      // non-identity inner symbol -> outer expression
  std::set<ElementId> finalWriters;              // inner write nodes that become the outer output nodes
};

std::set<ElementId> reachable(const State& st, ElementId from) {
  std::set<ElementId> seen;
  std::vector<ElementId> stack{from};
  while (!stack.empty()) {
    ElementId n = stack.back();
    stack.pop_back();
    for (auto* e : st.outEdges(n))
      if (seen.insert(e->dst).second) stack.push_back(e->dst);
  }
  return seen;
}

// Fills `plan` or reports why the node cannot be inlined.
bool analyseInlineNestedSDFG(const Match& match, const Sdfg& root, InlineNestedSDFGPlan& plan, Diagnostics* whyNot) {
  auto b = Binding::resolve(match, root);
  if (!holds(b, whyNot)) return false;
  const std::string& path = match.elements.at("node");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  auto* ns = b->get<NestedSdfgNode>("node");
  if (!ns) return fail("is not a nested SDFG node");
  plan.nsdfg = ns;
  plan.outerState = ns->parent();
  plan.outer = owningSdfg(ns);
  if (!plan.outerState || !plan.outer) return fail("is not part of a state");
  Sdfg& in = ns->sdfg();
  if (in.blocks().size() != 1 || !dynamic_cast<State*>(in.blocks()[0].get()) || !in.edges().empty())
    return fail("the nested SDFG has " + std::to_string(in.blocks().size()) + " blocks; only a single state can be inlined",
                "fuse its states first (StateFusion), or keep it nested");
  plan.inner = static_cast<State*>(in.blocks()[0].get());
  if (scope::enclosing(*plan.outerState, *ns))
    return fail("the nested SDFG lies inside a map", "only nested SDFGs at the top level of a state are inlined");

  // Symbols: mapped, or the same symbol outside.
  std::set<std::string> innerParams;
  for (auto& n : plan.inner->nodes()) {
    if (auto* me = dynamic_cast<MapEntry*>(n.get())) innerParams.insert(me->params.begin(), me->params.end());
    if (dynamic_cast<NestedSdfgNode*>(n.get()))
      return fail("the nested SDFG contains the nested SDFG '" + n->label() + "'", "inline the innermost nested SDFG first");
    if (auto* lib = dynamic_cast<LibraryNode*>(n.get()); lib && !lib->subgraphs().empty())
      return fail("the nested SDFG contains '" + n->label() + "', a library node with subgraphs", "expand it first");
  }
  for (auto& [s, type] : in.symbols()) {
    auto it = ns->symbolMapping.find(s);
    if (it == ns->symbolMapping.end()) {
      if (!plan.outer->symbols().count(s)) return fail("the inner symbol '" + s + "' has no value outside", "add it to the symbol mapping");
      continue;
    }
    if (it->second == sym::Expr::symbol(s)) continue;
    for (auto& f : it->second.freeSymbols())
      if (innerParams.count(f))
        return fail("the symbol mapping " + s + " = " + it->second.str() + " would be captured by an inner map parameter '" + f + "'");
    for (auto& n : plan.inner->nodes())
      if (auto* t = dynamic_cast<Tasklet*>(n.get()); t && graph::containsIdentifier(t->code, s))
        return fail("the tasklet '" + t->label() + "' uses the mapped symbol '" + s + "' in its code");
    plan.symbols[s] = it->second;
  }

  // The node's edges: one per connector, to or from an access node, composing with a simple subset.
  auto outerEnd = [&](const DataflowEdge& e, bool input, const std::string& conn, OuterEnd& end) {
    const DataDescriptor* id = in.findData(conn);
    if (!id || id->transient) return fail("the connector '" + conn + "' is not a non-transient data of the nested SDFG");
    auto* an = dynamic_cast<AccessNode*>(plan.outerState->node(input ? e.src : e.dst));
    if (!an) return fail("the connector '" + conn + "' is not connected to an access node");
    const DataDescriptor* od = plan.outer->findData(an->data());
    if (!od) return fail("the outer data '" + an->data() + "' does not exist");
    if (!e.memlet.wcr.empty()) return fail("the edge of '" + conn + "' has write-conflict resolution (" + e.memlet.wcr + ")");
    if (e.memlet.data != an->data()) return fail("the memlet of '" + conn + "' does not name the outer data '" + an->data() + "'");
    if (od->dtype != id->dtype)
      return fail("'" + conn + "' is " + std::string(dtypeName(id->dtype)) + " inside but '" + an->data() + "' is " +
                  std::string(dtypeName(od->dtype)));
    if (!od->rankKnown || !id->rankKnown || !od->wrappers.empty() || !id->wrappers.empty())
      return fail("'" + conn + "' is not a plain tensor of known rank");
    const Subset& s = e.memlet.subset;
    if (s.rank() != id->shape.size())
      return fail("the outer memlet " + e.memlet.str() + " has rank " + std::to_string(s.rank()) + " but '" + conn +
                      "' has rank " + std::to_string(id->shape.size()),
                  "only memlets whose subset has the inner container's shape (e.g. the whole container) are composed");
    end.edge = &e;
    end.node = an;
    for (size_t d = 0; d < s.rank(); ++d) {
      const Range& r = s[d];
      sym::Expr innerDim = id->shape[d].substitute(plan.symbols);
      if (r.step != sym::Expr(1)) return fail("the outer memlet " + e.memlet.str() + " has a non-unit step");
      if (proveEqual(r.size(), innerDim) != true)
        return fail("the outer memlet " + e.memlet.str() + " does not have the shape of '" + conn + "' in dimension " +
                        std::to_string(d),
                    "only memlets whose subset has the inner container's shape (e.g. the whole container) are composed");
      end.offset.push_back(r.begin);
    }
    return true;
  };
  for (auto* e : plan.outerState->inEdges(ns->id())) {
    if (e->memlet.isEmpty()) return fail("the node has an empty (ordering) input edge");
    if (plan.ins.count(e->dstConnector)) return fail("the input connector '" + e->dstConnector + "' has several edges");
    if (!outerEnd(*e, true, e->dstConnector, plan.ins[e->dstConnector])) return false;
  }
  for (auto* e : plan.outerState->outEdges(ns->id())) {
    if (e->memlet.isEmpty()) return fail("the node has an empty (ordering) output edge");
    if (plan.outs.count(e->srcConnector)) return fail("the output connector '" + e->srcConnector + "' has several edges");
    if (plan.ins.count(e->srcConnector))
      return fail("the connector '" + e->srcConnector + "' is both an input and an output", "keep in-place nested SDFGs nested");
    if (!outerEnd(*e, false, e->srcConnector, plan.outs[e->srcConnector])) return false;
  }

  // Inner access nodes of non-transient data must map onto those ends. Of several inner writes of
  // an output, the last (every other one reaches it) takes the outer node; the others become new
  // access nodes of the outer data.
  std::map<std::string, std::vector<ElementId>> writers;
  for (auto& n : plan.inner->nodes()) {
    auto* an = dynamic_cast<AccessNode*>(n.get());
    if (!an) continue;
    const DataDescriptor* d = in.findData(an->data());
    if (!d) return fail("the inner access node '" + an->label() + "' names unknown data");
    if (d->transient) continue;
    bool written = !plan.inner->inEdges(an->id()).empty();
    bool read = !plan.inner->outEdges(an->id()).empty();
    if (written) {
      if (!plan.outs.count(an->data()))
        return fail("the nested SDFG writes '" + an->data() + "', which is not a connected output");
      writers[an->data()].push_back(an->id());
    } else if (read && !plan.ins.count(an->data())) {
      return fail("the nested SDFG reads '" + an->data() + "', which is not a connected input");
    }
  }
  for (auto& [data, ids] : writers) {
    if (ids.size() == 1) {
      plan.finalWriters.insert(ids[0]);
      continue;
    }
    ElementId last = kNoId;
    for (ElementId c : ids) {
      auto below = reachable(*plan.inner, c);
      bool others = false;
      for (ElementId o : ids) others |= o != c && below.count(o);
      if (!others) {
        if (last != kNoId) return fail("the nested SDFG writes '" + data + "' through unordered access nodes");
        last = c;
      }
    }
    for (ElementId c : ids)
      if (c != last && !reachable(*plan.inner, c).count(last))
        return fail("the nested SDFG writes '" + data + "' through unordered access nodes");
    plan.finalWriters.insert(last);
  }
  return true;
}

sym::Expr subst(const sym::Expr& e, const std::map<std::string, sym::Expr>& m) { return m.empty() ? e : e.substitute(m); }

} // namespace

const Pattern& InlineNestedSDFG::pattern() const {
  static const Pattern p = Pattern::node("node", {ElementKind::NestedSdfg});
  return p;
}

bool InlineNestedSDFG::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  InlineNestedSDFGPlan plan;
  return analyseInlineNestedSDFG(match, root, plan, whyNot);
}

Expected<void> InlineNestedSDFG::apply(const Match& match, edit::Editor& ed) const {
  InlineNestedSDFGPlan plan;
  if (auto ok = analyseForApply(analyseInlineNestedSDFG, match, ed.root(), plan, "node", "cannot be inlined"); !ok) return ok;
  Sdfg& in = plan.nsdfg->sdfg();
  State& st = *plan.outerState;
  Sdfg& outer = *plan.outer;
  const std::string label = plan.nsdfg->label();

  // Transients first: fresh names in the outer SDFG.
  std::map<std::string, std::string> rename;
  std::set<std::string> taken;
  auto isTaken = [&](const std::string& n) { return outer.findData(n) || taken.count(n); };
  for (auto& d : in.data()) {
    if (!d->transient) continue;
    std::string name = d->name();
    if (isTaken(name)) name = label + "_" + d->name();
    for (int k = 1; isTaken(name); ++k) name = label + "_" + d->name() + "_" + std::to_string(k);
    taken.insert(name);
    rename[d->name()] = name;
  }
  // The outer ends, by their ids (the nested node's edges go away with it).
  struct End {
    ElementId node;
    std::vector<sym::Expr> offset;
    std::string data;
  };
  std::map<std::string, End> ins, outs;
  for (auto& [c, e] : plan.ins) ins[c] = {e.node->id(), e.offset, e.node->data()};
  for (auto& [c, e] : plan.outs) outs[c] = {e.node->id(), e.offset, e.node->data()};

  // The removed node (and its nested SDFG, read below) stays alive in the journal.
  ed.removeNode(st, plan.nsdfg->id());
  for (auto& d : in.data()) {
    if (!d->transient) continue;
    auto nd = d->clone();
    nd->setLabel(rename[d->name()]);
    for (auto& s : nd->shape) s = subst(s, plan.symbols);
    for (auto& s : nd->strides) s = subst(s, plan.symbols);
    nd->offset = subst(nd->offset, plan.symbols);
    ed.addData(outer, std::move(nd));
  }

  // Nodes: inner access nodes of connectors map to outer ends; everything else is copied.
  // For a non-transient inner node, `asSource` is the outer node its out-edges start from and `asSink`
  // the one its in-edges end at.
  struct Mapped {
    Node* asSource = nullptr;
    Node* asSink = nullptr;
  };
  std::map<ElementId, Mapped> map;
  std::map<ElementId, Node*> copies; // the copied (non-access) nodes
  for (auto& n : plan.inner->nodes()) {
    if (auto* an = dynamic_cast<AccessNode*>(n.get())) {
      const DataDescriptor* d = in.findData(an->data());
      if (d->transient) {
        Node* nn = ed.addNode(st, std::make_unique<AccessNode>(rename[an->data()]));
        map[an->id()] = {nn, nn};
        continue;
      }
      bool written = !plan.inner->inEdges(an->id()).empty();
      if (written && !plan.finalWriters.count(an->id())) {
        Node* nn = ed.addNode(st, std::make_unique<AccessNode>(outs.at(an->data()).data));
        map[an->id()] = {nn, nn};
        continue;
      }
      Mapped m;
      if (outs.count(an->data())) m.asSink = st.node(outs[an->data()].node);
      if (written) m.asSource = m.asSink;
      else if (ins.count(an->data())) m.asSource = st.node(ins[an->data()].node);
      map[an->id()] = m;
      continue;
    }
    auto c = n->clone();
    if (auto* me = dynamic_cast<MapEntry*>(c.get())) me->range = me->range.substituted(plan.symbols);
    Node* nn = ed.addNode(st, std::move(c));
    map[n->id()] = {nn, nn};
    copies[n->id()] = nn;
  }
  relinkMapCopies(copies);

  // Memlets: rename transients, substitute symbols, offset connector data by the outer subset.
  auto dataOf = [&](const std::string& innerData, std::vector<sym::Expr>** offset) -> std::string {
    *offset = nullptr;
    if (rename.count(innerData)) return rename[innerData];
    auto* tbl = ins.count(innerData) ? &ins : outs.count(innerData) ? &outs : nullptr;
    if (!tbl) return innerData;
    End& end = tbl->at(innerData);
    *offset = &end.offset;
    return end.data;
  };
  for (auto& e : plan.inner->edges()) {
    const Mapped& s = map.at(e->src);
    const Mapped& d = map.at(e->dst);
    Node* src = s.asSource;
    Node* dst = d.asSink;
    Memlet m = e->memlet;
    if (!m.isEmpty()) {
      auto* srcAn = dynamic_cast<AccessNode*>(plan.inner->node(e->src));
      auto* dstAn = dynamic_cast<AccessNode*>(plan.inner->node(e->dst));
      std::vector<sym::Expr>* off = nullptr;
      const std::string innerData = m.data;
      m.data = dataOf(innerData, &off);
      m.subset = m.subset.substituted(plan.symbols);
      if (off) m.subset = m.subset.shifted(*off);
      m.volume = subst(m.volume, plan.symbols);
      if (m.otherSubset) {
        // A copy between access nodes: the other subset belongs to the end not named by the memlet.
        const AccessNode* other = srcAn && srcAn->data() == innerData ? dstAn : srcAn;
        std::vector<sym::Expr>* off2 = nullptr;
        if (other) dataOf(other->data(), &off2);
        m.otherSubset = m.otherSubset->substituted(plan.symbols);
        if (off2) m.otherSubset = m.otherSubset->shifted(*off2);
      }
    }
    ed.addEdge(st, *src, e->srcConnector, *dst, e->dstConnector, m);
  }
  return {};
}

} // namespace dcw::transforms
