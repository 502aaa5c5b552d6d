// ConcatBatchNormFusion: a batch normalization (with or without its Relu) of a concatenation along the
// channels becomes one dcw::ConcatBatchNormalization (core/expansions/FusedOp.h), so the pieces are
// normalized while they are copied into place: the concatenation is written once and never read back
// (DenseNet normalizes the concatenation of all earlier layers' outputs before each layer: 58 such
// pairs in DenseNet-121, a quarter of its non-convolution time).
//
// Before:  X0, X1, ... -> Concat(axis=1) -> T -> BatchNormalization (or dcw::FusedBatchNormalization,
//                                                activation=Relu) -> Y
// After:   X0, X1, ..., scale, B, input_mean, input_var -> dcw::ConcatBatchNormalization(epsilon,
//                                                activation) -> Y
//
// Preconditions: the producer is an ai.onnx Concat along axis 1 (the channels), float32, with no chosen
// implementation or one the fused op has (pure, onednn); its output T is a float32 transient with one
// access node in the whole SDFG, read only by the batch normalization's X; the normalization is an
// inference one (no training_mode, Y only) with its four parameters connected, or a
// FusedBatchNormalization without Z whose activation is Relu or none; both nodes' chosen
// implementations agree. The fused node keeps the Concat's id, label and path. No options. Keeps ONNX
// semantics and the model differentiable (the pure expansion is the Concat and the normalization again).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class ConcatBatchNormFusion : public Transformation {
public:
  std::string_view name() const override { return "ConcatBatchNormFusion"; }
  std::string_view description() const override {
    return "Normalize a concatenation as it is made: Concat along the channels -> BatchNormalization (and Relu) into one node";
  }
  std::string_view category() const override { return "Graph"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
