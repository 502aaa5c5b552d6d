// RedundantSecondArray: removes a transient array that only holds a copy of another array — its
// readers read the original directly. Saves the buffer and one copy.
//
// Before:  A → B (transient) → [readers]        (A[region] → B is a copy filling all of B)
// After:   A → [readers]
//
// The readers' memlets on B (through map entries, down to the tasklets) are re-targeted to A; when
// the copy reads a sub-region of A (A[2:6, 0:3]) their subsets are offset by that region's origin.
// Match: `in` (A) → `out` (B), two access nodes joined by a copy edge.
// Preconditions: B is transient, not constant, accessed by this access node only (in the whole SDFG),
// written only by the copy; the copy fills all of B from a region of A of the same element counts
// per dimension (no reshaping), unit steps, same dtype, no WCR; no other access node writes A in this
// state (so A cannot change between the copy and the reads). A nested SDFG or library-node reader needs
// the copy to read all of A (no offset). No options. Keeps the model differentiable.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class RedundantSecondArray : public Transformation {
public:
  std::string_view name() const override { return "RedundantSecondArray"; }
  std::string_view description() const override {
    return "Remove a transient array that only holds a copy of another array: its readers read the original";
  }
  std::string_view category() const override { return "Data"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
