// AddFusion: an Add of a tensor Z to the result of a Conv, ConvTranspose, MatMul, Gemm or BatchNormalization (or of a fused
// op made from one without Z or activation yet, core/expansions/FusedOp.h) becomes the fused op's
// input Z, so the sum happens in the producer's kernel (oneDNN: Z of the result's shape is a sum
// post-op — ResNet's skip connection; a broadcast Z such as a linear layer's bias [N] is the matmul's
// bias or a binary post-op) instead of in a separate pass that reads the result back.
//
// Before:  X, W -> Conv -> T -> Add(T, skip) -> S -> Relu -> Y        (or Add(skip, T))
// After:   X, W, skip -> dcw::FusedConv(Z=skip) -> S -> Relu -> Y
//          and ActivationFusion then gives  X, W, skip -> dcw::FusedConv(Z=skip, activation=Relu) -> Y
//          (likewise MatMul -> Add(bias) -> FusedMatMul(Z=bias), as in a transformer's linear layers)
//
// Preconditions: the producer is an unexpanded ai.onnx Conv/ConvTranspose/MatMul/Gemm/BatchNormalization or a dcw fused
// op with neither Z nor an activation, with no chosen implementation or one its fused op has; its only
// output T is a float32 transient with one access node in the whole SDFG, written by the producer and
// read only by an ai.onnx Add (both operands connected, T only once); the other operand Z is an access
// node of float32 data that broadcasts to T without growing it (numpy rules: rank <= T's, each dim 1 or
// T's), that no path from the producer reaches and that nothing else writes in the state; the Add's one
// output has T's type.
// No options. Keeps ONNX semantics and the model differentiable (the fused op's pure expansion is the
// same producer and Add).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class AddFusion : public Transformation {
public:
  std::string_view name() const override { return "AddFusion"; }
  std::string_view description() const override {
    return "Fold an Add of a residual or bias into the Conv, MatMul, Gemm or BatchNormalization that computes the other operand (one fused node)";
  }
  std::string_view category() const override { return "Graph"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
