// InterleaveAccumulation: in a map that accumulates (write-conflict resolution sum, prod, min, max) into
// elements its innermost parameter does not change — a dot product's k, a reduction's axis — each
// iteration of the pipelined innermost loop waits for the previous one's adder: on an FPGA the loop
// starts an iteration only every adder-latency cycles (II 4 for float32 on the devices' table). Putting
// a parameter the accumulated element does depend on innermost interleaves the accumulations: consecutive
// iterations update different elements, each element is revisited only after that parameter's trip
// count, and the loop starts one iteration a cycle.
//
// Before:  map[i=0:16, j=0:32, k=0:64] { Y[i, j] += X[i, k] * W[k, j] }   II 4: 32,768 x 4 cycles
// After:   map[i=0:16, k=0:64, j=0:32] { Y[i, j] += X[i, k] * W[k, j] }   II 1 (Y[i, j] every 32 iterations)
//
// A map's points are unordered, so reordering its parameters keeps what it computes; floating-point
// sums are then added in another order (as on any parallel target). Match: a map entry. Preconditions:
// two or more parameters whose ranges do not depend on each other; some write leaving the map's body
// accumulates into a subset without the innermost parameter; a parameter that every such subset uses
// with a constant trip count of 2 or more (option `innermost`, or the one with the most trips) becomes
// innermost, the others keeping their order. Keeps the model differentiable. For any target; the cycle
// estimate of an FPGA kernel shows the change (CycleEstimate.h).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class InterleaveAccumulation : public Transformation {
public:
  std::string_view name() const override { return "InterleaveAccumulation"; }
  std::string_view description() const override {
    return "Reorder a map so that consecutive iterations accumulate into different elements: a pipelined loop no longer waits for its adder";
  }
  std::string_view category() const override { return "Targets"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
