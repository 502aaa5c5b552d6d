// GpuBlockTiling: makes a GPU kernel's map run in thread blocks — MapTiling splits the gpu_device map
// into an outer map over tiles (the grid: a thread block per tile) and the map over one tile, which
// becomes a gpu_threadblock map (the block's threads, one point each). What a block's threads share
// can then go to shared memory (InLocalStorage between the two maps puts the tile there).
//
// Before:  map[i=0:N, j=0:M] @gpu_device { body(i, j) }
// After:   map[i_tile=0:N:32, j_tile=0:M:8] @gpu_device { map[i=i_tile:min(i_tile+32, N), j=j_tile:min(j_tile+8, M)] @gpu_threadblock { body(i, j) } }
//
// Preconditions: the map is gpu_device (GpuTransform made it so) with unit steps and no thread-block
// map inside yet; MapTiling's; a tile of at most 1024 points (a CUDA block's threads). Options:
// tile_sizes (as MapTiling's; default 32, 8 for two dimensions and more, 256 for one). Keeps the
// model differentiable (a schedule and a tiling).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class GpuBlockTiling : public Transformation {
public:
  std::string_view name() const override { return "GpuBlockTiling"; }
  std::string_view description() const override {
    return "Run a GPU map in thread blocks: tile it, the tile's points becoming the threads of one block";
  }
  std::string_view category() const override { return "Targets"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
