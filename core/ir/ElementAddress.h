// ElementAddress: where an element of an array lies in its storage, counted in elements from the
// storage's first: the descriptor's offset plus each index times its dim's stride, except that with
// channels in blocks (DataDescriptor::channelBlock) the channel index gives its block times strides[1]
// plus its place in the block. Code generation indexes arrays with it, and an array's storage extends to
// its last element's address plus one.
#pragma once

#include "core/symbolic/Expr.h"

#include <vector>

namespace dcw::ir {

class DataDescriptor;

// `index` has one entry per dim of `d` (the caller checks the rank).
sym::Expr elementAddress(const DataDescriptor& d, const std::vector<sym::Expr>& index);

} // namespace dcw::ir
