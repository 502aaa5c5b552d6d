// TransposeToView: a Transpose whose result lies in memory in the order its input already has becomes
// a view of the input — the same bytes read through the result's shape — so the copy it made on every
// run disappears. ConvNeXt permutes each block's activation to NHWC for its LayerNorm and MLP and back
// to NCHW for the next depthwise convolution; once ChannelsLast stores the NCHW arrays channels-last
// (it counts such a Transpose as taking the layout), both permutes are these in-order copies.
//
// Before:  A: float32[1, 96, 56, 56] channels-last -> Transpose(perm=[0, 2, 3, 1]) -> P: float32[1, 56, 56, 96] -> LayerNorm
// After:   A: float32[1, 96, 56, 56] channels-last ------------------------------> P: view float32[1, 56, 56, 96] -> LayerNorm
//          (and back: M: float32[1, 56, 56, 96] -> Transpose(perm=[0, 3, 1, 2]) -> T channels-last becomes a view of M)
//
// Preconditions: the op is an unexpanded ai.onnx Transpose, outside maps, reading the whole of A and
// writing the whole of B; A is an array (not a view, stream or constant: ConstantFolding folds
// constants) of constant strides, channels not in blocks, written into no access node but the one the
// op reads (so it does not change while B is read); B is a transient array of A's element type, with
// that one access node, written by the op alone, of constant strides, dense, channels not in blocks;
// and B's stride in each dim (of extent above 1) is A's in the dim the op takes it from: so each
// element of B lies where the copy read it. No options. Autodiff does not differentiate through views,
// so the step does not keep the model differentiable.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class TransposeToView : public Transformation {
public:
  std::string_view name() const override { return "TransposeToView"; }
  std::string_view description() const override {
    return "Make a Transpose whose result is already in its input's memory order (NCHW channels-last to NHWC, and back) a view: no copy";
  }
  std::string_view category() const override { return "Data"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
  bool keepsDifferentiable() const override { return false; }
};

} // namespace dcw::transforms
