// MapFlatten: merges several parameters of one map into a single parameter over the product of their
// ranges; the old parameters become its digits (p // W and p % W). Where every memlet indexes them as
// consecutive dimensions of a row-major array, whole (o0 in H, o1 in W), the element offset
// W*(p // W) + p % W simplifies to p (core/symbolic), so the loop over p steps through memory by one
// element across the whole H*W plane. A pointwise convolution at 7x7 then has one unit-stride loop of
// 49 iterations innermost instead of seven loops of 7, which the compiler vectorizes (EfficientNet-B0's
// 1152 -> 192 at 7x7, pure, 2 threads: 3.0 ms -> 0.97 ms).
//
// Before:  map[m=0:M, o0=0:7, c=0:C, o1=0:7] { Y[m, o0, o1] += X[c, o0, o1] * W[m, c] }
// After:   map[m=0:M, c=0:C, o0_o1=0:49]     { Y[m, o0_o1 // 7, o0_o1 % 7] += X[c, o0_o1 // 7, o0_o1 % 7] * W[m, c] }
//          (params=o0,o1; the generated offsets are 49*m + o0_o1 and 49*c + o0_o1)
//
// Preconditions: `params` names two or more distinct parameters of the map, most significant first;
// each of their ranges begins at 0 with step 1 and names no parameter of the map, and no range of the
// map names them; the body holds no library node, and no tasklet uses them in its code (tasklet code
// cannot write // or %). The merged parameter takes the place of the last one named. A map's
// iterations are unordered, so the merge is exact whatever the order. Option: params (comma-separated).
// Keeps the model differentiable.
// When it pays: contiguousParams() — the longest run of parameters that every memlet of the body
// either does not name, or names whole as consecutive dimensions of a row-major array, all but the
// first spanning their dimension, never moving the outermost (parallel) parameter of a reduction
// behind another one; auto-optimize applies it (a body without nested maps only). The CPU generator
// sees that a merged parameter's digits write distinct elements, so a parallel loop over it needs no
// atomics (core/analysis/WriteConflicts).
#pragma once

#include "transforms/Transformation.h"

#include <optional>

namespace dcw::transforms {

class MapFlatten : public Transformation {
public:
  std::string_view name() const override { return "MapFlatten"; }
  std::string_view description() const override {
    return "Merge several parameters of a map into one over the product of their ranges (one long unit-stride loop)";
  }
  std::string_view category() const override { return "Maps"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;

  // The run of parameters whose merge makes their memlets' offsets one contiguous range (see above), as
  // the `params` option's text; nothing when the map has none or holds nested maps or SDFGs.
  static std::optional<std::string> contiguousParams(const Match& match, const ir::Sdfg& root);
  // Whether merging `params` (the match's option) is worth a step to auto-optimize: the body reduces
  // (write-conflict resolution: its innermost loop runs again for every step of the reduction, as in a
  // pure convolution), or the last parameter merged spans fewer than 16 iterations (less than one
  // AVX-512 vector of floats). A streaming copy over rows of 28 gains nothing measurable (ShuffleNet's
  // channel shuffle: within noise, if anything slower), so it is left as it is.
  static bool pays(const Match& match, const ir::Sdfg& root);
};

} // namespace dcw::transforms
