#include "transforms/catalogue/ScopeTools.h"

#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/ir/StateScopes.h"
#include "core/tasklet/TaskletCode.h"
#include "transforms/Binding.h"

#include <set>
#include <unordered_set>

namespace dcw::transforms::scope {

using namespace dcw::ir;

MapExit* exitOf(const State& st, const MapEntry& entry) { return dynamic_cast<MapExit*>(st.node(entry.exitId)); }

std::vector<Node*> nodesInside(const State& st, const MapEntry& entry) {
  std::vector<Node*> out;
  auto tree = st.scopes();
  if (!tree) return out;
  // The body from the scope tree (nested maps with their exits), then listed in nodes() order.
  std::unordered_set<const Node*> inside;
  std::vector<const MapEntry*> open{&entry};
  while (!open.empty()) {
    const MapEntry* m = open.back();
    open.pop_back();
    auto kids = (*tree)->children.find(m);
    if (kids == (*tree)->children.end()) continue;
    for (const Node* n : kids->second) {
      inside.insert(n);
      if (auto* inner = dynamic_cast<const MapEntry*>(n)) {
        if (const Node* x = st.node(inner->exitId)) inside.insert(x);
        open.push_back(inner);
      }
    }
  }
  if (inside.empty()) return out;
  out.reserve(inside.size());
  for (auto& n : st.nodes())
    if (inside.count(n.get())) out.push_back(n.get());
  return out;
}

std::vector<const Memlet*> BodyMemlets::boundary() const {
  std::vector<const Memlet*> out(reads);
  out.insert(out.end(), writes.begin(), writes.end());
  return out;
}

std::vector<const Memlet*> BodyMemlets::all() const {
  std::vector<const Memlet*> out(reads);
  out.insert(out.end(), inner.begin(), inner.end());
  out.insert(out.end(), writes.begin(), writes.end());
  return out;
}

BodyMemlets bodyMemlets(const State& st, const MapEntry& entry) {
  BodyMemlets out;
  std::set<ElementId> inside;
  for (const Node* n : nodesInside(st, entry)) inside.insert(n->id());
  for (auto& e : st.edges()) {
    if (e->memlet.isEmpty()) continue;
    const bool fromBody = inside.count(e->src) > 0, toBody = inside.count(e->dst) > 0;
    if (e->src == entry.id() && (toBody || e->dst == entry.exitId)) out.reads.push_back(&e->memlet);
    else if (fromBody && toBody) out.inner.push_back(&e->memlet);
    else if (fromBody && e->dst == entry.exitId) out.writes.push_back(&e->memlet);
  }
  return out;
}

const MapEntry* enclosing(const State& st, const Node& n) {
  auto tree = st.scopes();
  if (!tree) return nullptr;
  auto it = (*tree)->scopes.find(n.id());
  return it == (*tree)->scopes.end() ? nullptr : it->second;
}

bool isPerfectNest(const State& st, const MapEntry& outer, const MapEntry** inner) {
  const MapEntry* found = nullptr;
  for (auto* e : st.outEdges(outer.id())) {
    auto* m = dynamic_cast<const MapEntry*>(st.node(e->dst));
    if (!m || (found && found != m)) return false;
    found = m;
  }
  if (!found) return false;
  MapExit* ox = exitOf(st, outer);
  MapExit* ix = exitOf(st, *found);
  if (!ox || !ix) return false;
  for (auto* e : st.inEdges(ox->id()))
    if (e->src != ix->id()) return false;
  for (auto* e : st.inEdges(found->id()))
    if (e->src != outer.id()) return false;
  for (auto* e : st.outEdges(ix->id()))
    if (e->dst != ox->id()) return false;
  if (inner) *inner = found;
  return true;
}

MapEntry* wrapInMap(edit::Editor& ed, State& st, MapEntry& entry, const std::string& label,
                    std::vector<std::string> params, Subset ranges, Schedule schedule) {
  MapExit* exit = exitOf(st, entry);
  auto* oe = ed.add<MapEntry>(st, label);
  auto* ox = ed.add<MapExit>(st, label);
  oe->params = std::move(params);
  oe->range = std::move(ranges);
  oe->schedule = schedule;
  oe->exitId = ox->id();
  ox->entryId = oe->id();
  oe->inConnectors() = entry.inConnectors();
  oe->outConnectors() = entry.outConnectors();
  ox->inConnectors() = exit->inConnectors();
  ox->outConnectors() = exit->outConnectors();
  struct Saved {
    ElementId other;
    std::string otherConn, conn;
    Memlet memlet;
    ElementId id;
  };
  std::vector<Saved> ins, outs;
  for (auto* e : st.inEdges(entry.id())) ins.push_back({e->src, e->srcConnector, e->dstConnector, e->memlet, e->id()});
  for (auto* e : st.outEdges(exit->id())) outs.push_back({e->dst, e->dstConnector, e->srcConnector, e->memlet, e->id()});
  for (auto& s : ins) {
    ed.removeEdge(st, s.id);
    std::string outer = s.conn.empty() ? "" : s.conn;
    std::string through = s.conn.rfind("IN_", 0) == 0 ? "OUT_" + s.conn.substr(3) : s.conn;
    ed.addEdge(st, *st.node(s.other), s.otherConn, *oe, outer, s.memlet);
    ed.addEdge(st, *oe, through, entry, s.conn, s.memlet);
  }
  if (ins.empty()) ed.addEdge(st, *oe, "", entry, "", Memlet{}); // keeps the map inside the new scope
  for (auto& s : outs) {
    ed.removeEdge(st, s.id);
    std::string into = s.conn.rfind("OUT_", 0) == 0 ? "IN_" + s.conn.substr(4) : s.conn;
    ed.addEdge(st, *exit, s.conn, *ox, into, s.memlet);
    ed.addEdge(st, *ox, s.conn, *st.node(s.other), s.otherConn, s.memlet);
  }
  return oe;
}

std::string freshParam(const State& st, const MapEntry& entry, const std::string& base) {
  std::set<std::string> used;
  for (auto& n : st.nodes())
    if (auto* m = dynamic_cast<const MapEntry*>(n.get())) used.insert(m->params.begin(), m->params.end());
  if (const Sdfg* s = owningSdfg(&st))
    for (auto& [name, t] : s->symbols()) used.insert(name);
  (void)entry;
  if (!used.count(base)) return base;
  for (int i = 1;; ++i)
    if (!used.count(base + "_" + std::to_string(i))) return base + "_" + std::to_string(i);
}

std::string swapPrefix(const std::string& conn, const std::string& from, const std::string& to) {
  return conn.rfind(from, 0) == 0 ? to + conn.substr(from.size()) : conn;
}

tasklet::ExprPtr renameExpr(const tasklet::ExprPtr& e, const std::map<std::string, std::string>& names) {
  if (!e) return e;
  auto c = std::make_shared<tasklet::Expr>(*e);
  if (c->kind == tasklet::ExprKind::Name || c->kind == tasklet::ExprKind::Index)
    if (auto it = names.find(c->text); it != names.end()) c->text = it->second;
  for (auto& a : c->args) a = renameExpr(a, names);
  return c;
}

void upstream(const State& st, const Node& n, const std::string& conn, std::vector<DataflowEdge*>& out) {
  if (n.kind() != ElementKind::MapExit || conn.rfind("OUT_", 0) != 0) return;
  std::string in = "IN_" + conn.substr(4);
  for (auto* e : st.inEdges(n.id()))
    if (e->dstConnector == in) {
      out.push_back(e);
      if (Node* src = st.node(e->src)) upstream(st, *src, e->srcConnector, out);
    }
}

void downstream(const State& st, const Node& n, const std::string& conn, std::vector<DataflowEdge*>& out) {
  if (n.kind() != ElementKind::MapEntry || conn.rfind("IN_", 0) != 0) return;
  std::string o = "OUT_" + conn.substr(3);
  for (auto* e : st.outEdges(n.id()))
    if (e->srcConnector == o) {
      out.push_back(e);
      if (Node* dst = st.node(e->dst)) downstream(st, *dst, e->dstConnector, out);
    }
}

sym::Assumptions scopeAssumptions(const State& st, const Node& n) {
  sym::Assumptions a;
  for (const MapEntry* m = enclosing(st, n); m; m = enclosing(st, *m))
    for (size_t k = 0; k < m->params.size(); ++k) {
      a.setLower(m->params[k], m->range[k].begin);
      a.setUpper(m->params[k], m->range[k].end - 1);
    }
  return a;
}

bool resolvePerfectNest(const Match& match, const Sdfg& root, Diagnostics* whyNot, const std::string& hint,
                        MapEntry*& outer, MapEntry*& inner) {
  auto b = Binding::resolve(match, root);
  if (!holds(b, whyNot)) return false;
  const std::string& path = match.elements.at("outer");
  outer = b->get<MapEntry>("outer");
  inner = b->get<MapEntry>("inner");
  if (!outer || !inner) {
    if (whyNot) whyNot->error(path, "outer and inner must both be map entries");
    return false;
  }
  const State& st = *outer->parent();
  const MapEntry* found = nullptr;
  if (inner->parent() != &st || !isPerfectNest(st, *outer, &found) || found != inner) {
    if (whyNot) whyNot->error(path, "the maps are not a perfect nest: the outer map must feed only the inner map", hint);
    return false;
  }
  return true;
}

std::string rangeDependingOnOuter(const MapEntry& outer, const MapEntry& inner, std::string* param) {
  for (auto& r : inner.range.ranges())
    for (auto& p : outer.params)
      if (r.begin.freeSymbols().count(p) || r.end.freeSymbols().count(p) || r.step.freeSymbols().count(p)) {
        if (param) *param = p;
        return r.str();
      }
  return {};
}

namespace {

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

// `v` as a tasklet expression, or nullptr when the language cannot say it.
tasklet::ExprPtr taskletValue(const sym::Expr& v) {
  std::string text = v.str();
  if (text.find("//") != std::string::npos || text.find('%') != std::string::npos) return nullptr;
  auto p = tasklet::parse("__v = " + text, "");
  if (!p || p->statements.size() != 1) return nullptr;
  return p->statements[0].value;
}

} // namespace

bool taskletCanWrite(const sym::Expr& v) { return taskletValue(v) != nullptr; }

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
      *problem = "the tasklet " + t.label() + " assigns " + s.target + ", the name of a map parameter";
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

Expected<void> substituteInBody(edit::Editor& ed, State& st, const MapEntry& entry, const std::map<std::string, sym::Expr>& values) {
  std::set<std::string> names;
  for (auto& [p, v] : values) names.insert(p);
  std::map<std::string, tasklet::ExprPtr> taskletValues;
  std::set<ElementId> inside;
  for (Node* n : nodesInside(st, entry)) {
    inside.insert(n->id());
    if (auto* t = dynamic_cast<Tasklet*>(n)) {
      std::string problem;
      if (!taskletUses(*t, names, &problem)) continue;
      if (!problem.empty()) return fail(pathOf(*t), problem);
      DCW_TRY(auto prog, tasklet::parse(t->code, t->label()));
      if (taskletValues.empty())
        for (auto& [p, v] : values) {
          taskletValues[p] = taskletValue(v);
          if (!taskletValues[p]) return fail(pathOf(*t), "the tasklet uses " + p + ", whose value " + v.str() + " tasklet code cannot write");
        }
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
  const MapExit* mx = exitOf(st, entry);
  for (auto& e : st.edges()) {
    bool from = e->src == entry.id() || inside.count(e->src);
    bool to = (mx && e->dst == mx->id()) || inside.count(e->dst);
    if (!from || !to) continue;
    Memlet m = e->memlet.substituted(values);
    if (!(m == e->memlet)) ed.set(*e, &DataflowEdge::memlet, m);
  }
  return {};
}

} // namespace dcw::transforms::scope
