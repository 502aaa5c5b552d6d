// SqueezeExcitationFusion: the channel scale of a squeeze-and-excitation block (EfficientNet,
// MobileNetV3, RegNet-Y) moves from the activation into the weights of the convolution that reads it.
// A per-channel scale s commutes with a convolution's sum over input channels:
//   Conv(x ⊙ s, W) = Conv(x, W ⊙ s)      W'[m, c, k..] = W[m, c, k..] · s[c]
// so instead of multiplying every element of x (C·H·W values read and written) the model multiplies
// the weights (M·C·K values), which is far less where the map is large and the kernel small — the
// early blocks of these networks. The scale still comes from the block's squeeze path; the product
// x ⊙ s is never stored.
//
// Before:  x[N, C, H..] -> Mul(x, s[1, C, 1..]) -> t -> Conv(t, W[M, C, K..], B) -> y      (or Mul(s, x))
// After:   W, s -> Mul(W, s) -> W'[M, C, K..];   x -> Conv(x, W', B) -> y
//
// Preconditions: an unexpanded ai.onnx Mul of two access nodes, one (x) of t's shape and the other (s)
// broadcasting as [1, C, 1, ..] (rank up to x's: the same scale for every image and every position);
// t is a transient with one access node in the whole SDFG, read only as the X of one unexpanded ai.onnx
// Conv or dcw::FusedConv of group 1 whose W has x's rank and C input channels; float32 or float64
// throughout. Any kernel, stride, dilation or padding (a padded zero scaled is zero), bias, residual Z
// or fused activation. No options. Keeps the model's values (up to rounding: the products are
// associated differently) and differentiability (a Mul and a Conv, both with pure expansions).
// When it pays: weightsSmallerThanActivation() — auto-optimize applies it only there.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class SqueezeExcitationFusion : public Transformation {
public:
  std::string_view name() const override { return "SqueezeExcitationFusion"; }
  std::string_view description() const override {
    return "Move a squeeze-and-excitation channel scale from the activation into the next convolution's weights";
  }
  std::string_view category() const override { return "Graph"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;

  // Whether the match scales fewer weights than it saves activation elements (both sizes known): the
  // rewrite then reads and writes less memory per run.
  static bool weightsSmallerThanActivation(const Match& match, const ir::Sdfg& root);
};

} // namespace dcw::transforms
