// MapUnroll: marks a map with a small constant trip count as Unrolled, so that the code generator
// asks the compiler to unroll its loops completely (`#pragma GCC unroll N` per loop, no OpenMP
// pragma). Small maps — a 3x3 convolution window, a short reduction — then lose their loop overhead.
//
// Before:  map[i=0:3, j=0:3] (default)   { body(i, j) }
// After:   map[i=0:3, j=0:3] (unrolled)  { body(i, j) }   -> #pragma GCC unroll 3 / for i ... #pragma GCC unroll 3 / for j ...
//
// Preconditions: every range has a constant trip count and their product is at most max_trip; the
// map is not already unrolled and is not scheduled on a GPU or an FPGA.
// Options: max_trip (largest total trip count; default 16). Keeps the model differentiable (only
// the schedule changes).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class MapUnroll : public Transformation {
public:
  std::string_view name() const override { return "MapUnroll"; }
  std::string_view description() const override { return "Unroll a map with a small constant trip count"; }
  std::string_view category() const override { return "Maps"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
