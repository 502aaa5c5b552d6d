// MapFusion: producer-consumer fusion of two maps with the same iteration space. The first map
// writes a transient array element by element and only the second map reads it, each iteration
// reading exactly what the same iteration of the first wrote; after fusion one map runs both bodies
// and the array, never materialised any more, becomes a scalar transient local to one iteration
// (allocated inside the fused scope: a register, no memory traffic, one loop instead of two).
//
// Before:  A -> map[i=0:N] { t1: a = f(x) } -> T[i] -> map[j=0:N] { t2: y = g(T[j]) } -> B
// After:   A -> map[i=0:N] { t1: a = f(x) -> T (scalar) -> t2: y = g(T) } -> B
//
// Preconditions: both maps lie in the same scope and have the same number of parameters with equal
// ranges (parameter names may differ: the second map's are renamed to the first's in memlets, nested
// ranges and tasklet code); the array is transient, has no other access node anywhere in the SDFG,
// is written by exactly one tasklet of the first map (one element per iteration, no write-conflict
// resolution) and read by tasklets of the second map at the same element (after renaming); the
// second map does not depend on the first through any other path, and neither reads or writes what
// the other writes (other than the array). Options: none. Keeps the model differentiable (the result
// is maps, tasklets and memlets only).
//
// The static helpers are shared with MapFusionHorizontal, SubgraphFusion and MapReduceFusion.
#pragma once

#include "transforms/Transformation.h"

#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"

#include <map>
#include <optional>
#include <set>
#include <string>

namespace dcw::transforms {

class MapFusion : public Transformation {
public:
  std::string_view name() const override { return "MapFusion"; }
  std::string_view description() const override {
    return "Fuse a map into the map that produces its input element by element; the intermediate array becomes a scalar";
  }
  std::string_view category() const override { return "Fusion"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;

  // --- shared helpers -----------------------------------------------------------------------------
  struct Refusal {
    std::string message, hint;
  };
  // The renaming second param -> first param when both maps have the same iteration space.
  static std::optional<std::map<std::string, std::string>> sameIterationSpace(const ir::MapEntry& first,
                                                                             const ir::MapEntry& second);
  // The producer-consumer preconditions for first map -> array -> second map (see above).
  static std::optional<Refusal> checkProducerConsumer(const ir::State& st, const ir::MapExit& firstExit,
                                                      const ir::AccessNode& array, const ir::MapEntry& secondEntry);
  // Whether some path of dataflow edges leads from `from` to `to`, not passing through `avoid`.
  static bool reaches(const ir::State& st, ir::ElementId from, ir::ElementId to, ir::ElementId avoid = ir::kNoId);
  // Moves map `second` (same state, scope and iteration space) into map `first`: renames its params,
  // routes its inputs through first's entry (reusing a connector fed by the same access node) and its
  // outputs through first's exit, and removes its entry and exit. Every array named in `locals`
  // (written by first, read by second, checked by checkProducerConsumer) becomes a scalar transient
  // of the same name written by the producing tasklet and read by the consuming tasklets.
  static void fuseInto(edit::Editor& ed, ir::State& st, ir::MapEntry& first, ir::MapEntry& second,
                       const std::set<std::string>& locals);
};

} // namespace dcw::transforms
