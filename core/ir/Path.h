// Path: the readable address of an element, built from labels, e.g.
//   main                                 the root SDFG
//   main/@X                              data descriptor X of main
//   main/state0                          a state (or loop/conditional/branch) of main
//   main/state0/Conv_3                   a node
//   main/state0/X->Conv_3:X              a dataflow edge (src[:conn]->dst[:conn], `#k` when parallel)
//   main/state0=>state1                  an interstate edge
//   main/state0/If_1/then_branch/state0  inside a library node's subgraph (named by its attribute)
//   main/state0/nested/state0/t          inside a NestedSdfgNode
// Paths are what scripts, reports and overlays use; they stay valid while labels do not change.
#pragma once

#include "core/ir/Element.h"
#include "core/support/Expected.h"

#include <string>
#include <string_view>
#include <unordered_map>

namespace dcw::ir {

class Sdfg;

// A snapshot of id <-> path for a whole tree; rebuild after edits.
class PathIndex {
public:
  explicit PathIndex(const Sdfg& root);
  const std::string& pathOf(ElementId id) const; // "" when unknown
  ElementId idOf(std::string_view path) const;   // kNoId when unknown
  Element* element(ElementId id) const;
  size_t size() const { return byId_.size(); }

private:
  std::unordered_map<ElementId, std::string> byId_;
  std::unordered_map<std::string, ElementId> byPath_;
  std::unordered_map<ElementId, Element*> elements_;
};

std::string pathOf(const Sdfg& root, ElementId id);
class Element;
// The path of an element: upwards for nodes and blocks (no walk), through the index otherwise.
std::string pathOfElement(const Sdfg& root, const Element& e);
class Node;
class ControlFlowBlock;
// The path of a node or block attached to a tree, computed upwards (no walk of the tree).
std::string pathOf(const Node& node);
std::string pathOf(const ControlFlowBlock& block);
// Resolves a path; the error names the first segment that matches nothing.
Expected<Element*> resolvePath(const Sdfg& root, std::string_view path);
// True if a label can be a path segment (non-empty, no '/', no leading '@', no "->" or "=>").
bool isValidLabel(std::string_view label);

} // namespace dcw::ir
