// MapReduceFusion: fuses a map that computes a transient array element by element into the
// reduction map that consumes it (a map over the same points whose output has write-conflict
// resolution: sum, prod, max, min — the way pure expansions write ReduceSum, ReduceMax, Softmax's
// statistics, ...). The reduction then accumulates the producer's value directly: the array is never
// materialised (for x^2 summed over rows: one pass, no temporary the size of the input).
//
// Before:  X -> map[i, j] { a = x * x } -> T[i, j] -> map[i, j] { s = t } -> S[i] (WCR sum)
// After:   X -> map[i, j] { a = x * x -> T (scalar) -> s = t } -> S[i] (WCR sum)
//
// Preconditions: those of MapFusion (same scope and iteration space, transient array with no other
// access node, written element-wise by one tasklet of the first map and read at the same element by
// tasklets of the second, no other dependency between the maps), and the second map is a reduction:
// at least one of its outputs has write-conflict resolution. The reduction's initialisation is not
// touched (it stays wherever it was, before both maps). Options: none. Keeps the model
// differentiable (maps, tasklets and WCR memlets, as before).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class MapReduceFusion : public Transformation {
public:
  std::string_view name() const override { return "MapReduceFusion"; }
  std::string_view description() const override {
    return "Fuse a map producing an array into the reduction map (write-conflict resolution) that consumes it";
  }
  std::string_view category() const override { return "Fusion"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
