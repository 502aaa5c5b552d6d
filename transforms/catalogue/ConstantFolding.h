// ConstantFolding: evaluates one library node at compile time when its inputs are all constant arrays
// (or, for Shape/Size, its input has a static shape) — the shape arithmetic exporters emit. The node
// disappears and its output becomes a constant array, so no code is generated for it. The one-node,
// undoable counterpart of the FoldConstants pass (transforms/FoldConstants.h), sharing its evaluation
// (evaluateFoldable, i.e. core/onnx/ShapeArithmetic.h's evaluateShapeOp).
//
// Before:  x:float32[2,3,4] → Shape → s (transient) → Gather → ...
// After:   s = constant int64[3] {2, 3, 4}                  → Gather → ...
//
// Match: `node`, a library node of the default ONNX domain without subgraphs.
// Preconditions: exactly one output edge, into an access node of a transient non-constant container
// that no other access node writes; the op is one of FoldConstants' integer ops and evaluates (all
// operands constant, or a statically shaped input of Shape/Size) to the output's element type.
// The output container keeps its name and becomes a constant (like an initializer: constant set, not
// transient, shape = the value's dims), so its readers read the constant; memlets on it move the whole
// array. Input access nodes left without edges are removed, and so is data nothing accesses any more
// (constants such as Gather's indices). Symbols that only sized the folded value stay declared (the
// editor has no primitive to remove a symbol). No options. Keeps the model differentiable (it only
// removes computations on constants).
#pragma once

#include "transforms/Transformation.h"

namespace dcw::transforms {

class ConstantFolding : public Transformation {
public:
  std::string_view name() const override { return "ConstantFolding"; }
  std::string_view description() const override {
    return "Evaluate an operation on constants at compile time and replace it by a constant array";
  }
  std::string_view category() const override { return "Data"; }
  const Pattern& pattern() const override;
  bool canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const override;
  Expected<void> apply(const Match& match, edit::Editor& editor) const override;
};

} // namespace dcw::transforms
