// TrivialMapElimination: removes the dimensions of a map that iterate exactly once; their parameters
// become constants (the range's begin), substituted in every memlet, nested map range, tasklet code
// and nested-SDFG symbol mapping inside the scope. When no dimension is left, the map entry and
// exit are removed and the body is connected directly to the data outside, with its own memlets.
//
// Before:  map[i=0:1, j=0:M] { t = f(A[i, j], i) }
// After:   map[j=0:M] { t = f(A[0, j], 0) }
// Before:  map[i=0:1] { t = g(A[i]) }   After:  t = g(A[0])   (no map)
//
// Preconditions: at least one dimension has a constant trip count of one; no library node inside
// the map (its properties are opaque to the substitution); tasklets that use a removed parameter
// must not redefine its name, and the range begin must be expressible in tasklet code (no // or %).
// No options. Keeps the model differentiable.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class TrivialMapElimination : public Transformation {
public:
  std::string_view name() const override { return "TrivialMapElimination"; }
  std::string_view description() const override {
    return "Remove map dimensions that iterate once (and the map itself when none is left)";
  }
  std::string_view category() const override { return "Maps"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
