// GeluFusion: the five ONNX ops PyTorch exports for GELU (ONNX 1.12 has no Gelu op) become one
// dcw::Gelu node (core/expansions/FusedOp.h), computed in one pass (pure: one map; onednn:
// eltwise_gelu_erf) instead of five, and then foldable into the MatMul before it (ActivationFusion).
//
// Before:  x -> Div(x, sqrt(2)) -> Erf -> Add(., 1) -> a -> Mul(x, a) -> Mul(., 0.5) -> y
// After:   x -> dcw::Gelu -> y                          y = 0.5 x (1 + erf(x / sqrt(2)))
// Also recognised: Mul(x, 1/sqrt(2)) for the Div; the halving as Mul(a, 0.5) then Mul(x, .), or as
// Mul(x, 0.5) then Mul(., a); every Add and Mul with its operands either way round.
//
// The match names the scaling op (Div or Mul), its result and the Erf; the rest of the chain is
// followed from there. Preconditions: every op is an unexpanded ai.onnx op with two connected operands
// (Erf: one); the constants are scalar (one element) constant data equal to sqrt(2), 1/sqrt(2), 1 and
// 0.5 within float32 rounding; x and y are float32 or float64 of one shape; every intermediate is a
// transient with one access node in the whole SDFG, read only by the next op of the chain.
// No options. Keeps the model's values (the pure Gelu computes the same formula) and differentiability.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class GeluFusion : public Transformation {
public:
  std::string_view name() const override { return "GeluFusion"; }
  std::string_view description() const override {
    return "Replace the Div, Erf, Add, Mul, Mul that exporters write for GELU by one Gelu node";
  }
  std::string_view category() const override { return "Graph"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
