// MatMulAddToGemm: an ONNX MatMul of two matrices followed by an Add of a bias becomes one Gemm
// (Y = A·B + C), so one kernel computes the product and the bias (the bias initialises the
// accumulator instead of a second pass over Y) and the MatMul's intermediate tensor disappears.
//
// Before:  A[M,K], B[K,N] -> MatMul -> T[M,N] -> Add(T, bias) -> Y[M,N]      (or Add(bias, T))
// After:   A, B, bias -> Gemm(alpha=1, beta=1) -> Y
//
// Preconditions (on unexpanded ONNX library nodes of the default domain): A and B are 2-D;
// T is a transient written only by the MatMul and read only by the Add (one access node in the
// whole SDFG); the bias is unidirectionally broadcastable to [M, N] (rank <= 2, each dim 1 or equal)
// and is not T; Y has T's shape and dtype; the model's ai.onnx opset has a Gemm of version >= 7
// (unidirectional broadcasting of C). The bias may be constant or not.
// No options. Keeps ONNX semantics; keeps the model differentiable (Gemm has a pure expansion).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class MatMulAddToGemm : public Transformation {
public:
  std::string_view name() const override { return "MatMulAddToGemm"; }
  std::string_view description() const override {
    return "Replace a 2-D MatMul followed by an Add of a bias with one Gemm node";
  }
  std::string_view category() const override { return "Graph"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
