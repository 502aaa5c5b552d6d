// ConvBatchNormFolding: folds an inference-mode BatchNormalization that follows a Conv into the
// Conv's weights and bias, so the normalisation costs nothing at run time (one op and one full pass
// over the activation less).
//
// Before:  X -> Conv(W, b) -> C -> BatchNormalization(scale, B, mean, var, epsilon) -> Y
// After:   X -> Conv(W', b') -> Y      with, per output channel m and f = scale[m] / sqrt(var[m] + eps):
//            W'[m, ...] = W[m, ...] * f        b'[m] = (b[m] - mean[m]) * f + B[m]    (b = 0 if absent)
// The new weights are computed in double and rounded to float32; they become new constant data
// ("<W>_folded", "<conv>_folded_bias"); constants nothing uses any more are removed.
//
// Preconditions (unexpanded ONNX library nodes of the default domain): float32 throughout; W, the
// Conv's bias (if any) and the BatchNormalization's scale, B, mean and var are constant arrays, the
// four BN parameters of shape [M] with M = W's dim 0; the BatchNormalization runs in inference mode
// (training_mode absent or 0, only its Y output connected); the Conv's output C is a transient with
// one access node that only the BatchNormalization reads.
// No options. Inference-only: training-mode BatchNormalization semantics (batch statistics, running
// mean/var updates) are not kept, so do not fold before training. The result is still differentiable
// with respect to the inputs (a Conv with constant weights).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class ConvBatchNormFolding : public Transformation {
public:
  std::string_view name() const override { return "ConvBatchNormFolding"; }
  std::string_view description() const override {
    return "Fold an inference-mode BatchNormalization after a Conv into the Conv's constant weights and bias";
  }
  std::string_view category() const override { return "Graph"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
  // The original weights and BN parameters are replaced by folded constants: gradients with respect
  // to them (training) no longer exist, so the step is marked as not keeping differentiability.
  bool keepsDifferentiable() const override { return false; }
};

} // namespace dcw::transforms
