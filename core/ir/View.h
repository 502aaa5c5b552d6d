// View: a transient (DataKind::View) whose elements are another array's, read through its own shape —
// a Reshape, Flatten, Squeeze or Unsqueeze of a row-major array as a different index over the same
// bytes (transforms/catalogue/ReshapeToView), or one contiguous block of it, a Slice's or Split's part
// (transforms/catalogue/CopyToView), so no copy is made. As in DaCe, the view's one access node
// is joined to an access node of the viewed array by one edge carrying the whole viewed array:
//
//   A: float32[1, 232, 28, 28] ──(A[0:1, 0:232, 0:28, 0:28])──> B: view float32[1, 2, 116, 28, 28] ──> readers of B
//
// Both are row-major with the same element type; the edge carries the whole array (same element count)
// or a block of its dims (dims before one an index each, that one a range, the dims after it whole)
// with the view's element count. The viewed array is an array (not a view or stream), the view a
// transient with no other access node, written by nothing else. Code generation gives B the storage of
// A from the block's first element on (SdfgWalker) and emits nothing for the edge; validation checks
// these rules and names the view.
#pragma once

#include "core/support/Expected.h"
#include "core/symbolic/Expr.h"

namespace dcw::ir {

class AccessNode;
class DataDescriptor;
class DataflowEdge;
class Sdfg;
class State;

struct ViewSource {
  const State* state = nullptr;
  const AccessNode* view = nullptr;   // the view's access node
  const AccessNode* viewed = nullptr; // the viewed array's access node feeding it
  const DataflowEdge* edge = nullptr; // viewed -> view
  const DataDescriptor* array = nullptr; // the viewed array
};

// The array a view of `sdfg` shows (its one access node, fed by one edge from an access node of an
// array), or why its structure breaks the rules above; validation checks this for every view that has
// an access node (an unused view is no error).
Expected<ViewSource> viewSource(const Sdfg& sdfg, const DataDescriptor& view);
// What code generation needs besides: both row-major, one element type, the edge carrying the whole
// array or a block of it with the view's element count. Returns the offset, in elements, of the view's
// first element in the array. (A strided view of part of an array is IR, but no target gives it storage.)
Expected<sym::Expr> checkPlainView(const Sdfg& sdfg, const DataDescriptor& view, const ViewSource& source);

// Whether the descriptor is row-major and dense (strides empty or row-major, offset 0).
bool rowMajor(const DataDescriptor& d);

} // namespace dcw::ir
