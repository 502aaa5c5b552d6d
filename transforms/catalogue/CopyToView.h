// CopyToView: a map that copies one contiguous block of a row-major array, element for element in the
// same order, into a whole transient (what a Slice along the outermost non-unit dim or a Split expands
// to) becomes a view of that block: the reader sees the bytes where they are, and the copy disappears.
// ShuffleNetV2 splits every channel shuffle's output in two halves so; each half was copied on every run.
//
// Before:  T: float32[1, 116, 28, 28] -> map[i1, i2, i3] { y = x } reading T[0, i1 + 58, i2, i3]
//            -> S: float32[1, 58, 28, 28] -> readers
// After:   T: float32[1, 116, 28, 28] --(T[0:1, 58:116, 0:28, 0:28])--> S: view float32[1, 58, 28, 28] -> readers
//
// Preconditions: the map is at the top level of its state and holds one tasklet that copies its one
// input to its one output (`y = x`); it reads one access node and writes one. It writes the whole of S:
// each dim indexed by its own parameter over the dim's extent (a dim of extent 1 may be indexed by 0).
// S is a transient row-major array of constant shape, with that one access node, written by the map
// alone, not named by control flow. The element it reads, as an offset into its source, is the
// offset it writes in S plus one constant: so the copied elements are one run of S's element count,
// in order. The source is a row-major array (not a constant, stream or scalar), or a row-major view of
// one (the new view then shows that array; the old view's access node goes when nothing else reads
// it), and that run is a block of the array's dims (dims before one fixed, dims after it whole). The
// array is written into no access node but the one the copy reads from (so it does not change while S
// is read). No options. Autodiff does not differentiate through views, so the step does not keep the
// model differentiable; `dcw optimize` applies it only when more than pure is preferred.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class CopyToView : public Transformation {
public:
  std::string_view name() const override { return "CopyToView"; }
  std::string_view description() const override {
    return "Make a map that copies one contiguous block of an array (a Slice or Split) a view of that block: no copy";
  }
  std::string_view category() const override { return "Data"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
  bool keepsDifferentiable() const override { return false; }
};

} // namespace dcw::transforms
