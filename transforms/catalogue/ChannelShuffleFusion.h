// ChannelShuffleFusion: ShuffleNet's channel shuffle after a concatenation — Concat along the channels,
// Reshape into K groups, swap the group and channel dims, Reshape back — becomes one
// dcw::ShuffledConcat (core/expansions/FusedOp.h) that copies each piece straight into its
// interleaved channels. The concatenation and the transpose each copied every element, and the
// transpose read it back from the concatenation: one copy stays (ShuffleNetV2 has 16 such shuffles).
//
// Before:  X0, X1: [N, C, ..] -> Concat(axis=1) -> T [N, K C, ..] -> Reshape -> U [N, K, C, ..]
//          -> Transpose(perm=0, 2, 1, 3, ..) -> V [N, C, K, ..] -> Reshape -> Y [N, K C, ..]
// After:   X0, X1 -> dcw::ShuffledConcat -> Y      (Y[n, K c + k, ..] = Xk[n, c, ..])
//
// Preconditions: an ai.onnx Concat along axis 1 of K >= 2 pieces of one shape [N, C, ..] (C known),
// with no chosen implementation or one the fused op has (pure, onednn); T, U and V transients with one
// access node each in the whole SDFG, each written by one node and read by the next alone, named in
// no control flow; U of shape [N, K, C, ..], the Transpose swapping dims 1 and 2 only, V of shape
// [N, C, K, ..], Y of T's shape; the Reshapes and the Transpose unexpanded, ai.onnx, with no
// implementation chosen but pure. The Reshapes' shape inputs go with their access nodes when nothing
// else reads them. The fused node keeps the Concat's id, label and implementation. No options. Keeps
// ONNX semantics and the model differentiable (the pure expansion is one copy map per piece).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class ChannelShuffleFusion : public Transformation {
public:
  std::string_view name() const override { return "ChannelShuffleFusion"; }
  std::string_view description() const override {
    return "Copy the pieces of a concatenation straight into a channel shuffle: Concat -> Reshape -> Transpose -> Reshape into one node";
  }
  std::string_view category() const override { return "Graph"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
