// InputChannelsLast: reorders a model input into channels-last once, in an explicit copy, where every
// node that reads it runs on oneDNN and takes that layout. An input is the caller's and stays row-major
// (NCHW); a oneDNN convolution that wants its few channels interleaved (ResNet-50's 7x7 stem: brgconv
// on acdb) then reorders it inside its call, where the canvas, the code view and the profile cannot
// tell the reorder from the convolution. After the step the reorder is a node of its own (the region's
// edge, as ChannelsLast and BlockedLayout leave them) and the readers take the copy as it is.
//
// Before:  X: float32[1, 3, 224, 224] (input, row-major) -> Conv[onednn]
// After:   X -> X_channelslast: float32[1, 3, 224, 224] channels-last (an explicit copy) -> Conv[onednn]
//
// Preconditions: X is an input of the model (not an output), a float32 array of rank 3 to 5 with known
// dims, more than one channel (dim 1) and more than one spatial position, row-major; read through one
// access node of one state, outside maps, never written; every node that reads it is a library node
// whose implementation is `onednn` and whose call takes any strides at that connector (ChannelsLast's
// list), reading the whole array. No options. Keeps differentiability (a copy).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class InputChannelsLast : public Transformation {
public:
  std::string_view name() const override { return "InputChannelsLast"; }
  std::string_view description() const override {
    return "Reorder a model input to channels-last once, in an explicit copy, for the oneDNN nodes that read it";
  }
  std::string_view category() const override { return "Data"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
