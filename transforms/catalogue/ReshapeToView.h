// ReshapeToView: a Reshape (or Flatten, Squeeze, Unsqueeze) of a row-major array becomes a view of it —
// the same bytes read through the new shape (core/ir/View.h) — so the copy the op's expansion makes on
// every run disappears. ShuffleNet's channel shuffle (Reshape → Transpose → Reshape) and BERT's head
// split (Reshape → Transpose) copy every activation they touch; their reshapes cost nothing as views.
//
// Before:  A: float32[1, 232, 28, 28] -> Reshape(shape) -> B: float32[1, 2, 116, 28, 28] -> readers
// After:   A: float32[1, 232, 28, 28] ------------------> B: view float32[1, 2, 116, 28, 28] -> readers
//
// Preconditions: the op is an unexpanded ai.onnx Reshape, Flatten, Squeeze or Unsqueeze, outside maps,
// whose data input is the whole of A and whose one output is the whole of B; A is an array (not a view,
// stream or constant: ConstantFolding folds constants), row-major, written into no access node but the
// one the op reads (so it does not change while B is read); B is a transient row-major array of A's
// element type and count, with that one access node, written by the op alone. The op's other input
// (shape, axes) is dropped with its access node when nothing else uses it. No options. The result runs
// on every target but inside FPGA kernels; autodiff does not differentiate through views, so the step
// does not keep the model differentiable.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class ReshapeToView : public Transformation {
public:
  std::string_view name() const override { return "ReshapeToView"; }
  std::string_view description() const override {
    return "Make a Reshape, Flatten, Squeeze or Unsqueeze of a row-major array a view of it: the same bytes, no copy";
  }
  std::string_view category() const override { return "Data"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
  bool keepsDifferentiable() const override { return false; }
};

} // namespace dcw::transforms
