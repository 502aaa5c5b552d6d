#include "core/ir/State.h"

#include "core/ir/MapNodes.h"
#include "core/ir/Sdfg.h"

#include <algorithm>
#include <deque>

namespace dcw::ir {

State::~State() = default;

Node* State::addNode(std::unique_ptr<Node> node) {
  node->setParent(this);
  if (node->label().empty()) node->setLabel(uniqueNodeLabel(std::string(elementKindName(node->kind()))));
  Node* raw = node.get();
  nodes_.push_back(std::move(node));
  if (Sdfg* s = owningSdfg(this)) s->adopt(*raw); // also renumbers SDFGs nested in the node
  else if (raw->id() == kNoId) raw->setId(provisionalId());
  byId_[raw->id()] = raw;
  byLabel_.emplace(raw->label(), raw);
  return raw;
}

DataflowEdge* State::addEdge(const Node& src, std::string srcConn, const Node& dst, std::string dstConn, Memlet memlet) {
  auto e = std::make_unique<DataflowEdge>();
  e->src = src.id();
  e->srcConnector = std::move(srcConn);
  e->dst = dst.id();
  e->dstConnector = std::move(dstConn);
  e->memlet = std::move(memlet);
  return addEdge(std::move(e));
}

DataflowEdge* State::addEdge(std::unique_ptr<DataflowEdge> edge) {
  if (edge->id() == kNoId) {
    Sdfg* s = owningSdfg(this);
    edge->setId(s ? s->allocateId() : provisionalId());
  }
  edges_.push_back(std::move(edge));
  return edges_.back().get();
}

std::unique_ptr<Node> State::removeNode(ElementId id) {
  auto it = std::find_if(nodes_.begin(), nodes_.end(), [&](auto& n) { return n->id() == id; });
  if (it == nodes_.end()) return nullptr;
  std::erase_if(edges_, [&](auto& e) { return e->src == id || e->dst == id; });
  auto out = std::move(*it);
  nodes_.erase(it);
  byId_.erase(id);
  if (auto l = byLabel_.find(out->label()); l != byLabel_.end() && l->second == out.get()) {
    byLabel_.erase(l);
    for (auto& n : nodes_) // another node may carry the same (invalid, duplicate) label
      if (n->label() == out->label()) byLabel_.emplace(n->label(), n.get());
  }
  out->setParent(nullptr);
  return out;
}

std::unique_ptr<DataflowEdge> State::removeEdge(ElementId id) {
  auto it = std::find_if(edges_.begin(), edges_.end(), [&](auto& e) { return e->id() == id; });
  if (it == edges_.end()) return nullptr;
  auto out = std::move(*it);
  edges_.erase(it);
  return out;
}

std::unique_ptr<Node> State::detachNode(JournalKey, ElementId id, size_t* position) {
  auto it = std::find_if(nodes_.begin(), nodes_.end(), [&](auto& n) { return n->id() == id; });
  if (it == nodes_.end()) return nullptr;
  *position = size_t(it - nodes_.begin());
  auto out = std::move(*it);
  nodes_.erase(it);
  reindex();
  out->setParent(nullptr);
  return out;
}

Node* State::attachNode(JournalKey, std::unique_ptr<Node> node, size_t position) {
  node->setParent(this);
  Node* raw = node.get();
  nodes_.insert(nodes_.begin() + std::min(position, nodes_.size()), std::move(node));
  reindex();
  return raw;
}

std::unique_ptr<DataflowEdge> State::detachEdge(JournalKey, ElementId id, size_t* position) {
  auto it = std::find_if(edges_.begin(), edges_.end(), [&](auto& e) { return e->id() == id; });
  if (it == edges_.end()) return nullptr;
  *position = size_t(it - edges_.begin());
  auto out = std::move(*it);
  edges_.erase(it);
  return out;
}

DataflowEdge* State::attachEdge(JournalKey, std::unique_ptr<DataflowEdge> edge, size_t position) {
  DataflowEdge* raw = edge.get();
  edges_.insert(edges_.begin() + std::min(position, edges_.size()), std::move(edge));
  return raw;
}

void State::reindex() {
  byId_.clear();
  byLabel_.clear();
  for (auto& n : nodes_) {
    byId_[n->id()] = n.get();
    byLabel_.emplace(n->label(), n.get());
  }
}

void State::relabel(Node& node, std::string label) {
  node.setLabel(std::move(label));
  reindex();
}

Node* State::node(ElementId id) const {
  auto it = byId_.find(id);
  if (it != byId_.end() && it->second->id() == id) return it->second;
  // Ids may have been reassigned after insertion (loading, re-attaching): fall back to a scan.
  for (auto& n : nodes_)
    if (n->id() == id) return n.get();
  return nullptr;
}

Node* State::nodeByLabel(std::string_view label) const {
  auto it = byLabel_.find(std::string(label));
  return it != byLabel_.end() && it->second->label() == label ? it->second : nullptr;
}

DataflowEdge* State::edge(ElementId id) const {
  for (auto& e : edges_)
    if (e->id() == id) return e.get();
  return nullptr;
}

std::vector<DataflowEdge*> State::inEdges(ElementId node) const {
  std::vector<DataflowEdge*> out;
  for (auto& e : edges_)
    if (e->dst == node) out.push_back(e.get());
  return out;
}

std::vector<DataflowEdge*> State::outEdges(ElementId node) const {
  std::vector<DataflowEdge*> out;
  for (auto& e : edges_)
    if (e->src == node) out.push_back(e.get());
  return out;
}

std::string State::uniqueNodeLabel(const std::string& base) const {
  if (!nodeByLabel(base)) return base;
  for (size_t i = 1;; ++i) {
    std::string l = base + "_" + std::to_string(i);
    if (!nodeByLabel(l)) return l;
  }
}

Expected<std::vector<Node*>> State::topologicalOrder() const {
  std::map<ElementId, size_t> indeg;
  std::map<ElementId, std::vector<ElementId>> succ;
  std::map<ElementId, Node*> byId;
  for (auto& n : nodes_) {
    indeg[n->id()] = 0;
    byId[n->id()] = n.get();
  }
  for (auto& e : edges_) {
    if (!byId.count(e->src) || !byId.count(e->dst)) continue;
    succ[e->src].push_back(e->dst);
    ++indeg[e->dst];
  }
  std::deque<ElementId> ready;
  for (auto& n : nodes_)
    if (indeg[n->id()] == 0) ready.push_back(n->id());
  std::vector<Node*> order;
  order.reserve(nodes_.size());
  while (!ready.empty()) {
    ElementId id = ready.front();
    ready.pop_front();
    order.push_back(byId[id]);
    for (ElementId s : succ[id])
      if (--indeg[s] == 0) ready.push_back(s);
  }
  if (order.size() != nodes_.size()) {
    for (auto& n : nodes_)
      if (indeg[n->id()] > 0)
        return fail(n->label(), "the dataflow graph of state '" + label() + "' has a cycle through node '" + n->label() + "'",
                    "a state must be acyclic: move the feedback into control flow (a loop region)");
  }
  return order;
}

Expected<std::map<ElementId, const MapEntry*>> State::scopeOf() const {
  DCW_TRY(auto order, topologicalOrder());
  std::map<ElementId, const MapEntry*> scope;
  std::map<ElementId, const MapEntry*> entryById;
  for (auto& n : nodes_)
    if (auto* me = dynamic_cast<const MapEntry*>(n.get())) entryById[me->id()] = me;
  for (Node* n : order) {
    std::optional<const MapEntry*> s;
    for (auto* e : inEdges(n->id())) {
      Node* p = node(e->src);
      if (!p) continue;
      const MapEntry* ps;
      if (auto* me = dynamic_cast<const MapEntry*>(p)) ps = me;
      else if (auto* mx = dynamic_cast<const MapExit*>(p)) {
        auto it = entryById.find(mx->entryId);
        if (it == entryById.end())
          return fail(p->label(), "map exit '" + p->label() + "' has no matching map entry in state '" + label() + "'");
        ps = scope[it->second->id()];
      } else ps = scope[p->id()];
      if (s && *s != ps)
        return fail(n->label(), "node '" + n->label() + "' is reached from two different scopes",
                    "every input of a node must come from the same map scope");
      s = ps;
    }
    const MapEntry* mine = s.value_or(nullptr);
    if (auto* mx = dynamic_cast<const MapExit*>(n)) {
      auto it = entryById.find(mx->entryId);
      if (it == entryById.end())
        return fail(n->label(), "map exit '" + n->label() + "' has no matching map entry in state '" + label() + "'");
      if (s && mine != it->second)
        return fail(n->label(), "map exit '" + n->label() + "' is reached from outside its own map scope",
                    "connect the exit only to nodes inside the map '" + it->second->label() + "'");
      mine = it->second;
    }
    scope[n->id()] = mine;
  }
  return scope;
}

} // namespace dcw::ir
