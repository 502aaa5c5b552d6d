// FoldConstants: evaluates, at compile time, the library nodes whose inputs are all constants (or,
// for Shape/Size, whose input has a static shape) — the shape arithmetic that exporters emit
// (Shape → Gather → Unsqueeze → Concat → Reshape). Each folded node disappears and its outputs become
// constant arrays, so no code is generated for it.
//
// Before:  x:float32[2,3] → Shape → s → Gather(idx=0) → g → Unsqueeze → u → Concat(u, [-1]) → shape
// After:   shape = constant int64[2] {2, -1}   (the four nodes are gone)
//
// Folds integer-valued ops only (Shape, Size, Constant, Identity, Cast, Neg, Abs, Gather, Unsqueeze, Squeeze,
// Concat, Slice, Reshape, Add, Sub, Mul, Div, Equal, Where, ConstantOfShape, Range, ReduceProd);
// anything else is left for the expansion. Keeps the model differentiable (it only removes
// computations on constants).
#pragma once

#include "core/ir/Sdfg.h"
#include "core/support/Expected.h"

namespace dcw::transforms {

struct FoldReport {
  int folded = 0;
};

// Folds in every state of the SDFG and of its library-node subgraphs.
FoldReport foldConstants(ir::Sdfg& sdfg);

} // namespace dcw::transforms
