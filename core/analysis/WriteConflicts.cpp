#include "core/analysis/WriteConflicts.h"

#include <map>
#include <vector>

namespace dcw::analysis {

using ir::Subset;

namespace {

bool freeOf(const sym::Expr& e, const std::set<std::string>& varying) {
  for (auto& f : e.freeSymbols())
    if (varying.count(f)) return false;
  return true;
}

// Whether `e` is a digit of p, (p // D) % B with integers D, B > 0 (either part may be absent); sets D
// and B (0: no bound).
bool digitOf(const sym::Expr& e, const sym::Expr& p, int64_t& D, int64_t& B) {
  sym::Expr x = e;
  B = 0;
  if (x.op() == sym::Op::Mod) {
    auto b = x.operands()[1].constantValue();
    if (!b || *b <= 0) return false;
    B = *b;
    x = x.operands()[0];
  }
  D = 1;
  if (x.op() == sym::Op::FloorDiv) {
    auto d = x.operands()[1].constantValue();
    if (!d || *d <= 0) return false;
    D = *d;
    x = x.operands()[0];
  }
  return x == p;
}

// Whether the indices of `s` hold digits of p that determine it: divisor 1, then each next divisor the
// one before times its bound, up to an unbounded digit (a mixed-radix numeral of p).
bool determinedByDigits(const Subset& s, const std::string& name, const std::set<std::string>& varying) {
  const sym::Expr p = sym::Expr::symbol(name);
  std::map<int64_t, int64_t> digits; // divisor -> bound
  for (auto& r : s.ranges()) {
    if (!r.isIndex() || !r.begin.freeSymbols().count(name)) continue;
    std::vector<sym::Expr> terms = r.begin.op() == sym::Op::Add ? r.begin.operands() : std::vector<sym::Expr>{r.begin};
    for (auto& t : terms) {
      int64_t D = 0, B = 0;
      if (digitOf(t, p, D, B) && freeOf(r.begin - t, varying) && !digits.count(D)) digits[D] = B;
    }
  }
  for (int64_t at = 1;;) {
    auto it = digits.find(at);
    if (it == digits.end()) return false;
    if (it->second == 0) return true;
    if (__builtin_mul_overflow(at, it->second, &at)) return false;
  }
}

} // namespace

bool writesDistinct(const Subset& s, const std::set<std::string>& params, const std::set<std::string>& varying) {
  for (auto& p : params) {
    bool found = false;
    for (auto& r : s.ranges()) {
      if (!r.isIndex()) continue;
      sym::Expr rest = r.begin - sym::Expr::symbol(p);
      if (rest == r.begin) continue; // p does not occur
      if (freeOf(rest, varying)) {
        found = true;
        break;
      }
    }
    if (!found && !determinedByDigits(s, p, varying)) return false;
  }
  return true;
}

} // namespace dcw::analysis
