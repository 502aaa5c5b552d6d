// View: a transient (DataKind::View) whose elements are another array's, read through its own shape —
// a Reshape, Flatten, Squeeze or Unsqueeze of a row-major array as a different index over the same
// bytes (transforms/catalogue/ReshapeToView), or one contiguous block of it, a Slice's or Split's part
// (transforms/catalogue/CopyToView), so no copy is made. A strided view (transforms/catalogue/StridedView)
// shows a transposed or strided part of an array: its own strides and offset, counted in the array's
// storage, say where each element lies (a head of BERT's fused QKV product, transposed, read in place
// by the attention's matmul). As in DaCe, the view's one access node
// is joined to an access node of the viewed array by one edge carrying the whole viewed array:
//
//   A: float32[1, 232, 28, 28] ──(A[0:1, 0:232, 0:28, 0:28])──> B: view float32[1, 2, 116, 28, 28] ──> readers of B
//
// Both are row-major with the same element type; the edge carries the whole array (same element count)
// or a block of its dims (dims before one an index each, that one a range, the dims after it whole)
// with the view's element count. A strided view's edge carries the whole array, and its elements lie
// within the array's storage. The viewed array is an array (not a view or stream), the view a
// transient with no other access node, written by nothing else. A view may also be written through
// (StridedView's on the write side: a matmul writes its result into the transposed place of the array
// that its merge of heads copied it into): its writers feed its access node, whose one out-edge goes
// to an access node of the array carrying the whole array, and the view writes that node's elements
// alone. Code generation gives B the storage of
// A from the block's first element on (SdfgWalker) and emits nothing for the edge; validation checks
// these rules and names the view.
#pragma once

#include "core/support/Expected.h"
#include "core/symbolic/Expr.h"

#include <cstdint>
#include <optional>
#include <map>
#include <string>
#include <vector>

namespace dcw::ir {

class AccessNode;
class DataDescriptor;
class DataflowEdge;
class Sdfg;
class State;

struct ViewSource {
  const State* state = nullptr;
  const AccessNode* view = nullptr;   // the view's access node
  const AccessNode* viewed = nullptr; // the viewed array's access node feeding it (or fed by it, `written`)
  const DataflowEdge* edge = nullptr; // viewed -> view (view -> viewed when `written`)
  const DataDescriptor* array = nullptr; // the viewed array
  bool written = false;                  // written through: edge is view -> viewed
};

// The array a view of `sdfg` shows (its one access node, fed by one edge from an access node of an
// array), or why its structure breaks the rules above; validation checks this for every view that has
// an access node (an unused view is no error).
Expected<ViewSource> viewSource(const Sdfg& sdfg, const DataDescriptor& view);
// The array whose storage a data name of `sdfg` has: the name itself, or for a view the array it shows
// (through views of views); resolved once per name. A view whose structure breaks the rules resolves
// to the last name reached.
class ViewStorage {
public:
  explicit ViewStorage(const Sdfg& sdfg) : sdfg_(sdfg) {}
  const std::string& of(const std::string& name);

private:
  const Sdfg& sdfg_;
  std::map<std::string, std::string> resolved_;
};

// What code generation needs besides: one element type and either both row-major, the edge carrying
// the whole array or a block of it with the view's element count, or a strided view (constant strides
// and offset, channels not in blocks) of a whole array whose storage holds all of its elements. A
// row-major view of a whole array in another layout (TransposeToView's NHWC view of a channels-last
// array) is placed as a strided view is: by its own strides.
// Returns the offset, in elements, the view's storage starts at in the array's: the block's first
// element for a row-major view, 0 for a strided one (its descriptor's offset places its elements).
Expected<sym::Expr> checkPlainView(const Sdfg& sdfg, const DataDescriptor& view, const ViewSource& source);

// Where the elements of a view lie, in elements of some storage: element i at offset + sum i_k strides_k.
struct StridedPlace {
  std::vector<int64_t> strides;
  int64_t offset = 0;
};
// A view's place in the storage of the array it shows (constant strides and offset; a row-major view
// at its block's first element), or nullopt when they are not constant.
std::optional<StridedPlace> placeOf(const DataDescriptor& view, const sym::Expr& plainOffset);
// A view of `shape` placed at `inRowMajor` in the row-major order of an array of `innerShape`, when
// that array becomes a view placed at `inner`: the view's place in the storage underneath, or nullopt
// when stepping along one of its dims would cross from one index of the inner array's dims to the next
// (a reshape that merges dims the inner view keeps apart). Dims of extent 1 get strides that keep the
// view's description well formed.
std::optional<StridedPlace> placeThrough(const std::vector<int64_t>& shape, const StridedPlace& inRowMajor,
                                         const std::vector<int64_t>& innerShape, const StridedPlace& inner);
// Strides for the dims of extent 1 of a view of `shape` (their value addresses nothing): each the
// largest span of the dims of larger extent, so that oneDNN and the checks see a well-formed layout.
void fillUnitStrides(const std::vector<int64_t>& shape, std::vector<int64_t>& strides);

// Whether the descriptor is row-major and dense (strides empty or row-major, offset 0).
bool rowMajor(const DataDescriptor& d);

} // namespace dcw::ir
