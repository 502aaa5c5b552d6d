// Subset: a rectangular, strided region of a data container, one Range per dimension.
// Convention used everywhere in DCW: ranges are HALF-OPEN, [begin, end) with a positive step, and
// print as Python slices: `i`, `0:N`, `0:N:2`. A single index i is the range [i, i+1).
#pragma once

#include "core/support/Expected.h"
#include "core/symbolic/Expr.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace dcw::ir {

struct Range {
  sym::Expr begin;
  sym::Expr end;   // exclusive
  sym::Expr step = sym::Expr(1);

  static Range index(const sym::Expr& i) { return Range{i, i + 1, 1}; }
  static Range full(const sym::Expr& size) { return Range{0, size, 1}; }

  sym::Expr size() const;             // number of elements: ceil((end - begin) / step)
  bool isIndex() const;               // end == begin + 1 (structurally)
  std::string str() const;            // "i", "0:N", "0:N:2"
  bool operator==(const Range& o) const { return begin == o.begin && end == o.end && step == o.step; }
};

class Subset {
public:
  Subset() = default;
  explicit Subset(std::vector<Range> ranges) : ranges_(std::move(ranges)) {}
  static Subset fullOf(const std::vector<sym::Expr>& shape);

  // Parses the form printed by str(): "i, 0:N, 2:M:2" (an empty string is the empty subset of a scalar).
  static Expected<Subset> parse(std::string_view text);

  size_t rank() const { return ranges_.size(); }
  bool empty() const { return ranges_.empty(); }
  const std::vector<Range>& ranges() const { return ranges_; }
  std::vector<Range>& ranges() { return ranges_; }
  const Range& operator[](size_t i) const { return ranges_[i]; }

  sym::Expr volume() const;            // product of range sizes (1 for rank 0)
  std::vector<sym::Expr> sizes() const;
  std::string str() const;             // "i, 0:N"
  std::set<std::string> freeSymbols() const;
  // The subset with symbols replaced (a map parameter by its value, a nested SDFG's symbol by the outer one).
  Subset substituted(const std::map<std::string, sym::Expr>& values) const;
  // The subset moved by `offset` per dimension (missing trailing offsets are 0).
  Subset shifted(const std::vector<sym::Expr>& offset) const;

  bool operator==(const Subset& o) const { return ranges_ == o.ranges_; }
  bool operator!=(const Subset& o) const { return !(*this == o); }

private:
  std::vector<Range> ranges_;
};

} // namespace dcw::ir
