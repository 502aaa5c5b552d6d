// LayerNormFusion: the layer norm that exporters write as ops (PyTorch before opset 17, which has no
// LayerNormalization; TensorFlow and Paddle exports at any opset) becomes one ONNX LayerNormalization
// node: one pass over each row (pure: one map nest; onednn: layer_normalization_forward) instead of
// nine maps and their eight intermediates.
//
// Before:  mu = ReduceMean(x, axes) -> d = Sub(x, mu) -> Pow(d, 2) -> ReduceMean(., axes) -> Add(., eps)
//          -> Sqrt -> n = Div(d, .) -> Mul(n, gamma) -> Add(., beta) -> y
// After:   y = LayerNormalization(x, gamma, beta; axis = the first of `axes`, epsilon = eps)
// Also recognised: Mul(d, d) for the Pow; Mul(d, Reciprocal(.)) or Mul(d, Div(1, .)) for the Div; no
// Add of beta; every Add and Mul with its operands either way round.
//
// The match names the first ReduceMean, its result and the Sub; the rest is followed from there.
// Preconditions: every op is an unexpanded ai.onnx op with its operands connected; both means reduce
// the same trailing axes of x (keepdims), which is how LayerNormalization's axis reads them; the
// epsilon, the exponent and the 1 are one-element constant data (an exporter's Constant ops become such
// data by ConstantFolding, which dcw optimize runs first); gamma and beta are constant data of the
// normalized dims' shape; x and y are float32 or float64 of one shape; every intermediate is a
// transient with one access node, read only by the ops of the chain (d by the square and the
// division). Refused with the reason, because the numbers would change: the epsilon added after the
// Sqrt, means over axes that are not trailing or that differ. No options. Keeps the model's values
// and differentiability.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class LayerNormFusion : public Transformation {
public:
  std::string_view name() const override { return "LayerNormFusion"; }
  std::string_view description() const override {
    return "Replace the ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add that exporters write for a layer norm by one "
           "LayerNormalization node";
  }
  std::string_view category() const override { return "Graph"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
