#include "transforms/catalogue/ScopeTools.h"

#include "core/ir/Sdfg.h"
#include "transforms/Binding.h"

#include <set>

namespace dcw::transforms::scope {

using namespace dcw::ir;

MapExit* exitOf(const State& st, const MapEntry& entry) { return dynamic_cast<MapExit*>(st.node(entry.exitId)); }

std::vector<Node*> nodesInside(const State& st, const MapEntry& entry) {
  std::vector<Node*> out;
  auto scopes = st.scopeOf();
  if (!scopes) return out;
  for (auto& n : st.nodes()) {
    if (n.get() == &entry || n->id() == entry.exitId) continue;
    auto it = scopes->find(n->id());
    const MapEntry* s = it == scopes->end() ? nullptr : it->second;
    if (auto* mx = dynamic_cast<MapExit*>(n.get())) {
      // An exit's scope is its own entry; it is inside when that entry is.
      auto e = scopes->find(mx->entryId);
      s = e == scopes->end() ? nullptr : e->second;
    }
    while (s && s != &entry) {
      auto up = scopes->find(s->id());
      s = up == scopes->end() ? nullptr : up->second;
    }
    if (s == &entry) out.push_back(n.get());
  }
  return out;
}

const MapEntry* enclosing(const State& st, const Node& n) {
  auto scopes = st.scopeOf();
  if (!scopes) return nullptr;
  auto it = scopes->find(n.id());
  return it == scopes->end() ? nullptr : it->second;
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

} // namespace dcw::transforms::scope
