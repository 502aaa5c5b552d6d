#include "core/ir/DynamicExtent.h"

#include "core/ir/Sdfg.h"

namespace dcw::ir {

namespace {
constexpr const char* kDynamicExtentPrefix = "dynamic-extent:";

std::optional<DynamicExtent> decode(const std::string& symbol, const std::string& text) {
  auto nl = text.find('\n');
  if (nl == std::string::npos) return std::nullopt;
  auto bound = sym::Expr::parse(text.substr(nl + 1));
  if (!bound) return std::nullopt;
  return DynamicExtent{symbol, text.substr(0, nl), *bound};
}
} // namespace

std::vector<DynamicExtent> dynamicExtents(const Sdfg& root) {
  std::vector<DynamicExtent> out;
  const std::string prefix = kDynamicExtentPrefix;
  for (auto it = root.metadata.lower_bound(prefix); it != root.metadata.end() && it->first.rfind(prefix, 0) == 0; ++it)
    if (auto e = decode(it->first.substr(prefix.size()), it->second)) out.push_back(std::move(*e));
  return out;
}

std::optional<DynamicExtent> dynamicExtent(const Sdfg& root, const std::string& symbol) {
  auto it = root.metadata.find(kDynamicExtentPrefix + symbol);
  if (it == root.metadata.end()) return std::nullopt;
  return decode(symbol, it->second);
}

void setDynamicExtent(Sdfg& root, const DynamicExtent& e) {
  root.metadata[kDynamicExtentPrefix + e.symbol] = e.node + "\n" + e.bound.str();
}

} // namespace dcw::ir
