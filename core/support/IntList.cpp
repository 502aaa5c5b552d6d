#include "core/support/IntList.h"

namespace dcw {

std::string joinInts(const std::vector<int64_t>& values, std::string_view separator) {
  std::string s;
  for (size_t k = 0; k < values.size(); ++k) {
    if (k) s += separator;
    s += std::to_string(values[k]);
  }
  return s;
}

} // namespace dcw
