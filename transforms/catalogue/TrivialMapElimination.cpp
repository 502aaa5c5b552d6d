#include "transforms/catalogue/TrivialMapElimination.h"

#include "core/ir/LibraryNode.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Tasklet.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/ScopeTools.h"

#include <algorithm>
#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

std::vector<size_t> trivialDims(const MapEntry& me) {
  std::vector<size_t> out;
  for (size_t d = 0; d < me.params.size(); ++d)
    if (auto n = me.range[d].size().evaluate({}); n && *n == 1) out.push_back(d);
  return out;
}

} // namespace

const Pattern& TrivialMapElimination::pattern() const {
  static const Pattern p = Pattern::node("entry", {ElementKind::MapEntry});
  return p;
}

bool TrivialMapElimination::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto* me = resolveMapEntry(match, root, "entry", whyNot, /*needsParams=*/false);
  if (!me) return false;
  const std::string& path = match.elements.at("entry");
  auto dims = trivialDims(*me);
  if (dims.empty()) {
    if (whyNot) whyNot->error(path, "no dimension of the map has exactly one iteration");
    return false;
  }
  const State& st = *me->parent();
  std::set<std::string> names;
  std::map<std::string, sym::Expr> values;
  for (size_t d : dims) {
    names.insert(me->params[d]);
    values[me->params[d]] = me->range[d].begin;
  }
  for (Node* n : scope::nodesInside(st, *me)) {
    if (dynamic_cast<LibraryNode*>(n)) {
      if (whyNot)
        whyNot->error(path, "the map contains the library node " + n->label(), "expand the library node first");
      return false;
    }
    if (auto* t = dynamic_cast<Tasklet*>(n)) {
      std::string problem;
      if (scope::taskletUses(*t, names, &problem)) {
        if (!problem.empty()) {
          if (whyNot) whyNot->error(path, problem);
          return false;
        }
        for (auto& [p, v] : values)
          if (!scope::taskletCanWrite(v)) {
            if (whyNot) whyNot->error(path, "the value " + v.str() + " of " + p + " cannot be written in tasklet code");
            return false;
          }
      }
    }
  }
  return true;
}

Expected<void> TrivialMapElimination::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  auto* me = b.get<MapEntry>("entry");
  State& st = *me->parent();
  MapExit* mx = scope::exitOf(st, *me);
  auto dims = trivialDims(*me);
  std::map<std::string, sym::Expr> values;
  for (size_t d : dims) values[me->params[d]] = me->range[d].begin;
  DCW_CHECK(scope::substituteInBody(ed, st, *me, values));

  if (dims.size() < me->params.size()) {
    std::vector<std::string> params;
    std::vector<Range> ranges;
    for (size_t d = 0; d < me->params.size(); ++d) {
      if (std::find(dims.begin(), dims.end(), d) != dims.end()) continue;
      params.push_back(me->params[d]);
      const Range& r = me->range[d];
      ranges.push_back(Range{r.begin.substitute(values), r.end.substitute(values), r.step.substitute(values)});
    }
    ed.set(*me, &MapEntry::params, params);
    ed.set(*me, &MapEntry::range, Subset(ranges));
    return {};
  }

  // No dimension left: connect the body to the outside directly and remove both ends.
  struct NewEdge {
    ElementId src;
    std::string srcConn;
    ElementId dst;
    std::string dstConn;
    Memlet memlet;
  };
  std::vector<NewEdge> add;
  for (auto* e : st.outEdges(me->id())) {
    const DataflowEdge* outer = nullptr;
    if (e->srcConnector.rfind("OUT_", 0) == 0)
      for (auto* in : st.inEdges(me->id()))
        if (in->dstConnector == "IN_" + e->srcConnector.substr(4)) outer = in;
    if (!outer) {
      if (e->memlet.isEmpty()) continue; // ordering inside the map only
      return fail(pathOf(*me), "the map's connector " + e->srcConnector + " has no edge from outside");
    }
    add.push_back({outer->src, outer->srcConnector, e->dst, e->dstConnector, e->memlet});
  }
  for (auto* e : st.inEdges(mx->id())) {
    const DataflowEdge* outer = nullptr;
    if (e->dstConnector.rfind("IN_", 0) == 0)
      for (auto* out : st.outEdges(mx->id()))
        if (out->srcConnector == "OUT_" + e->dstConnector.substr(3)) outer = out;
    if (!outer) {
      if (e->memlet.isEmpty()) continue;
      return fail(pathOf(*mx), "the map's connector " + e->dstConnector + " has no edge to outside");
    }
    add.push_back({e->src, e->srcConnector, outer->dst, outer->dstConnector, e->memlet});
  }
  // Ordering edges (empty memlets) into the entry or out of the exit now order the body itself: each
  // body node the entry feeds (or that feeds the exit) once, on no connector (its data connectors keep
  // their one edge each).
  std::set<std::pair<ElementId, ElementId>> ordered;
  for (auto* in : st.inEdges(me->id()))
    if (in->memlet.isEmpty() && in->dstConnector.empty())
      for (auto* e : st.outEdges(me->id()))
        if (ordered.insert({in->src, e->dst}).second) add.push_back({in->src, in->srcConnector, e->dst, "", Memlet{}});
  for (auto* out : st.outEdges(mx->id()))
    if (out->memlet.isEmpty() && out->srcConnector.empty())
      for (auto* e : st.inEdges(mx->id()))
        if (ordered.insert({e->src, out->dst}).second) add.push_back({e->src, "", out->dst, out->dstConnector, Memlet{}});
  ElementId entryId = me->id(), exitId = mx->id();
  ed.removeNode(st, exitId);
  ed.removeNode(st, entryId);
  for (auto& n : add) ed.addEdge(st, *st.node(n.src), n.srcConn, *st.node(n.dst), n.dstConn, n.memlet);
  return {};
}

} // namespace dcw::transforms
