// BufferTiling: a producer map and a consumer map that communicate through a transient array are
// tiled together — one outer map over tiles runs the producer on a tile, then the consumer on the same
// tile — and the intermediate array shrinks to one tile, allocated inside the tile loop (on the stack
// when small). The intermediate then never leaves the cache, and its memory drops from the whole array
// to one tile (per thread).
//
// Before:  X → map[i=0:N] { t = f(x[i]) } → T[N] → map[j=0:N] { y = g(T[j]) } → Y
// After:   X → map[it=0:N:ts] { map[i=it:min(it+ts,N)] { T_tile[i-it] = f(x[i]) } → T_tile[ts]
//                                → map[j=it:min(it+ts,N)] { y = g(T_tile[j-it]) } } → Y
//
// Match: `first_exit` (MapExit) → `array` (AccessNode) → `second_entry` (MapEntry), MapFusion's shape.
// Preconditions (this is the simple, always-correct case, not DaCe's general buffer tiling with halos):
// both maps are at the top level of the state, have the same number of parameters, unit steps and
// ranges [0, shape[k]) of the array; the first map writes only the array, exactly at
// array[p0, ..., pn] (its own parameters, in order); the second reads it only through this access
// node, exactly at array[q0, ..., qn]; the array is transient and accessed nowhere else in its SDFG.
// Anything else the maps read comes in through the new outer map with its original memlet, and the
// second map's outputs leave through it (an over-approximation per tile, as in MapTiling).
// Options: tile_size (elements per dimension, same for every dimension; default 32). The outer map
// takes the first map's schedule; both inner maps run sequentially. Keeps the model differentiable.
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class BufferTiling : public Transformation {
public:
  std::string_view name() const override { return "BufferTiling"; }
  std::string_view description() const override {
    return "Tile a producer map and its consumer map together so that the array between them shrinks to one tile";
  }
  std::string_view category() const override { return "Data"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
