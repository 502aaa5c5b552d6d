#include "transforms/catalogue/TrivialMapElimination.h"

#include "core/ir/LibraryNode.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Tasklet.h"
#include "core/tasklet/TaskletCode.h"
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

bool usesName(const tasklet::ExprPtr& e, const std::string& name) {
  if (!e) return false;
  if ((e->kind == tasklet::ExprKind::Name || e->kind == tasklet::ExprKind::Index) && e->text == name) return true;
  for (auto& a : e->args)
    if (usesName(a, name)) return true;
  return false;
}

tasklet::ExprPtr replaceName(const tasklet::ExprPtr& e, const std::map<std::string, tasklet::ExprPtr>& with) {
  if (!e) return e;
  if (e->kind == tasklet::ExprKind::Name)
    if (auto it = with.find(e->text); it != with.end()) return it->second;
  bool changed = false;
  std::vector<tasklet::ExprPtr> args;
  for (auto& a : e->args) {
    args.push_back(replaceName(a, with));
    changed |= args.back() != a;
  }
  if (!changed) return e;
  auto copy = std::make_shared<tasklet::Expr>(*e);
  copy->args = std::move(args);
  return copy;
}

// The begin of a trivial range as a tasklet expression, or nullptr when the language cannot say it.
tasklet::ExprPtr taskletValue(const sym::Expr& v) {
  std::string text = v.str();
  if (text.find("//") != std::string::npos || text.find('%') != std::string::npos) return nullptr;
  auto p = tasklet::parse("__v = " + text, "");
  if (!p || p->statements.size() != 1) return nullptr;
  return p->statements[0].value;
}

// Whether a tasklet uses any of the names; sets `problem` when it cannot be rewritten.
bool taskletUses(const Tasklet& t, const std::set<std::string>& names, std::string* problem) {
  if (t.language != TaskletLanguage::Dcw) {
    for (auto& n : names)
      if (t.code.find(n) != std::string::npos) {
        *problem = "the C++ tasklet " + t.label() + " may use the parameter " + n;
        return true;
      }
    return false;
  }
  auto prog = tasklet::parse(t.code, t.label());
  if (!prog) {
    *problem = "the tasklet " + t.label() + " does not parse";
    return true;
  }
  bool any = false;
  for (auto& s : prog->statements) {
    if (names.count(s.target)) {
      *problem = "the tasklet " + t.label() + " assigns " + s.target + ", the name of a removed parameter";
      return true;
    }
    for (auto& n : names) any |= usesName(s.value, n);
  }
  for (auto& c : t.inConnectors())
    if (names.count(c.name) && any) {
      *problem = "the tasklet " + t.label() + " has a connector named like the parameter " + c.name;
      return true;
    }
  return any;
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
      if (taskletUses(*t, names, &problem)) {
        if (!problem.empty()) {
          if (whyNot) whyNot->error(path, problem);
          return false;
        }
        for (auto& [p, v] : values)
          if (!taskletValue(v)) {
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
  std::set<std::string> names;
  std::map<std::string, tasklet::ExprPtr> taskletValues;
  for (size_t d : dims) {
    values[me->params[d]] = me->range[d].begin;
    names.insert(me->params[d]);
  }
  // The body: nodes, then the edges among them and to the map's ends.
  std::set<ElementId> inside;
  for (Node* n : scope::nodesInside(st, *me)) {
    inside.insert(n->id());
    if (auto* t = dynamic_cast<Tasklet*>(n)) {
      std::string problem;
      if (!taskletUses(*t, names, &problem)) continue;
      DCW_TRY(auto prog, tasklet::parse(t->code, t->label()));
      if (taskletValues.empty())
        for (auto& [p, v] : values) taskletValues[p] = taskletValue(v);
      for (auto& s : prog.statements) s.value = replaceName(s.value, taskletValues);
      ed.set(*t, &Tasklet::code, prog.str());
    } else if (auto* m = dynamic_cast<MapEntry*>(n)) {
      Subset r = m->range.substituted(values);
      if (r != m->range) ed.set(*m, &MapEntry::range, r);
    } else if (auto* ns = dynamic_cast<NestedSdfgNode*>(n)) {
      auto mapping = ns->symbolMapping;
      bool changed = false;
      for (auto& [k, v] : mapping) {
        sym::Expr nv = v.substitute(values);
        if (nv != v) {
          v = nv;
          changed = true;
        }
      }
      if (changed) ed.set(*ns, &NestedSdfgNode::symbolMapping, mapping);
    }
  }
  for (auto& e : st.edges()) {
    bool from = e->src == me->id() || inside.count(e->src);
    bool to = e->dst == mx->id() || inside.count(e->dst);
    if (!from || !to) continue;
    Memlet m = e->memlet.substituted(values);
    if (!(m == e->memlet)) ed.set(*e, &DataflowEdge::memlet, m);
  }

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
  // Ordering edges (empty memlets) into the entry or out of the exit now order the body itself.
  for (auto* in : st.inEdges(me->id()))
    if (in->memlet.isEmpty() && in->dstConnector.empty())
      for (auto* e : st.outEdges(me->id())) add.push_back({in->src, in->srcConnector, e->dst, e->dstConnector, Memlet{}});
  for (auto* out : st.outEdges(mx->id()))
    if (out->memlet.isEmpty() && out->srcConnector.empty())
      for (auto* e : st.inEdges(mx->id())) add.push_back({e->src, e->srcConnector, out->dst, out->dstConnector, Memlet{}});
  ElementId entryId = me->id(), exitId = mx->id();
  ed.removeNode(st, exitId);
  ed.removeNode(st, entryId);
  for (auto& n : add) ed.addEdge(st, *st.node(n.src), n.srcConn, *st.node(n.dst), n.dstConn, n.memlet);
  return {};
}

} // namespace dcw::transforms
