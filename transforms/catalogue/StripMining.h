// StripMining: splits ONE dimension of a map into strips — an outer map over strip origins around
// the original map, whose chosen dimension is restricted to one strip. Unlike MapTiling, the new
// outer map has only the strip parameter, so the other dimensions stay where they were.
//
// Before:  map[i=0:N, j=0:M] { body(i, j) }
// After:   map[j_strip=0:M:32] { map[i=0:N, j=j_strip:min(j_strip+32, M)] { body(i, j) } }
//
// Preconditions: the chosen dimension has a unit step, its range does not depend on the map's other
// parameters, and it does not already fit in one strip.
// Options: dim (the dimension, -1 = the last; default -1), size (strip length; default 32).
// The outer map takes the schedule; the strip-mined map runs sequentially inside it.
// Keeps the model differentiable (only maps and memlets change).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class StripMining : public Transformation {
public:
  std::string_view name() const override { return "StripMining"; }
  std::string_view description() const override {
    return "Split one dimension of a map into strips: an outer map over strips around the map over one strip";
  }
  std::string_view category() const override { return "Maps"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
