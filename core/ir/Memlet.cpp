#include "core/ir/Memlet.h"

namespace dcw::ir {

Memlet Memlet::full(const std::string& data, const std::vector<sym::Expr>& shape) {
  return simple(data, Subset::fullOf(shape));
}

Memlet Memlet::simple(const std::string& data, Subset subset) {
  Memlet m;
  m.data = data;
  m.volume = subset.volume();
  m.subset = std::move(subset);
  return m;
}

Memlet Memlet::substituted(const std::map<std::string, sym::Expr>& values) const {
  if (values.empty()) return *this;
  Memlet out = *this;
  out.subset = subset.substituted(values);
  if (otherSubset) out.otherSubset = otherSubset->substituted(values);
  out.volume = volume.substitute(values);
  return out;
}

std::string Memlet::str() const {
  if (isEmpty()) return "(empty)";
  std::string s = data + "[" + subset.str() + "]";
  if (otherSubset) s += " -> [" + otherSubset->str() + "]";
  if (!wcr.empty()) s += " (CR: " + wcr + ")";
  if (dynamic) s += " (dyn)";
  return s;
}

bool Memlet::operator==(const Memlet& o) const {
  return data == o.data && subset == o.subset && otherSubset == o.otherSubset && volume == o.volume &&
         dynamic == o.dynamic && wcr == o.wcr;
}

} // namespace dcw::ir
