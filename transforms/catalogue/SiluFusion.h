// SiluFusion: x * Sigmoid(x) — SiLU, also called swish, which EfficientNet uses after nearly every
// convolution and which ONNX (up to opset 17) has no op for — becomes one dcw::Silu node
// (core/expansions/FusedOp.h), computed in one pass (pure: one map; onednn: eltwise_swish) instead of
// two, and then foldable into the Conv before it (ActivationFusion: oneDNN's eltwise post-op).
//
// Before:  x -> Sigmoid -> s -> Mul(x, s) -> y          (or Mul(s, x))
// After:   x -> dcw::Silu -> y                          y = x * (1 / (1 + exp(-x)))
//
// Preconditions (SelfGate.h, shared with HardSwishFusion): unexpanded ai.onnx Sigmoid and Mul; the Sigmoid reads x (an access node) and its
// result s is a transient with one access node in the whole SDFG that only the Mul reads; the Mul's
// other operand is x itself (the same data: a gate x * sigmoid(g) of another tensor is no SiLU); x and
// y are float32 or float64 of one shape; the Mul has one output edge.
// No options. Keeps the model's values (the pure Silu computes the same expression) and
// differentiability.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class SiluFusion : public Transformation {
public:
  std::string_view name() const override { return "SiluFusion"; }
  std::string_view description() const override { return "Replace x * Sigmoid(x) (SiLU, swish) by one Silu node"; }
  std::string_view category() const override { return "Graph"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
