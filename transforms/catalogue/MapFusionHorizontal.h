// MapFusionHorizontal: fuses two independent maps with the same iteration space that read the same
// input into one map, so the shared input is loaded once per iteration and the loop overhead (and,
// on a GPU, a kernel launch) is paid once.
//
// Before:  X -> map[i=0:N] { a = f(X[i]) } -> A       X -> map[j=0:N] { b = g(X[j]) } -> B
// After:   X -> map[i=0:N] { a = f(X[i]); b = g(X[i]) } -> A, B
//
// The match is an access node read by both maps (input -> first, input -> second). Preconditions:
// both maps lie in the same scope and have the same number of parameters with equal ranges (the
// second map's parameters are renamed to the first's); no path leads from one map to the other (they
// are independent); neither writes data the other reads or writes; their bodies use no common data
// container (locals of one iteration stay separate). Options: none. Keeps the model differentiable.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class MapFusionHorizontal : public Transformation {
public:
  std::string_view name() const override { return "MapFusionHorizontal"; }
  std::string_view description() const override {
    return "Fuse two independent maps with the same iteration space that read the same input into one map";
  }
  std::string_view category() const override { return "Fusion"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
