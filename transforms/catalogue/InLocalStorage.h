// InLocalStorage: in a map nest, copies the part of an array that one iteration of the outer map's
// inner map reads into a small local buffer first, and lets the inner map read the buffer — the tile
// of a matrix a tiled MatMul works on stays in cache (or on the stack), and is read contiguously.
//
// Before:  A → outer_entry[it] ──A[region]──→ inner_entry[i] → t(A[i, k])
// After:   A → outer_entry[it] ──A[box]──→ A ──copy A[box] → A_local[0:box]──→ A_local ──→ inner_entry[i] → t(A_local[i - lo, k - lo'])
//
// The box is the bounding box of what the inner map reads through that connector, computed from the
// inner memlets over the inner map's range (they must not decrease as a parameter grows); when that
// fails, the memlet between the two entries is the box. The buffer is sized by a constant upper bound
// of the box (a partial last tile uses part of it), lives inside the outer map's scope (one per
// iteration; private per thread), and is stored on the stack (CpuStack) when it holds at most 4 KiB,
// else in the default storage. On the GPU — the outer map gpu_device, the inner one gpu_threadblock —
// the buffer is the thread block's shared memory (gpu_shared), filled by the block's threads together.
// Match: `outer` → `inner`, two map entries, the inner directly inside the outer.
// Preconditions: `array` is read from the outer map by the inner one through exactly one connector;
// nothing inside the outer map writes it; unit steps in the inner map; the box has a constant size.
// Options: array (the container to buffer; empty = the first one the inner map reads from the outer).
// Keeps the model differentiable (a copy and re-targeted memlets, all analysable).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class InLocalStorage : public Transformation {
public:
  std::string_view name() const override { return "InLocalStorage"; }
  std::string_view description() const override {
    return "Copy the data an inner map reads into a local buffer inside the outer map, and read the buffer";
  }
  std::string_view category() const override { return "Data"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
