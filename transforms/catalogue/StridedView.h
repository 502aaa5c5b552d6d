// StridedView: a map that copies an array's elements into a transient in another order or with gaps —
// a Transpose, a Slice along an inner dim, both in a row — becomes a strided view of the array
// (core/ir/View.h), read in place by the oneDNN matmuls that consume it. BERT's attention splits its
// fused QKV product into heads: per layer three slices and three transposes copied every activation
// before each attention matmul; as strided views the matmuls read the heads where the product wrote them.
//
// Before:  QKV: float32[1, 128, 2304] -> map { Qs[0, i, j] = QKV[0, i, j + 768] } -> Qs: float32[1, 128, 768]
//            -> Q4: view float32[1, 128, 12, 64] -> map { Qt[0, h, i, d] = Q4[0, i, h, d] } -> Qt -> MatMul (onednn)
// After:   QKV --(QKV[0:1, 0:128, 0:2304])--> Qt: view float32[1, 12, 128, 64], strides [.., 64, 2304, 1],
//            offset 768 -> MatMul (onednn)      (one step for each map; either order)
//
// Preconditions: the map is a copy map (CopyMap.h) writing the whole of S. The element it reads is,
// in each dim of its source, one parameter of the map plus a constant or a constant alone, each
// parameter in one dim: so S's dims step the source's dims, in any order. The source is an array (not a
// constant, stream or scalar, channels not in blocks) of constant strides, or a view of one; the new
// view shows that array, and the source view's access node goes when nothing else reads it. S is read
// only by oneDNN MatMul or FusedMatMul nodes at A or B (which describe the operand by its strides) and
// by views of S whose own readers are so: those views are placed in the array too, unless a reshape of
// theirs merges dims that S's strides keep apart. The array is written into no access node but the one
// the copy reads from (so it does not change while S is read). A copy that is one contiguous block is
// CopyToView's.
//
// Where S's readers take no strides, the write side may apply: the map's source, written by a oneDNN
// MatMul or FusedMatMul at Y (without Z) and read by the map alone, becomes a view of S written through
// — the matmul writes each element where the copy would have put it. BERT's merge of heads after the
// attention's second matmul (Transpose back, then a Reshape that a row-major GEMM reads):
//
// Before:  MatMul (onednn) -> O: float32[1, 12, 128, 64] -> map { T[0, i, h, d] = O[0, h, i, d] } -> T -> readers
// After:   MatMul (onednn) -> O: view float32[1, 12, 128, 64], strides [.., 64, 768, 1] --(T[..])--> T -> readers
//
// It needs each dim of the source read whole at a parameter of its own (the copy moves each element
// once) and the source a transient row-major array with that one access node. No options. Autodiff does not differentiate through views, so the step does not keep
// the model differentiable; `dcw optimize` applies it only when more than pure is preferred.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class StridedView : public Transformation {
public:
  std::string_view name() const override { return "StridedView"; }
  std::string_view description() const override {
    return "Make a map that copies a transposed or strided part of an array a strided view of it, read in place by oneDNN matmuls: no copy";
  }
  std::string_view category() const override { return "Data"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
  bool keepsDifferentiable() const override { return false; }
};

} // namespace dcw::transforms
