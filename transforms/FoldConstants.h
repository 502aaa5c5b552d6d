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
// computations on constants). Every change goes through an edit::Editor, so a fold is undoable like
// any other command; the Sdfg overload is for a model no History holds (it drops the journal).
#pragma once

#include "core/ir/Sdfg.h"
#include "core/ir/Tensor.h"
#include "core/support/Expected.h"

#include <optional>

namespace dcw::ir {
class LibraryNode;
}
namespace dcw::edit {
class Editor;
}

namespace dcw::transforms {

struct FoldReport {
  int folded = 0;
};

// Folds in every state of the editor's model and of its library-node subgraphs, journaled.
FoldReport foldConstants(edit::Editor& editor);
// The same on a model no History holds, through a throwaway editor.
FoldReport foldConstants(ir::Sdfg& sdfg);

// The evaluation both this pass and the ConstantFolding transformation use: the value library node
// `n` of state `st` (in SDFG `sdfg`) folds to, or nullopt when it does not fold (another domain, a
// subgraph, not exactly one output edge, an output that is not a transient non-constant access node,
// an operand that is neither constant nor — for Shape/Size — statically shaped, or an op outside the
// list above). `output` receives the descriptor of the node's output when it folds.
std::optional<ir::Tensor> evaluateFoldable(const ir::Sdfg& sdfg, const ir::State& st, const ir::LibraryNode& n,
                                           const ir::DataDescriptor** output = nullptr);

} // namespace dcw::transforms
