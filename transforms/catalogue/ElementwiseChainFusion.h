// ElementwiseChainFusion: replaces a subgraph of elementwise ONNX library nodes (not yet expanded)
// that ends in one result by ONE nested SDFG with a single map and one tasklet computing the composed
// expression, so that the intermediates are never written to memory and the subgraph costs one pass
// over the data instead of one per op (what graph compilers call elementwise/loop fusion). It is the
// fusion for the blocks no recognition names: a custom activation, GELU's tanh form as exporters write
// it, a norm's elementwise tail.
//
// Before:  X, Y -> Add -> T1 -> Relu -> T2 -> Mul(T2, W) -> Z          (three library nodes)
// After:   X, Y, W -> fused_add [map i { let v0 = x + y; let v1 = max(v0, 0); out = v1 * w }] -> Z
// Before:  P = Pow(X, 3); R = Add(X, Mul(P, 0.044715)); U = Add(Tanh(Mul(R, 0.7978845)), 1);
//          H = Mul(X, 0.5); Z = Mul(H, U)                               (eight library nodes)
// After:   X -> fused_pow [map i { ...; out = (x * 0.5) * (tanh(...) + 1) }] -> Z
//
// The match names the first two ops and the intermediate between them; the subgraph then grows past
// the last op while one op alone reads its result, and back to the op that computes an operand when
// only the subgraph reads that operand (so one application fuses the whole subgraph). Preconditions:
// every op is one of Add Sub Mul Div Pow Relu Sigmoid Tanh Exp Log Neg Abs Sqrt Reciprocal LeakyRelu
// Elu Softsign Erf Identity (default domain), has all its operands connected and one output; every
// operand and result has the same shape and the same floating dtype (float32 or float64), except
// one-element constants of that dtype, which the tasklet takes as literals (Pow by 2 or 3 as
// products); each intermediate is transient, has no other access node in the SDFG, is written by its
// op and read only by ops of the subgraph. Refused: broadcasting of anything but a one-element
// constant, an intermediate read outside. Options: none. Keeps the model differentiable (the nested
// SDFG is a map with one tasklet).
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
