// MapDimShuffle: reorders the parameters of one map (DaCe's MapDimShuffle), which chooses the loop
// order: the outer parameters run in parallel, the innermost one is the loop the compiler vectorizes.
// A pure convolution's map comes out of its expansion with the reduction over input channels
// innermost, walking X with a stride of a whole channel; with the output width innermost instead,
// each step of the inner loop reads X and writes Y contiguously (a 1x1 convolution 16->96 at 112x112,
// 2 threads: 3.5 ms -> 0.6 ms).
//
// Before:  map[m=0:M, o0=0:H, o1=0:W, c=0:C] { Y[m, o0, o1] += X[c, o0, o1] * W[m, c] }
// After:   map[m=0:M, o0=0:H, c=0:C, o1=0:W] { the same body }          (order=m,o0,c,o1)
//
// Preconditions: `order` names each parameter of the map once; a parameter whose range depends on
// another parameter of the map comes after it. Only the entry's parameters and ranges move; the body
// and its memlets stay as they are. Option: order (parameter names, comma-separated). Keeps the model
// differentiable.
// When it pays: contiguousOrder() — the order with the one parameter innermost that every memlet of
// the map's body either indexes in its array's unit-stride dimension, as the parameter plus terms
// without it (o1, or a window's o1 + k1), or does not name at all; auto-optimize applies that order (a
// body without nested maps only).
#pragma once

#include "transforms/Transformation.h"

#include <optional>

namespace dcw::transforms {

class MapDimShuffle : public Transformation {
public:
  std::string_view name() const override { return "MapDimShuffle"; }
  std::string_view description() const override {
    return "Reorder a map's parameters: which loops run in parallel (outer) and which one runs innermost";
  }
  std::string_view category() const override { return "Maps"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;

  // The order that puts the contiguous parameter innermost (see above), as the `order` option's text;
  // nothing when the map has none, has it innermost already, or holds nested maps or SDFGs.
  static std::optional<std::string> contiguousOrder(const Match& match, const ir::Sdfg& root);
};

} // namespace dcw::transforms
