// MapToForLoop: a one-dimensional map becomes a sequential for-loop — the inverse of LoopToMap —
// for code whose iterations should run in order (e.g. to bound memory traffic, or as a step towards
// control-flow transformations that work on loops).
//
// Before:  X -> map[i = b:e:s] { body(i) } -> Y
// After:   X -> [nested SDFG: loop i = b; i < e; i = i + s { state: X' -> body(i) -> Y' }] -> Y
// The map and its body are replaced, in the same state, by a NestedSdfgNode (labelled
// "<map label>_loop") whose SDFG holds a LoopRegion over the map parameter with one body state. The
// data the map reads and writes become the nested SDFG's non-transient data (same names, shapes and
// dtypes; connectors named after them, whole-container memlets outside); the symbols the body uses
// are passed through with identity mappings. Memlets inside keep their subsets (absolute
// coordinates); WCR writes stay WCR writes inside the loop body.
//
// Preconditions: the map has one parameter and lies at the top level of its state; its inputs come
// from access nodes and its outputs go to access nodes, with non-empty memlets; no container is both
// read and written by the map; the body holds no access nodes, nested SDFGs or library nodes with
// subgraphs (tasklets and nested maps only).
// No options. Keeps the model differentiable (maps, tasklets and memlets inside a loop region).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class MapToForLoop : public Transformation {
public:
  std::string_view name() const override { return "MapToForLoop"; }
  std::string_view description() const override {
    return "Turn a one-dimensional map into a sequential for-loop (a nested SDFG holding a loop region)";
  }
  std::string_view category() const override { return "Control flow"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
