// TaskletFusion: merges two tasklets of one scope where the first's result reaches only the second,
// through a scalar transient, into one tasklet whose code computes the first's result into a `let`
// local and continues with the second's statements. One tasklet instead of two: no store and reload
// of the intermediate, and a larger expression for the compiler (and autodiff) to see at once.
// Typically applied after MapFusion, which leaves producer -> scalar -> consumer inside the map.
//
// Before:  x -> t1 { a = x * 2 } -> T (scalar) -> t2 { y = sigmoid(t) + z } -> Y
// After:   x, z -> t1_t2 { let a = x * 2; y = sigmoid(a) + z } -> Y
//
// Preconditions: both tasklets are in the tasklet language (not C++) and in one state; the data
// between them holds one element, is transient, has no other access node anywhere in the SDFG, is
// written only by the first tasklet (without write-conflict resolution) through a connector that
// writes nothing else, and is read only by the second tasklet, always at the element written; no
// other path leads from the first tasklet to the second. Names of the second tasklet that clash with
// the first's are renamed. Options: none. Keeps the model differentiable (the merged code is still
// the tasklet language).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class TaskletFusion : public Transformation {
public:
  std::string_view name() const override { return "TaskletFusion"; }
  std::string_view description() const override {
    return "Merge two tasklets connected through a scalar into one tasklet (the scalar becomes a local)";
  }
  std::string_view category() const override { return "Fusion"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
