// MapCollapse: merges a perfect nest of two maps into one map over the union of their parameters,
// which gives the scheduler one larger iteration space (e.g. to parallelise over both dimensions).
//
// Before:  map[i=0:N] { map[j=0:M] { body(i, j) } }
// After:   map[i=0:N, j=0:M] { body(i, j) }
//
// Preconditions: a perfect nest (`outer` feeds only `inner` and `inner`'s exit feeds only `outer`'s
// exit; ScopeTools::isPerfectNest), and the inner ranges do not depend on the outer parameters.
// The merged map is the outer one (label and schedule); the inner entry and exit are removed and
// the body is connected to the outer ends with its own memlets. No options.
// Keeps the model differentiable. MapExpansion is the inverse.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class MapCollapse : public Transformation {
public:
  std::string_view name() const override { return "MapCollapse"; }
  std::string_view description() const override { return "Merge two perfectly nested maps into one map over both sets of parameters"; }
  std::string_view category() const override { return "Maps"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
