// AccumulateTransient: in a map nest whose inner map accumulates into an array with write-conflict
// resolution (sum, prod) — a reduction, a MatMul's k loop — the inner map accumulates into a small
// transient buffer local to the outer map's iteration first (initialised with the identity), and the
// buffer is added to the array once afterwards. Fewer (atomic) read-modify-writes of the array; the
// accumulator stays in registers/cache.
//
// Before:  outer_entry → inner_entry → t → inner_exit ──Y[region] (CR: sum)──→ outer_exit → Y
// After:   outer_entry → init map {Y_acc[..] = 0} → Y_acc ─(order)─→ inner_entry → t → inner_exit
//            ──Y_acc (CR: sum)──→ Y_acc ──copy Y_acc[0:box] → Y[box] (CR: sum)──→ Y ──→ outer_exit → Y
//
// The box is the bounding box of the inner map's writes over its range (monotone memlets); the buffer
// has a constant upper bound of its size (CpuStack up to 4 KiB, else default storage) and lives inside
// the outer map's scope. Elements of the box the inner map does not write keep the identity and add
// nothing, so the box need not be dense.
// Match: `inner` → `outer`, two map exits, the inner map directly inside the outer.
// Preconditions: one connector carries `array` out of the inner map with WCR sum or prod (the same on
// every write inside); nothing else in the outer map accesses the array; unit steps in the inner map;
// the box has a constant size; a numeric element type.
// Options: array (the accumulated container; empty = the first one written with WCR).
// Keeps the model differentiable (an initialising map, WCR memlets and a copy, all analysable).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class AccumulateTransient : public Transformation {
public:
  std::string_view name() const override { return "AccumulateTransient"; }
  std::string_view description() const override {
    return "Accumulate an inner map's reduction into a local transient and add it to the array once";
  }
  std::string_view category() const override { return "Data"; }
  const Pattern& pattern() const override;
  std::vector<OptionSpec> options() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
