// MapExpansion: splits a multi-dimensional map into a nest of one-dimensional maps, one per
// parameter, so that later transformations (MapInterchange, StripMining, fusion) can act on single
// loops. The inverse of MapCollapse.
//
// Before:  map[i=0:N, j=0:M, k=0:K] { body(i, j, k) }
// After:   map[i=0:N] { map[j=0:M] { map[k=0:K] { body(i, j, k) } } }
//
// Preconditions: at least two parameters; no range depends on a later parameter of the map.
// The outermost map keeps the schedule; the inner ones are Sequential. The original entry becomes
// the innermost map (the body stays connected to it); the memlets between the new ends are the
// memlets outside the map. No options. Keeps the model differentiable.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class MapExpansion : public Transformation {
public:
  std::string_view name() const override { return "MapExpansion"; }
  std::string_view description() const override { return "Split a multi-dimensional map into a nest of one-dimensional maps"; }
  std::string_view category() const override { return "Maps"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
