// MapTiling: splits each dimension of a map into tiles — an outer map over tile origins and the
// original map restricted to one tile — so that a tile's data stays in cache (and, on GPUs, so a tile
// maps onto a thread block).
//
// Before:  map[i=0:N, j=0:M] { body(i, j) }
// After:   map[i_tile=0:N:32, j_tile=0:M:32] { map[i=i_tile:min(i_tile+32, N), j=j_tile:min(j_tile+32, M)] { body(i, j) } }
//
// Preconditions: unit steps. Options: tile_sizes (one size for every dimension, or one per dimension;
// 0 or 1 leaves a dimension untiled). The outer map takes the schedule; the inner one runs
// sequentially inside it. Keeps the model differentiable.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class MapTiling : public Transformation {
public:
  std::string_view name() const override { return "MapTiling"; }
  std::string_view description() const override {
    return "Split a map's iteration space into tiles: an outer map over tiles around the map over one tile";
  }
  std::string_view category() const override { return "Maps"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
