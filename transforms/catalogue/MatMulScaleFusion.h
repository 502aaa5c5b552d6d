// MatMulScaleFusion: a Mul or Div of one of a MatMul's operands by a scalar constant becomes the
// matmul's alpha (core/expansions/FusedOp.h: FusedMatMul, Y = act(alpha MatMul(A, B) + Z)), since
// (A / c) x B = (1 / c) (A x B): oneDNN scales the product in the matmul's epilogue instead of a pass
// over the operand. PyTorch exports attention's 1 / sqrt(d) so, on the query heads; without the Div the
// heads go to the matmul alone, and StridedView reads them in place.
//
// Before:  Q -> Div(Q, 8) -> Qs -> MatMul(Qs, K) -> S
// After:   Q, K -> dcw::FusedMatMul(alpha = 0.125) -> S
//
// Preconditions: the scale is an unexpanded ai.onnx Mul (either operand the constant) or Div (the
// divisor the constant, not 0) of a float32 tensor X by a float32 constant of one element, writing T of
// X's shape (no broadcast); T is a float32 transient with one access node in the whole SDFG, written by
// the scale alone and read only by an unexpanded ai.onnx MatMul or a dcw FusedMatMul, whole, at A or B;
// that matmul has no chosen implementation or one its fused op has; X is written by no other access node
// of the state. A FusedMatMul's alpha is multiplied. No options. Keeps the model differentiable (the
// fused op's pure expansion is the MatMul and a Mul by alpha); the result equals the unfused model's to
// float32 rounding (the scale applied to the product instead of the operand).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class MatMulScaleFusion : public Transformation {
public:
  std::string_view name() const override { return "MatMulScaleFusion"; }
  std::string_view description() const override {
    return "Fold a Mul or Div of a MatMul's operand by a scalar constant into the matmul's alpha (FusedMatMul): no pass over the operand";
  }
  std::string_view category() const override { return "Graph"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
