// Node: a vertex of a state's dataflow graph. Nodes have named, typed connectors; dataflow edges
// (core/ir/State.h) attach to connectors, except on access nodes, which are attached without one.
// The concrete kinds live in their own headers: AccessNode, Tasklet, MapEntry/MapExit, LibraryNode,
// NestedSdfgNode.
#pragma once

#include "core/ir/DType.h"
#include "core/ir/Element.h"

#include <memory>
#include <string>
#include <vector>

namespace dcw::ir {

class State;

struct Connector {
  std::string name;
  DType dtype = DType::Undefined; // Undefined: any / inferred from the memlet
  bool optional = false;          // may stay unconnected (an omitted optional ONNX input or output)
  bool operator==(const Connector& o) const { return name == o.name && dtype == o.dtype && optional == o.optional; }
};

class Node : public Element {
public:
  using Element::Element;

  State* parent() const { return parent_; }
  void setParent(State* s) { parent_ = s; }

  std::vector<Connector>& inConnectors() { return in_; }
  std::vector<Connector>& outConnectors() { return out_; }
  const std::vector<Connector>& inConnectors() const { return in_; }
  const std::vector<Connector>& outConnectors() const { return out_; }
  const Connector* findIn(std::string_view name) const;
  const Connector* findOut(std::string_view name) const;
  void addIn(Connector c) { in_.push_back(std::move(c)); }
  void addOut(Connector c) { out_.push_back(std::move(c)); }

  // A deep, exact copy without edges and outside any state: same id, label, connectors and fields;
  // SDFGs nested in it (NestedSdfgNode, a library node's subgraphs) are copied with Sdfg::clone. Map
  // links (MapEntry::exitId, MapExit::entryId) still name the original's partner: after adding copies
  // to a state, relinkMapCopies (MapNodes.h) points them at each other. Adding the copy to a state of
  // a tree gives it (and what is nested in it) fresh ids. Implemented in Clone.cpp.
  std::unique_ptr<Node> clone() const;

  bool isScopeEntry() const { return kind() == ElementKind::MapEntry; }
  bool isScopeExit() const { return kind() == ElementKind::MapExit; }

private:
  State* parent_ = nullptr;
  std::vector<Connector> in_;
  std::vector<Connector> out_;
};

} // namespace dcw::ir
