// MapInterchange: swaps the two maps of a perfect nest, so that the inner loop becomes the outer
// one (to change which dimension runs in parallel, or to make the innermost loop walk memory
// contiguously).
//
// Before:  map[i=0:N] { map[j=0:M] { body(i, j) } }
// After:   map[j=0:M] { map[i=0:N] { body(i, j) } }
//
// Preconditions: `outer` feeds only `inner` and `inner`'s exit feeds only `outer`'s exit (a perfect
// nest, ScopeTools::isPerfectNest), and the inner ranges do not depend on the outer parameters.
// Each entry keeps its label and schedule; only parameters and ranges move. The memlets between
// the two entries (and the two exits) become the memlets outside the nest, which cover what any
// iteration of the new outer map needs. No options. Keeps the model differentiable.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class MapInterchange : public Transformation {
public:
  std::string_view name() const override { return "MapInterchange"; }
  std::string_view description() const override { return "Swap the parameters and ranges of two perfectly nested maps"; }
  std::string_view category() const override { return "Maps"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
