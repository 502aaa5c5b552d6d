// ActivationFusion: an activation that follows a Conv, ConvTranspose, MatMul, Gemm or BatchNormalization (or a fused op
// made from one, core/expansions/FusedOp.h) becomes the fused op's `activation`, so the activation is
// computed while the product is still in registers (oneDNN's eltwise post-op) instead of in a second
// pass over the tensor, and the intermediate disappears.
//
// Before:  X, W, B -> Conv -> T -> Relu -> Y
// After:   X, W, B -> dcw::FusedConv(activation=Relu) -> Y
//          (likewise MatMul -> FusedMatMul, Gemm -> FusedGemm, ConvTranspose -> FusedConvTranspose,
//           BatchNormalization -> FusedBatchNormalization, DenseNet's BN -> Relu before a convolution; a
//           fused op that has Z but no activation yet keeps Z: act(conv + Z), as ResNet's
//           Conv -> Add(skip) -> Relu after AddFusion)
//
// Activations: Relu, LeakyRelu(alpha), Elu(alpha), Sigmoid, Tanh, HardSigmoid(alpha, beta), HardSwish,
// Softplus, Clip (min/max: attributes before opset 11, constant scalar inputs from 11), dcw::Gelu
// (GeluFusion), dcw::Silu (SiluFusion); their parameters go to `activation_params`.
// Preconditions: the producer is an unexpanded ai.onnx Conv/ConvTranspose/MatMul/Gemm/BatchNormalization or a dcw fused
// op without an activation, with no chosen implementation or one its fused op has (pure, onednn);
// its only output T is a float32 transient with one access node in the whole SDFG, written by the
// producer and read only by the activation; the activation has one output edge, to data of T's type.
// No options. Keeps ONNX semantics and the model differentiable (the fused op's pure expansion is the
// same Conv and activation).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class ActivationFusion : public Transformation {
public:
  std::string_view name() const override { return "ActivationFusion"; }
  std::string_view description() const override {
    return "Fold an activation (Relu, Clip, HardSwish, Sigmoid, Gelu, ...) after a Conv, MatMul, Gemm or BatchNormalization into one fused node";
  }
  std::string_view category() const override { return "Graph"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
