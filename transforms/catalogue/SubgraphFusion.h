// SubgraphFusion: fuses a user-selected set of maps with the same iteration space into one map —
// MapFusion generalised to N maps. Arrays that connect the selected maps (written by one, read by a
// later one) become scalars local to an iteration; selected maps that do not depend on each other are
// fused side by side (as MapFusionHorizontal does). One loop nest instead of N, and no intermediate
// arrays in memory.
//
// Before:  X -> map0 { a = f(x) } -> T1 -> map1 { b = g(t1, x) } -> T2 -> map2 { y = h(t2) } -> Y
// After:   X -> map0 { a = f(x) -> T1 (scalar) -> b = g(T1, x) -> T2 (scalar) -> y = h(T2) } -> Y
//
// The match is the selection (slots node0, node1, ...): map entries or exits (a map counts once),
// plus, optionally, the access nodes between them and nodes inside the selected maps (ignored).
// Preconditions: at least two maps, all in one state and scope, with the same number of parameters
// and equal ranges (later maps' parameters are renamed to the first's). In topological order, each map
// must be fusable into the group of maps before it: every array it reads from the group is transient,
// has no other access node in the SDFG, is written by exactly one tasklet of the group one element per
// iteration (no write-conflict resolution) and read only by this map's tasklets at the same element
// (after renaming); no other path leads from the group to it; neither writes data the other reads or
// writes, and their bodies share no data container. Options: none. Keeps the model differentiable.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class SubgraphFusion : public Transformation {
public:
  std::string_view name() const override { return "SubgraphFusion"; }
  std::string_view description() const override {
    return "Fuse the selected maps (same iteration space, connected through transient arrays) into one map";
  }
  std::string_view category() const override { return "Fusion"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
