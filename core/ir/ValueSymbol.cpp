#include "core/ir/ValueSymbol.h"

#include "core/ir/Sdfg.h"

#include <cstdlib>

namespace dcw::ir {

std::vector<ValueSymbol> valueSymbols(const Sdfg& root) {
  static const std::string kPrefix = "value-symbol:";
  std::vector<ValueSymbol> out;
  for (auto it = root.metadata.lower_bound(kPrefix); it != root.metadata.end() && it->first.rfind(kPrefix, 0) == 0; ++it) {
    const size_t nl = it->second.find('\n');
    if (nl == std::string::npos) continue;
    out.push_back({it->first.substr(kPrefix.size()), it->second.substr(0, nl), std::atoll(it->second.c_str() + nl + 1)});
  }
  return out;
}

} // namespace dcw::ir
