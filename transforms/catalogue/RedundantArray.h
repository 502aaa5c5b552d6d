// RedundantArray: removes a transient array whose only purpose is to be copied into another one —
// its producer writes the destination directly. Saves the buffer and one full copy.
//
// Before:  [producer] → A (transient) → B        (A → B is a copy of the whole of A)
// After:   [producer] → B
//
// The producer's memlets into A (through map exits, down to the tasklets) are re-targeted to B; when
// the copy lands in a sub-region of B (an other-subset such as B[2:6, 0:3]) their subsets are offset
// by that region's origin.
// Match: `in` (A) → `out` (B), two access nodes joined by a copy edge.
// Preconditions: A is transient, not constant, accessed by this access node only (in the whole
// SDFG), written by exactly one edge that covers all of A without write-conflict resolution, and
// read only by the copy; the copy moves all of A, unit steps, the same element counts per dimension
// (no reshaping), same dtype, no WCR; B has no other access node in this state and only the copy
// writes this one. A nested SDFG or library-node producer needs the copy to cover all of B (no
// offset). No options. Keeps the model differentiable (memlets stay analysable).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class RedundantArray : public Transformation {
public:
  std::string_view name() const override { return "RedundantArray"; }
  std::string_view description() const override {
    return "Remove a transient array that is only copied into another array: its producer writes the other array";
  }
  std::string_view category() const override { return "Data"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
