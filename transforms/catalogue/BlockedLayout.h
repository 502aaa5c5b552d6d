// BlockedLayout: stores the activations of a state with their channels in blocks of 16 (or 8), oneDNN's
// nChw16c and its 3-D/5-D kin, wherever every node that reads or writes them runs on oneDNN: the
// whole-graph layout propagation of a CNN. oneDNN's AVX-512 convolution, pooling and normalization
// kernels are written for blocked activations; given row-major or channels-last ones, some reorder
// them in and out on every call. The layout is part of the array (DataDescriptor::channelBlock): the
// canvas and the inspector show it, the pure expansions address it, the C++ code indexes it.
//
// Before:  Conv[onednn] -> A: float32[1, 64, 56, 56]                                     -> Conv[onednn] -> B -> Flatten
// After:   Conv[onednn] -> A: float32[1, 64, 56, 56] nChw16c strides [200704, 50176, 896, 16] -> Conv[onednn] -> B nChw16c
//          -> B_rowmajor (an explicit copy: the reorder at the region's edge) -> Flatten
//
// Preconditions (each array, as ChannelsLast's, see LayoutRegion): a transient float32 array of rank 3
// to 5 with known dims, a multiple of the block of channels and more than one spatial position,
// row-major now; all its access nodes in the state of the match, outside maps; every node that writes
// it and every node but the row-major readers that reads it is a oneDNN library node that takes any
// layout there (ChannelsLast's list, less ShuffledConcat and the Transposes). The matched array must qualify; with
// region=state (the default) every other array of its state that qualifies changes too, in one step.
// Options: block (16 or 8), region (state or array). Keeps differentiability (the layout only).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class BlockedLayout : public Transformation {
public:
  std::string_view name() const override { return "BlockedLayout"; }
  std::string_view description() const override {
    return "Store the activations between oneDNN nodes with their channels in blocks (nChw16c), leaving reorders only at the region's edges";
  }
  std::string_view category() const override { return "Data"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
