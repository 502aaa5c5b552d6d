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

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace dcw::ir {

class Sdfg;

// A snapshot of id <-> path for a whole tree; rebuild after edits. Built in one pass without
// recursion, it keeps per element only the segment its path adds to another element's path (and a
// hash of the whole path), and spells a path out when asked. Paths grow with the nesting (a body
// 1,000 levels down has a path of some 60,000 characters), so keeping every path whole, as the index
// did, cost memory and time quadratic in the depth of a deeply nested model.
class PathIndex {
public:
  explicit PathIndex(const Sdfg& root);
  std::string pathOf(ElementId id) const;      // "" when unknown; the first path of the walk for an id
  ElementId idOf(std::string_view path) const; // kNoId when unknown; the first element of the walk at it
  Element* element(ElementId id) const;
  size_t size() const { return byId_.size(); }

private:
  static constexpr uint32_t kNone = ~uint32_t(0);
  struct Entry {
    Element* element = nullptr;
    uint32_t parent = kNone; // the entry whose path this one's extends (kNone: the root)
    std::string segment;     // what it adds ("/label", "/@data", "/a->b#1"; the root's name)
    uint64_t hash = 0;       // of the whole path
  };
  std::vector<Entry> entries_; // in walk order
  std::unordered_map<ElementId, uint32_t> byId_;
  std::unordered_multimap<uint64_t, uint32_t> byHash_;
  uint32_t add(Element& e, uint32_t parent, std::string segment);
  std::string spell(uint32_t entry) const;
  bool spells(uint32_t entry, std::string_view path) const;
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
