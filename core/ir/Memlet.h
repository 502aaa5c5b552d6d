// Memlet: the payload of a dataflow edge — which data moves (container name + subset), where it
// lands in the other container (otherSubset, for copies between access nodes), how many elements move
// (volume; `dynamic` when that is only an upper bound) and how concurrent writes combine (wcr).
// Subsets are half-open everywhere (see Subset.h).
#pragma once

#include "core/ir/Subset.h"

#include <optional>
#include <string>

namespace dcw::ir {

struct Memlet {
  std::string data;                  // empty: an empty memlet (ordering only)
  Subset subset;
  std::optional<Subset> otherSubset;
  sym::Expr volume = sym::Expr(0);
  bool dynamic = false;
  std::string wcr;                   // "" none; "sum", "prod", "min", "max", or a lambda "(a, b) -> a + b"

  static Memlet full(const std::string& data, const std::vector<sym::Expr>& shape);
  static Memlet simple(const std::string& data, Subset subset); // volume = subset volume
  bool isEmpty() const { return data.empty(); }
  // The memlet with symbols replaced in both subsets and the volume.
  Memlet substituted(const std::map<std::string, sym::Expr>& values) const;
  std::string str() const;           // "A[i, 0:N]" (+ " (CR: sum)" / " (dyn)")
  bool operator==(const Memlet& o) const;
};

} // namespace dcw::ir
