// State: an acyclic dataflow multigraph of nodes (access nodes, tasklets, maps, library nodes, nested
// SDFGs) and edges carrying memlets. Scopes are implicit, as in DaCe: a node lies in the innermost map
// whose entry reaches it without passing that map's exit; scopeOf() computes it.
#pragma once

#include "core/ir/ControlFlow.h"
#include "core/ir/JournalKey.h"
#include "core/ir/Memlet.h"
#include "core/ir/Node.h"
#include "core/ir/OwnedList.h"
#include "core/support/Expected.h"

#include <map>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace dcw::ir {

class MapEntry;
struct StateScopes;

class DataflowEdge : public Element {
public:
  DataflowEdge() : Element(ElementKind::DataflowEdge) {}
  ElementId src = kNoId;
  std::string srcConnector; // "" on access nodes
  ElementId dst = kNoId;
  std::string dstConnector;
  Memlet memlet;
};

class State : public ControlFlowBlock {
public:
  explicit State(std::string label) : ControlFlowBlock(ElementKind::State, std::move(label)) {}
  ~State() override;

  // In order of addition (a removed element leaves the others in their order); see OwnedList.h.
  const OwnedList<Node>& nodes() const { return nodes_; }
  const OwnedList<DataflowEdge>& edges() const { return edges_; }

  // --- building (IR under construction: an expansion's result, a copy, a test fixture) -----------
  // A state of a model held by a History is edited through edit::Editor instead (journaled, undoable):
  // Editor::addNode, removeNode, addEdge, removeEdge, relabel, set(...).
  Node* addNode(std::unique_ptr<Node> node);
  template <class T, class... Args>
  T* add(Args&&... args) {
    return static_cast<T*>(addNode(std::make_unique<T>(std::forward<Args>(args)...)));
  }
  DataflowEdge* addEdge(const Node& src, std::string srcConn, const Node& dst, std::string dstConn, Memlet memlet);
  DataflowEdge* addEdge(std::unique_ptr<DataflowEdge> edge);
  std::unique_ptr<Node> removeNode(ElementId id); // also removes its edges
  std::unique_ptr<DataflowEdge> removeEdge(ElementId id);
  // --- journal primitives (edit::Editor only, see JournalKey.h) -------------------------------------
  // Take an element out keeping its id and report where it was (the element that followed it), and
  // put it back there unchanged; each in constant time. detachNode requires the node to have no
  // edges left.
  using NodePlace = OwnedList<Node>::Place;
  using EdgePlace = OwnedList<DataflowEdge>::Place;
  std::unique_ptr<Node> detachNode(JournalKey, ElementId id, NodePlace* place);
  Node* attachNode(JournalKey, std::unique_ptr<Node> node, NodePlace place);
  std::unique_ptr<DataflowEdge> detachEdge(JournalKey, ElementId id, EdgePlace* place);
  DataflowEdge* attachEdge(JournalKey, std::unique_ptr<DataflowEdge> edge, EdgePlace place);

  // --- queries ----------------------------------------------------------------------------------

  Node* node(ElementId id) const;
  Node* nodeByLabel(std::string_view label) const;
  // Edges by id and by endpoint (in the order of edges()). Answered from an index built on first use
  // and dropped by every change to the state, so that asking for each node's edges in a walk costs
  // the edges asked for, not the whole state (a 20,000-node model otherwise spends minutes here).
  DataflowEdge* edge(ElementId id) const;
  std::vector<DataflowEdge*> inEdges(ElementId node) const;
  std::vector<DataflowEdge*> outEdges(ElementId node) const;
  std::string uniqueNodeLabel(const std::string& base) const;
  // Index upkeep for the building API, the loader and the editor.
  void reindex(); // after ids or labels changed behind the state's back (adoption, loading)
  // Renames a node of this state keeping the label index current (use instead of Node::setLabel;
  // in a live model use Editor::relabel).
  void relabel(Node& node, std::string label);

  // Nodes in a topological order, or the error naming a node on a cycle.
  Expected<std::vector<Node*>> topologicalOrder() const;
  // Innermost enclosing MapEntry of every node (nullptr = top level). A MapEntry maps to its parent
  // scope, a MapExit to its own entry. Fails (naming the node) when scopes are malformed. A copy of
  // scopes()->scopes.
  Expected<std::map<ElementId, const MapEntry*>> scopeOf() const;
  // The state's scope tree (StateScopes.h), computed on first use and kept until a node or an edge is
  // added, removed or re-attached (or reindex()), like the edge index: the transformations ask where a
  // node lies for every match of a pass over a state of thousands of nodes, which cost a topological
  // sort each (minutes of `dcw optimize` on Swin-T). A failure is not kept.
  Expected<std::shared_ptr<const StateScopes>> scopes() const;

private:
  OwnedList<Node> nodes_;
  OwnedList<DataflowEdge> edges_;
  std::map<ElementId, Node*> byId_;
  std::unordered_map<std::string, Node*> byLabel_; // first node with each label
  bool labelsMayRepeat_ = false; // two nodes have had one label since the last full index
  void reindexNodes();
  void unindexLabel(const Node& node); // the node leaves the label index (another may take its place)

  // The edge index behind edge/inEdges/outEdges. Built lazily under the mutex (concurrent readers
  // of one state are allowed); mutators keep it current or drop it, and reindex() drops it. Edge ends are only rewritten
  // by the state itself, by adoption and by copying or loading, all of which end with reindex().
  struct EdgeIndex {
    std::unordered_map<ElementId, DataflowEdge*> byId;
    std::unordered_map<ElementId, std::vector<DataflowEdge*>> in, out;
  };
  mutable std::mutex edgeIndexMutex_;
  mutable std::unique_ptr<EdgeIndex> edgeIndex_;
  const EdgeIndex& edgeIndex() const; // call with edgeIndexMutex_ held
  void dropEdgeIndex() { edgeIndex_.reset(); }
  // Keep a built index current when an edge is appended or taken out (the editor's pattern while a
  // pass rewrites node after node; dropping it each time made expanding a 5,000-node model quadratic).
  void edgeAppended(DataflowEdge& e);
  void edgeRemoved(const DataflowEdge& e);

  // The scope tree behind scopes(), under its own mutex; every structural change drops it.
  mutable std::mutex scopesMutex_;
  mutable std::shared_ptr<const StateScopes> scopes_;
  void dropScopes();
  Expected<std::map<ElementId, const MapEntry*>> computeScopeOf(const std::vector<Node*>& order) const;
};

} // namespace dcw::ir
