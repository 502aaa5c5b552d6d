// HardSwishFusion: x * HardSigmoid(x; alpha 1/6, beta 0.5) — HardSwish as torch exports it before opset 14
// (MobileNetV3 after most of its convolutions) — becomes one ONNX HardSwish node (opset 14), computed in
// one pass (pure: one map; onednn: eltwise_hardswish) instead of two, and then foldable into the Conv
// before it (ActivationFusion: oneDNN's eltwise post-op), as the op of a newer export is.
//
// Before:  x -> HardSigmoid(alpha = 1/6, beta = 0.5) -> s -> Mul(x, s) -> y          (or Mul(s, x))
// After:   x -> HardSwish -> y                          y = x * max(0, min(1, x / 6 + 0.5))
//
// Preconditions: those of SelfGate.h (shared with SiluFusion: the Mul multiplies the gate by x itself,
// the gate's result is read by the Mul alone), and the HardSigmoid's alpha and beta are 1/6 and 0.5
// within float32 rounding. Refused with the reason: other alpha or beta (that is a scaled gate, not
// HardSwish), a gate of another tensor (squeeze-and-excitation's x * HardSigmoid(g)).
// No options. Keeps the model's values and differentiability.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class HardSwishFusion : public Transformation {
public:
  std::string_view name() const override { return "HardSwishFusion"; }
  std::string_view description() const override {
    return "Replace x * HardSigmoid(x) with alpha 1/6 and beta 0.5 (HardSwish before opset 14) by one HardSwish node";
  }
  std::string_view category() const override { return "Graph"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
