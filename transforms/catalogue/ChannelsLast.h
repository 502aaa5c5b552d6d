// ChannelsLast: stores an activation channels-last (NHWC and its 3-D/5-D kin) instead of row-major
// (NCHW), where every node that reads or writes it runs on oneDNN and takes that layout as it is.
// oneDNN's direct convolution, depthwise and 1x1 kernels work on channels-last activations; with the
// activations row-major, each of those calls reorders its input in and its output back on every run,
// which costs as much as the convolution itself on a MobileNet. The layout is the array's strides,
// so the IR, the pure expansions, the canvas and the code view all see it; nothing else changes.
//
// Before:  Conv[onednn] -> A: float32[1, 32, 112, 112] strides [401408, 12544, 112, 1] -> Conv[onednn]
// After:   Conv[onednn] -> A: float32[1, 32, 112, 112] strides [401408, 1, 3584, 32]   -> Conv[onednn]
//
// Preconditions: A is a transient float32 array of rank 3 to 5 with known dims, more than one channel
// (dim 1) and more than one spatial position, row-major now; all its access nodes are in the state of
// the match, outside maps; every node that reads or writes it is a library node whose implementation
// is `onednn` and whose oneDNN call takes any strides at that connector: Conv, ConvTranspose and their
// fused forms (X, Y, Z), the poolings (X, Y), BatchNormalization and its fused form (X, Y), Concat, Sum, Add, Sub, Mul,
// Div and the oneDNN eltwise ops (every operand), each reading or writing the whole array; or a Transpose
// that moves the channels last (reading it) or back from last (writing it), which then copies in memory
// order and TransposeToView makes a view (ConvNeXt's permutes around its LayerNorm and MLP).
// Add, Sub, Mul, Div and Sum need their operands of the output's shape in one layout (oneDNN's
// kernels for mixed layouts are reference code, several times slower), so the step changes the array
// together with every array such a node ties it to (its group), and only when each of them qualifies.
// Edges of the channels-last region keep their row-major arrays: the oneDNN call there reorders.
// No options. Keeps differentiability (strides only).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class ChannelsLast : public Transformation {
public:
  std::string_view name() const override { return "ChannelsLast"; }
  std::string_view description() const override {
    return "Store an activation channels-last (NHWC) where every oneDNN node around it takes that layout, so no call reorders it";
  }
  std::string_view category() const override { return "Data"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
