// LoopToMap: a counted loop whose iterations are independent becomes a parallel map, so the loop
// runs on all cores (and map transformations — tiling, fusion — apply to it).
//
// Before:  loop i = b; i < e; i = i + 1 { body state: X -> ... -> Y[i, ...] }
// After:   one state: X -> map[i = b:e] { body } -> Y
// The loop region is replaced by a new state (same label) holding a map over the loop variable; the
// body's source access nodes stay outside the map and feed it, its sink access nodes are fed by the
// map exit (whole-container memlets outside, the body's memlets inside); other body nodes go inside.
//
// Preconditions: a LoopRegion with a loop variable i, init b and condition i < e (b and e free of
// i), update i + 1; its body is a single State; every data container the body writes is, in every
// memlet on it in the body, indexed by exactly i in one and the same dimension (each iteration
// touches only its own slice, so no iteration reads what another writes), without WCR; i is not
// used outside the loop (the map does not leave it set); the body holds only access nodes, tasklets,
// maps and library nodes without subgraphs.
// No options. Keeps the model differentiable (maps, tasklets and memlets only).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class LoopToMap : public Transformation {
public:
  std::string_view name() const override { return "LoopToMap"; }
  std::string_view description() const override {
    return "Turn a counted loop with independent iterations into a parallel map over the loop variable";
  }
  std::string_view category() const override { return "Control flow"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
