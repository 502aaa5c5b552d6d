// StateFusion: merges two consecutive states into one, so that the dataflow of both is visible in
// one graph (MapFusion and InlineNestedSDFG work within a state) and one state transition less runs.
//
// Before:  first: X -> map1 -> T          =>          second: T -> map2 -> Y
// After:   one state: X -> map1 -> T -> map2 -> Y     (the second's read of T hangs off the first's T)
//
// The second state's nodes move into the first (the first keeps its label and id). Ordering that the
// state transition gave is kept through dataflow:
//  - data the first state writes and the second reads: the second's source access nodes of it are
//    merged into the first's (single) write node, so the reads come after the write;
//  - data the first writes and the second writes again (e.g. a zero fill, then a WCR accumulation):
//    the second's write stays its own access node, and an empty (ordering-only) memlet from the
//    first's write node to the second's first computations on the way to that write orders them.
// Preconditions: both states in one region, joined by an unconditional edge without assignments,
// the first's only out edge and the second's only in edge (the second is not the start block); no
// data the second accesses is written by the first through unordered access nodes (of several
// ordered writes, the last one is the one the second's accesses follow); the second does
// not overwrite data the first reads but does not write (refused: the reads could run after the
// write). Nodes of every kind move, nested SDFGs and library nodes with subgraphs included (deep
// copies, Node::clone). No options. Keeps the model differentiable (no computation changes).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class StateFusion : public Transformation {
public:
  std::string_view name() const override { return "StateFusion"; }
  std::string_view description() const override {
    return "Merge two consecutive states into one, keeping their order through dataflow";
  }
  std::string_view category() const override { return "Control flow"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
