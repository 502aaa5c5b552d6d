// OutLocalStorage: the dual of InLocalStorage for outputs — in a map nest, the inner map writes a
// small local buffer, which is copied out to the array once after the inner map (per iteration of the
// outer map), so the inner map's writes stay in cache (or on the stack) and the array is written
// contiguously.
//
// Before:  outer_entry[it] → inner_entry[i] → t → inner_exit ──Y[region]──→ outer_exit → Y
// After:   ... t → inner_exit ──→ Y_local ──copy Y_local[0:box] → Y[box]──→ Y ──Y[box]──→ outer_exit → Y
//
// The box is the region the inner map writes through that connector, computed from its one write
// memlet over the inner map's range; it must be written densely, every element on every iteration
// (each dimension an index of the form param + offset with its own parameter, or a fixed index/range),
// so that the copy-out never writes an element the inner map did not. The buffer is sized by a
// constant upper bound of the box and stored on the stack (CpuStack) up to 4 KiB, else in the default
// storage; it lives inside the outer map's scope.
// Match: `inner` → `outer`, two map exits, the inner map directly inside the outer.
// Preconditions: one connector carries `array` out of the inner map, without write-conflict
// resolution (see AccumulateTransient for that) and not dynamic; nothing else in the outer map
// accesses the array; unit steps in the inner map; the box has a constant size.
// Options: array (the container to buffer; empty = the first one the inner map writes).
// Keeps the model differentiable (a copy and re-targeted memlets, all analysable).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class OutLocalStorage : public Transformation {
public:
  std::string_view name() const override { return "OutLocalStorage"; }
  std::string_view description() const override {
    return "Let an inner map write a local buffer inside the outer map, copied out to the array after it";
  }
  std::string_view category() const override { return "Data"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
