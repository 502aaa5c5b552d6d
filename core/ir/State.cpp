#include "core/ir/State.h"

#include "core/ir/MapNodes.h"
#include "core/ir/Sdfg.h"
#include "core/ir/StateScopes.h"

#include <algorithm>
#include <deque>

namespace dcw::ir {

State::~State() = default;

Node* State::addNode(std::unique_ptr<Node> node) {
  node->setParent(this);
  if (node->label().empty()) node->setLabel(uniqueNodeLabel(std::string(elementKindName(node->kind()))));
  Node* raw = node.get();
  dropScopes();
  nodes_.push_back(std::move(node));
  if (Sdfg* s = owningSdfg(this)) s->adopt(*raw); // also renumbers SDFGs nested in the node
  else if (raw->id() == kNoId) raw->setId(provisionalId());
  byId_[raw->id()] = raw;
  if (!byLabel_.emplace(raw->label(), raw).second) labelsMayRepeat_ = true;
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
  DataflowEdge* raw = edges_.push_back(std::move(edge));
  edgeAppended(*raw);
  dropScopes();
  return raw;
}

std::unique_ptr<Node> State::removeNode(ElementId id) {
  Node* n = node(id);
  if (!n) return nullptr;
  dropScopes();
  // Its edges through the edge index (a self-loop is listed on both sides and taken once).
  std::vector<DataflowEdge*> attached = inEdges(id);
  for (auto* e : outEdges(id)) attached.push_back(e);
  for (auto* e : attached)
    if (edges_.contains(e)) {
      edgeRemoved(*e);
      edges_.take(e);
    }
  auto out = nodes_.take(n);
  byId_.erase(id);
  unindexLabel(*out);
  out->setParent(nullptr);
  return out;
}

void State::unindexLabel(const Node& node) {
  auto l = byLabel_.find(node.label());
  if (l == byLabel_.end() || l->second != &node) return;
  byLabel_.erase(l);
  if (labelsMayRepeat_) // another node may carry the same (invalid, duplicate) label
    for (auto& n : nodes_)
      if (n.get() != &node && n->label() == node.label()) {
        byLabel_.emplace(n->label(), n.get());
        break;
      }
}

void State::edgeAppended(DataflowEdge& e) {
  std::lock_guard lock(edgeIndexMutex_);
  if (!edgeIndex_) return;
  if (!edgeIndex_->byId.emplace(e.id(), &e).second) return dropEdgeIndex(); // a duplicate id: rebuilt exactly later
  edgeIndex_->in[e.dst].push_back(&e);
  edgeIndex_->out[e.src].push_back(&e);
}

void State::edgeRemoved(const DataflowEdge& e) {
  std::lock_guard lock(edgeIndexMutex_);
  if (!edgeIndex_) return;
  auto id = edgeIndex_->byId.find(e.id());
  if (id == edgeIndex_->byId.end() || id->second != &e) return dropEdgeIndex();
  edgeIndex_->byId.erase(id);
  for (auto* side : {&edgeIndex_->in[e.dst], &edgeIndex_->out[e.src]}) {
    auto it = std::find(side->begin(), side->end(), &e);
    if (it == side->end()) return dropEdgeIndex(); // its ends changed behind the state's back
    side->erase(it);
  }
}

std::unique_ptr<DataflowEdge> State::removeEdge(ElementId id) {
  DataflowEdge* e = edge(id);
  if (!e) return nullptr;
  edgeRemoved(*e);
  dropScopes();
  return edges_.take(e);
}

std::unique_ptr<Node> State::detachNode(JournalKey, ElementId id, NodePlace* place) {
  Node* n = node(id);
  if (!n) return nullptr;
  dropScopes();
  auto out = nodes_.take(n, place);
  // The node has no edges left and ids do not change: the edge index stays, the node's entries go.
  if (auto b = byId_.find(id); b != byId_.end() && b->second == out.get()) byId_.erase(b);
  unindexLabel(*out);
  out->setParent(nullptr);
  return out;
}

Node* State::attachNode(JournalKey, std::unique_ptr<Node> node, NodePlace place) {
  node->setParent(this);
  Node* raw = node.get();
  dropScopes();
  const bool last = !place || !nodes_.contains(place);
  nodes_.insert(place, std::move(node));
  // Back where it was: its id and label are free unless another node took them meanwhile, in which
  // case which one comes first depends on the position and everything is indexed again.
  if (byId_.count(raw->id()) || (byLabel_.count(raw->label()) && !last)) {
    reindexNodes();
  } else {
    byId_[raw->id()] = raw;
    if (!byLabel_.emplace(raw->label(), raw).second) labelsMayRepeat_ = true;
  }
  return raw;
}

std::unique_ptr<DataflowEdge> State::detachEdge(JournalKey, ElementId id, EdgePlace* place) {
  DataflowEdge* e = edge(id);
  if (!e) return nullptr;
  edgeRemoved(*e);
  dropScopes();
  return edges_.take(e, place);
}

DataflowEdge* State::attachEdge(JournalKey, std::unique_ptr<DataflowEdge> edge, EdgePlace place) {
  DataflowEdge* raw = edge.get();
  dropScopes();
  if (!place || !edges_.contains(place)) {
    edges_.push_back(std::move(edge));
    edgeAppended(*raw);
  } else {
    dropEdgeIndex(); // the per-node lists follow edges() order: rebuilt on the next query
    edges_.insert(place, std::move(edge));
  }
  return raw;
}

void State::reindex() {
  dropEdgeIndex();
  dropScopes();
  reindexNodes();
}

void State::reindexNodes() {
  byId_.clear();
  byLabel_.clear();
  labelsMayRepeat_ = false;
  for (auto& n : nodes_) {
    byId_[n->id()] = n.get();
    if (!byLabel_.emplace(n->label(), n.get()).second) labelsMayRepeat_ = true;
  }
}

void State::relabel(Node& node, std::string label) {
  if (node.parent() != this || byId_.count(node.id()) == 0) {
    node.setLabel(std::move(label));
    return reindexNodes();
  }
  unindexLabel(node);
  node.setLabel(std::move(label));
  if (auto it = byLabel_.find(node.label()); it != byLabel_.end() && it->second->label() == node.label()) {
    reindexNodes(); // now shared with another node: the first in nodes() wins, as a full index says
  } else {
    byLabel_[node.label()] = &node;
  }
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

const State::EdgeIndex& State::edgeIndex() const {
  if (!edgeIndex_) {
    auto x = std::make_unique<EdgeIndex>();
    x->byId.reserve(edges_.size());
    for (auto& e : edges_) {
      x->byId.emplace(e->id(), e.get()); // the first edge with an id, as a scan would find
      x->in[e->dst].push_back(e.get());
      x->out[e->src].push_back(e.get());
    }
    edgeIndex_ = std::move(x);
  }
  return *edgeIndex_;
}

DataflowEdge* State::edge(ElementId id) const {
  std::lock_guard lock(edgeIndexMutex_);
  auto& x = edgeIndex();
  auto it = x.byId.find(id);
  return it == x.byId.end() ? nullptr : it->second;
}

std::vector<DataflowEdge*> State::inEdges(ElementId node) const {
  std::lock_guard lock(edgeIndexMutex_);
  auto& x = edgeIndex();
  auto it = x.in.find(node);
  return it == x.in.end() ? std::vector<DataflowEdge*>{} : it->second;
}

std::vector<DataflowEdge*> State::outEdges(ElementId node) const {
  std::lock_guard lock(edgeIndexMutex_);
  auto& x = edgeIndex();
  auto it = x.out.find(node);
  return it == x.out.end() ? std::vector<DataflowEdge*>{} : it->second;
}

std::string State::uniqueNodeLabel(const std::string& base) const {
  if (!nodeByLabel(base)) return base;
  for (size_t i = 1;; ++i) {
    std::string l = base + "_" + std::to_string(i);
    if (!nodeByLabel(l)) return l;
  }
}

Expected<std::vector<Node*>> State::topologicalOrder() const {
  // Kahn's algorithm over positions (ids mapped once): this runs several times per state on every
  // load (validation, scopes, summary), so it avoids a tree node per node and per edge.
  const size_t n = nodes_.size();
  std::vector<Node*> byPos;
  byPos.reserve(n);
  for (auto& node : nodes_) byPos.push_back(node.get());
  std::unordered_map<ElementId, size_t> pos;
  pos.reserve(n);
  for (size_t i = 0; i < n; ++i) pos.emplace(byPos[i]->id(), i);
  std::vector<size_t> indeg(n, 0), first(n + 1, 0);
  std::vector<std::pair<size_t, size_t>> arcs; // (src, dst) positions
  arcs.reserve(edges_.size());
  for (auto& e : edges_) {
    auto s = pos.find(e->src), d = pos.find(e->dst);
    if (s == pos.end() || d == pos.end()) continue;
    arcs.emplace_back(s->second, d->second);
    ++first[s->second + 1];
    ++indeg[d->second];
  }
  for (size_t i = 0; i < n; ++i) first[i + 1] += first[i];
  std::vector<size_t> succ(arcs.size()), fill(first.begin(), first.end() - 1);
  for (auto [s, d] : arcs) succ[fill[s]++] = d; // successors in edge order, as before
  std::deque<size_t> ready;
  for (size_t i = 0; i < n; ++i)
    if (indeg[i] == 0) ready.push_back(i);
  std::vector<Node*> order;
  order.reserve(n);
  while (!ready.empty()) {
    size_t i = ready.front();
    ready.pop_front();
    order.push_back(byPos[i]);
    for (size_t k = first[i]; k < first[i + 1]; ++k)
      if (--indeg[succ[k]] == 0) ready.push_back(succ[k]);
  }
  if (order.size() != n) {
    for (size_t i = 0; i < n; ++i)
      if (indeg[i] > 0)
        return fail(byPos[i]->label(), "the dataflow graph of state '" + label() + "' has a cycle through node '" + byPos[i]->label() + "'",
                    "a state must be acyclic: move the feedback into control flow (a loop region)");
  }
  return order;
}

void State::dropScopes() {
  std::lock_guard lock(scopesMutex_);
  scopes_.reset();
}

Expected<std::shared_ptr<const StateScopes>> State::scopes() const {
  std::lock_guard lock(scopesMutex_);
  if (scopes_) return scopes_;
  DCW_TRY(auto order, topologicalOrder());
  auto s = std::make_shared<StateScopes>();
  s->state = this;
  DCW_TRY(auto scopeMap, computeScopeOf(order));
  s->scopes = std::move(scopeMap);
  for (Node* n : order) {
    if (n->kind() == ElementKind::MapExit) continue;
    auto it = s->scopes.find(n->id());
    s->children[it == s->scopes.end() ? nullptr : it->second].push_back(n);
  }
  scopes_ = std::move(s);
  return scopes_;
}

Expected<std::map<ElementId, const MapEntry*>> State::scopeOf() const {
  DCW_TRY(auto s, scopes());
  return s->scopes;
}

Expected<std::map<ElementId, const MapEntry*>> State::computeScopeOf(const std::vector<Node*>& order) const {
  // Hashed while computing (a node's inputs are looked up once per edge), ordered for the callers.
  std::unordered_map<ElementId, const MapEntry*> scope;
  std::unordered_map<ElementId, const MapEntry*> entryById;
  scope.reserve(nodes_.size());
  for (auto& n : nodes_)
    if (auto* me = dynamic_cast<const MapEntry*>(n.get())) entryById[me->id()] = me;
  std::lock_guard lock(edgeIndexMutex_); // one lookup of each node's in-edges, without copying them
  const EdgeIndex& index = edgeIndex();
  static const std::vector<DataflowEdge*> kNone;
  for (Node* n : order) {
    std::optional<const MapEntry*> s;
    auto in = index.in.find(n->id());
    for (auto* e : in == index.in.end() ? kNone : in->second) {
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
  std::vector<std::pair<ElementId, const MapEntry*>> sorted(scope.begin(), scope.end());
  std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::map<ElementId, const MapEntry*> out;
  for (auto& kv : sorted) out.emplace_hint(out.end(), kv);
  return out;
}

} // namespace dcw::ir
