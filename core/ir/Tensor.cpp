#include "core/ir/Tensor.h"

namespace dcw::ir {

int64_t Tensor::elementCount() const {
  int64_t n = 1;
  for (auto d : dims) n *= d;
  return n;
}

bool Tensor::operator==(const Tensor& o) const {
  if (dtype != o.dtype || dims != o.dims) return false;
  auto sameBytes = (bytes == o.bytes) || (bytes && o.bytes && *bytes == *o.bytes) ||
                   (!bytes && o.bytes && o.bytes->empty()) || (bytes && !o.bytes && bytes->empty());
  auto sameStrings = (strings == o.strings) || (strings && o.strings && *strings == *o.strings) ||
                     (!strings && o.strings && o.strings->empty()) || (strings && !o.strings && strings->empty());
  return sameBytes && sameStrings;
}

} // namespace dcw::ir
