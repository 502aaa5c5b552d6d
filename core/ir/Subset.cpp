#include "core/ir/Subset.h"

namespace dcw::ir {

using sym::Expr;

Expr Range::size() const {
  if (step == Expr(1)) return end - begin;
  return sym::ceilDiv(end - begin, step);
}

bool Range::isIndex() const { return step == Expr(1) && end == begin + 1; }

std::string Range::str() const {
  if (isIndex()) return begin.str();
  std::string s = begin.str() + ":" + end.str();
  if (step != Expr(1)) s += ":" + step.str();
  return s;
}

Subset Subset::substituted(const std::map<std::string, Expr>& values) const {
  if (values.empty()) return *this;
  std::vector<Range> rs;
  rs.reserve(ranges_.size());
  for (auto& r : ranges_) rs.push_back(Range{r.begin.substitute(values), r.end.substitute(values), r.step.substitute(values)});
  return Subset(std::move(rs));
}

Subset Subset::shifted(const std::vector<Expr>& offset) const {
  std::vector<Range> rs = ranges_;
  for (size_t d = 0; d < rs.size() && d < offset.size(); ++d)
    if (offset[d] != Expr(0)) {
      rs[d].begin = rs[d].begin + offset[d];
      rs[d].end = rs[d].end + offset[d];
    }
  return Subset(std::move(rs));
}

Subset Subset::fullOf(const std::vector<Expr>& shape) {
  std::vector<Range> r;
  r.reserve(shape.size());
  for (const auto& d : shape) r.push_back(Range::full(d));
  return Subset(std::move(r));
}

// Splits at top-level separators (outside parentheses).
static std::vector<std::string_view> splitTop(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(') ++depth;
    else if (c == ')') --depth;
    else if (c == sep && depth == 0) {
      parts.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  parts.push_back(text.substr(start));
  return parts;
}

static bool blank(std::string_view s) { return s.find_first_not_of(" \t") == std::string_view::npos; }

Expected<Subset> Subset::parse(std::string_view text) {
  if (blank(text)) return Subset();
  std::vector<Range> ranges;
  for (auto dim : splitTop(text, ',')) {
    auto parts = splitTop(dim, ':');
    if (parts.size() > 3)
      return fail("subset '" + std::string(text) + "'", "a range has more than three parts: '" + std::string(dim) + "'",
                  "write begin:end or begin:end:step");
    std::vector<Expr> e;
    for (auto p : parts) {
      auto x = Expr::parse(p);
      if (!x) return fail("subset '" + std::string(text) + "'", x.error().message);
      e.push_back(*x);
    }
    if (e.size() == 1) ranges.push_back(Range::index(e[0]));
    else ranges.push_back(Range{e[0], e[1], e.size() == 3 ? e[2] : Expr(1)});
  }
  return Subset(std::move(ranges));
}

Expr Subset::volume() const {
  Expr v(1);
  for (const auto& r : ranges_) v = v * r.size();
  return v;
}

std::vector<Expr> Subset::sizes() const {
  std::vector<Expr> s;
  for (const auto& r : ranges_) s.push_back(r.size());
  return s;
}

std::string Subset::str() const {
  std::string s;
  for (size_t i = 0; i < ranges_.size(); ++i) {
    if (i) s += ", ";
    s += ranges_[i].str();
  }
  return s;
}

std::set<std::string> Subset::freeSymbols() const {
  std::set<std::string> out;
  for (const auto& r : ranges_)
    for (const auto* e : {&r.begin, &r.end, &r.step})
      for (auto& s : e->freeSymbols()) out.insert(s);
  return out;
}

} // namespace dcw::ir
