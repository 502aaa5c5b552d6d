// AutoOptimize: a heuristic pipeline of ordinary commands that turns an imported model into a
// reasonably fast one, one recorded step at a time (so every step is undoable and the result
// exports as a plain script that replays step by step):
//   1. before expansion, rewrites of ONNX ops: ConstantFolding and every pipeline name of category
//      "Graph" (ConvBatchNormFolding, MatMulAddToGemm, GeluFusion, LayerNormFusion, SiluFusion, SqueezeExcitationFusion,
//      AddFusion, ActivationFusion, ConcatBatchNormFusion, ElementwiseChainFusion).
//      SqueezeExcitationFusion applies only where the convolution's weights are fewer than the
//      activation elements the scale multiplied (it then moves less memory). The epilogue fusions (AddFusion, ActivationFusion:
//      Conv/MatMul/Gemm + Add + activation -> one dcw fused op; ConcatBatchNormFusion: Concat +
//      BatchNormalization) apply only where the first preferred implementation other
//      than pure takes the producer, and are rolled back when it does not take the fused node (so
//      `--prefer pure` keeps them out: their pure expansion would be the unfused ops again, without
//      ElementwiseChainFusion's single map);
//   2. `set PATH implementation=onednn` (the first of `prefer`) on every library node without a choice
//      whose op has that implementation for the CPU and whose expansion takes the node (float32,
//      known shapes, supported attributes; expansions::canExpand), then ExpandLibraryNode with each
//      node's implementation (pure where none was chosen) on every library node, until none is left;
//   3. the map-level pipeline, each transformation applied at every applicable match until none
//      applies: InlineNestedSDFG, StateFusion, RedundantArray, RedundantSecondArray,
//      DeadDataflowElimination, MapFusion, MapReduceFusion, TaskletFusion, TrivialMapElimination,
//      MapCollapse, MapDimShuffle (only the order that puts the contiguous parameter innermost:
//      MapDimShuffle::contiguousOrder), MapFlatten (only the run MapFlatten::contiguousParams gives, where MapFlatten::pays),
//      Vectorization, MapTiling (once per outermost map, never on a tile map or inside
//      one; only dimensions of constant extent larger than the tile, only maps with two such,
//      without write-conflict resolution inside, and not on a map that streams: every memlet names
//      every parameter and the innermost one in its unit-stride dimension, so no tile holds data
//      another reuses). Names the registry does not contain are skipped;
//      transformations that undo each other (MapExpansion/MapCollapse, MapInterchange) are left out;
//   4. `set PATH schedule=cpu_multicore` on every outermost map that is not already parallel.
// For the GPU (target "cuda"): after step 1 the model moves onto the GPU (`apply GpuTransform` on its
// first computing state, whole model) unless a state is there already; implementations are those for
// the GPU (cuBLAS, cuDNN; the epilogue fusions and ChannelsLast, which only oneDNN runs, are left out);
// MapDimShuffle, Vectorization and MapTiling (CPU loop shapes) are skipped, so fused elementwise chains and reductions
// stay whole kernels; step 4 sets the outermost maps of GPU states to `gpu_device`.
// A step that fails or would leave the model invalid is rolled back and not tried again; a step
// budget bounds the whole run.
#pragma once

#include "core/edit/Command.h"
#include "core/edit/History.h"
#include "core/support/Expected.h"

#include <functional>
#include <string>
#include <vector>

namespace dcw::transforms {

struct AutoOptimizeOptions {
  // Transformation names in the order they run; empty = defaultPipeline(). Names whose category is
  // "Graph", ConstantFolding and ElementwiseChainFusion run before the library nodes are expanded.
  std::vector<std::string> pipeline;
  bool expand = true;      // expand every library node (its chosen implementation, else pure)
  // Implementations chosen for library nodes that take them, first match wins; empty or {"pure"}: pure
  // everywhere (the model stays differentiable).
  std::vector<std::string> prefer{"onednn"};
  // The hardware the model is optimized for: "cpu" or "cuda" (the GPU; cuda-sim runs the same program).
  std::string target = "cpu";
  // The layout step (the pipeline's ChannelsLast): "channels-last" (ChannelsLast on every array it
  // takes), "blocked" / "blocked8" (BlockedLayout with blocks of 16 / 8 first, then ChannelsLast on the
  // arrays whose channels do not fill blocks), or "none".
  std::string layout = "channels-last";
  bool tile = true;        // MapTiling on outermost maps not yet tiled
  std::string tileSizes = "32";
  bool parallelize = true; // outermost maps -> cpu_multicore
  size_t maxSteps = 20000;                // budget of executed steps (guards against loops)
  size_t limitPerTransformation = 5000;   // structural matches enumerated per pass
  // Progress and skipped steps, one line each (optional).
  std::function<void(const std::string&)> log;
};

// The default pipeline (step 1 and 3 above, in order).
const std::vector<std::string>& defaultPipeline();

// Runs the pipeline through the history, one history step per command. Returns the number of
// steps executed. Fails only when the model does not validate to begin with.
Expected<size_t> autoOptimize(edit::History& history, const AutoOptimizeOptions& options = {});

// The whole pipeline as ONE history entry (the GUI's "Auto-optimize"). Its script line is the
// sub-steps' lines after a comment `# auto-optimize (N steps)`, so an exported script replays it
// step by step. scriptLine() and title() describe the last execution.
class AutoOptimizeCommand : public edit::Command {
public:
  explicit AutoOptimizeCommand(AutoOptimizeOptions options = {}) : options_(std::move(options)) {}
  std::string scriptLine() const override;
  std::string title() const override;
  Expected<void> execute(edit::Editor& editor) const override;
  bool keepsDifferentiable() const override { return differentiable_; }
  size_t steps() const { return lines_.size(); }
  const std::vector<std::string>& stepLines() const { return lines_; }

private:
  AutoOptimizeOptions options_;
  mutable std::vector<std::string> lines_;
  mutable bool differentiable_ = true;
};

} // namespace dcw::transforms
