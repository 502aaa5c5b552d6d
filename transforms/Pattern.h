// Pattern: the cheap structural shape a transformation looks for, before its precise canApply test.
//  - dataflow: nodes of one state joined by dataflow edges, e.g. MapFusion's
//      first_exit:MapExit -> array:AccessNode -> second_entry:MapEntry
//  - controlFlow: blocks of one region joined by interstate edges, e.g. StateFusion's
//      first:State => second:State
//  - selection: the nodes the user selected in one state (SubgraphFusion); slots node0, node1, ...
//  - node: any one element of the given kinds (ExpandLibraryNode, data-level transformations)
// The matcher (transforms/Matcher.h) enumerates bindings of slots to elements.
#pragma once

#include "core/ir/Element.h"

#include <string>
#include <vector>

namespace dcw::transforms {

class Pattern {
public:
  enum class Scope { Dataflow, ControlFlow, Selection };
  struct Slot {
    std::string name;
    std::vector<ir::ElementKind> kinds; // any of these
  };
  struct Edge {
    size_t src, dst; // slot indices
  };

  static Pattern dataflow(std::vector<Slot> slots, std::vector<Edge> edges = {});
  static Pattern controlFlow(std::vector<Slot> slots, std::vector<Edge> edges = {});
  static Pattern selection();
  static Pattern node(std::string slot, std::vector<ir::ElementKind> kinds) { return dataflow({{std::move(slot), std::move(kinds)}}); }

  Scope scope() const { return scope_; }
  const std::vector<Slot>& slots() const { return slots_; }
  const std::vector<Edge>& edges() const { return edges_; }
  bool hasSlot(const std::string& name) const;
  bool accepts(size_t slot, ir::ElementKind k) const;
  // "first_exit:MapExit -> array:AccessNode -> second_entry:MapEntry", for "why not" messages.
  std::string describe() const;

private:
  Scope scope_ = Scope::Dataflow;
  std::vector<Slot> slots_;
  std::vector<Edge> edges_;
};

} // namespace dcw::transforms
