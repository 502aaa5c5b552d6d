#include "core/ir/ElementAddress.h"

#include "core/ir/DataDescriptor.h"

namespace dcw::ir {

sym::Expr elementAddress(const DataDescriptor& d, const std::vector<sym::Expr>& index) {
  const std::vector<sym::Expr> strides = d.elementStrides();
  sym::Expr at = d.offset;
  for (size_t k = 0; k < index.size() && k < strides.size(); ++k) {
    if (k == 1 && d.channelBlock > 0) { // the channel's block, then its place in the block
      const sym::Expr b(d.channelBlock);
      at = at + sym::floorDiv(index[k], b) * strides[k] + sym::mod(index[k], b);
    } else {
      at = at + index[k] * strides[k];
    }
  }
  return at;
}

} // namespace dcw::ir
