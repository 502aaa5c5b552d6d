// StridedOperands: which operands of a library node's oneDNN call take storage other than row-major,
// in the two ways the layout transformations use. LayoutRegion (ChannelsLast, BlockedLayout) moves a
// whole operand to another layout that every operand of the call then shares; StridedView hands
// MatMul an operand at any strides of its own (a transposed or sliced head of attention), which
// oneDNN's other primitives run on their reference kernels only.
#pragma once

#include "core/ir/LibraryNode.h"

#include <string>

namespace dcw::transforms {

// Whether the oneDNN implementation of `lib` takes an operand of any strides at `connector` when its
// other operands of that shape have the same ones (the expansions in core/expansions/onednn that
// describe that operand with describedOperand).
bool takesAnyStrides(const ir::LibraryNode& lib, const std::string& connector);

// Whether the oneDNN implementation of `lib` takes an operand of strides of its own at `connector`:
// MatMul and FusedMatMul at A, B and Y. (Y only without Z: the caller checks the edges.)
bool takesOwnStrides(const ir::LibraryNode& lib, const std::string& connector);

} // namespace dcw::transforms
