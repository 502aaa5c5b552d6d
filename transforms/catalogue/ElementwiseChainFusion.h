// ElementwiseChainFusion: replaces a chain of elementwise ONNX library nodes (not yet expanded) by
// ONE nested SDFG with a single map and one tasklet computing the composed expression, so that the
// intermediates are never written to memory and the chain costs one pass over the data instead of
// one per op (what graph compilers call elementwise/loop fusion).
//
// Before:  X, Y -> Add -> T1 -> Relu -> T2 -> Mul(T2, W) -> Z          (three library nodes)
// After:   X, Y, W -> fused_add [map i { let v0 = x + y; let v1 = max(v0, 0); out = v1 * w }] -> Z
//
// The match names the first two ops and the intermediate between them; the chain then extends
// greedily past the second op for as long as the next op qualifies (so one application fuses a whole
// chain). Preconditions: every op is one of Add Sub Mul Div Relu Sigmoid Tanh Exp Log Neg Abs Sqrt
// Reciprocal LeakyRelu Elu Softsign Identity (default domain), has all its operands connected and one
// output; every operand and result has the same shape (no broadcasting) and the same floating dtype
// (float32 or float64); each intermediate is transient, has no other access node in the SDFG, is
// written by its op and read only by the next op of the chain (possibly through several operands).
// Options: none. Keeps the model differentiable (the nested SDFG is a map with one tasklet).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class ElementwiseChainFusion : public Transformation {
public:
  std::string_view name() const override { return "ElementwiseChainFusion"; }
  std::string_view description() const override {
    return "Replace a chain of elementwise ONNX ops by one map with one tasklet computing the composed expression";
  }
  std::string_view category() const override { return "Graph"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
