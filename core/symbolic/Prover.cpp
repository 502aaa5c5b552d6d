// Prover.cpp: integer bounds of expressions and three-valued proofs of =, <= and <.
// Bounds come from interval arithmetic over the assumed per-symbol ranges (exact for constants,
// sums, products, floor-div/mod, min/max; comparisons and logic are decided where their operands'
// bounds decide them). Symbolic assumptions such as i <= N - 1 are used by substituting a symbol that
// occurs linearly by the bound that moves the expression in the wanted direction (i < N: N - i with
// i replaced by N - 1 is 1). Proofs of equality also multiply out products of sums.
// Every answer is sound: "proved" and "disproved" hold for all values within the assumptions, for the
// exact integer value of the expressions; anything not decided is nullopt.
#include "core/symbolic/Expr.h"

#include <algorithm>

namespace dcw::sym {

namespace {

__extension__ typedef __int128 i128; // exact products of two int64 bounds

// Finite bounds are kept within [-2^63, 2^63], so sums and products of two never overflow __int128;
// a bound beyond it is weakened (a lower bound capped, an upper bound capped) or dropped as unbounded.
constexpr i128 kLimit = static_cast<i128>(1) << 63;
constexpr int kSubstitutionDepth = 3;

using Bound = std::optional<i128>; // nullopt: unbounded on that side

struct Interval {
  Bound lo, hi;
};

Bound normLo(Bound lo) {
  if (!lo || *lo < -kLimit) return std::nullopt;
  return std::min(*lo, kLimit);
}

Bound normHi(Bound hi) {
  if (!hi || *hi > kLimit) return std::nullopt;
  return std::max(*hi, -kLimit);
}

Interval norm(Interval i) { return {normLo(i.lo), normHi(i.hi)}; }

Interval point(i128 v) { return {v, v}; }

i128 floorDiv128(i128 a, i128 b) {
  i128 q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

i128 floorMod128(i128 a, i128 b) { return a - b * floorDiv128(a, b); }

// A value on the extended integer line, for the corners of products and quotients.
struct Ext {
  int inf = 0; // -1: minus infinity, +1: plus infinity, 0: finite v
  i128 v = 0;
  int sign() const { return inf ? inf : (v > 0) - (v < 0); }
  bool operator<(const Ext& o) const {
    if (inf != o.inf) return inf < o.inf;
    return inf == 0 && v < o.v;
  }
};

Ext loExt(const Bound& b) { return b ? Ext{0, *b} : Ext{-1, 0}; }
Ext hiExt(const Bound& b) { return b ? Ext{0, *b} : Ext{1, 0}; }

Ext mulExt(const Ext& a, const Ext& b) {
  if ((a.inf == 0 && a.v == 0) || (b.inf == 0 && b.v == 0)) return {0, 0};
  if (a.inf || b.inf) return {a.sign() * b.sign(), 0};
  return {0, a.v * b.v};
}

// floor(a / d) for a finite non-zero d.
Ext divExt(const Ext& a, i128 d) {
  if (a.inf) return {a.inf * (d > 0 ? 1 : -1), 0};
  return {0, floorDiv128(a.v, d)};
}

// The interval spanned by corner values; a lower end at +infinity or an upper end at -infinity
// cannot arise from non-empty operands and is weakened to the limit.
Interval span(const std::vector<Ext>& corners) {
  Ext lo = *std::min_element(corners.begin(), corners.end());
  Ext hi = *std::max_element(corners.begin(), corners.end());
  Interval r;
  if (lo.inf == 0) r.lo = lo.v;
  else if (lo.inf > 0) r.lo = kLimit;
  if (hi.inf == 0) r.hi = hi.v;
  else if (hi.inf < 0) r.hi = -kLimit;
  return norm(r);
}

Interval add(const Interval& a, const Interval& b) {
  Interval r;
  if (a.lo && b.lo) r.lo = *a.lo + *b.lo;
  if (a.hi && b.hi) r.hi = *a.hi + *b.hi;
  return norm(r);
}

Interval mul(const Interval& a, const Interval& b) {
  const Ext al = loExt(a.lo), ah = hiExt(a.hi), bl = loExt(b.lo), bh = hiExt(b.hi);
  return span({mulExt(al, bl), mulExt(al, bh), mulExt(ah, bl), mulExt(ah, bh)});
}

bool isZero(const Interval& i) { return i.lo && i.hi && *i.lo == 0 && *i.hi == 0; }
bool isNonZero(const Interval& i) { return (i.lo && *i.lo > 0) || (i.hi && *i.hi < 0); }

Interval truth(std::optional<bool> decided) {
  if (!decided) return {0, 1};
  return point(*decided ? 1 : 0);
}

// Truth of `d op 0` from the bounds of d, where Lt etc. compare the difference of the operands.
std::optional<bool> decideComparison(Op op, const Interval& d) {
  auto below = [&](i128 v) { return d.hi && *d.hi < v; };  // d < v everywhere
  auto atLeast = [&](i128 v) { return d.lo && *d.lo >= v; }; // d >= v everywhere
  switch (op) {
  case Op::Eq: if (isZero(d)) return true; if (isNonZero(d)) return false; break;
  case Op::Ne: if (isZero(d)) return false; if (isNonZero(d)) return true; break;
  case Op::Lt: if (below(0)) return true; if (atLeast(0)) return false; break;
  case Op::Le: if (below(1)) return true; if (atLeast(1)) return false; break;
  case Op::Gt: if (atLeast(1)) return true; if (below(1)) return false; break;
  case Op::Ge: if (atLeast(0)) return true; if (below(0)) return false; break;
  default: break;
  }
  return std::nullopt;
}

bool mentions(const Expr& e, const std::string& s) {
  if (e.isSymbol()) return e.symbolName() == s;
  for (const Expr& o : e.operands())
    if (mentions(o, s)) return true;
  return false;
}

// The coefficient k when e = k*s + (terms without s); nullopt when s occurs otherwise.
std::optional<int64_t> linearCoefficient(const Expr& e, const std::string& s) {
  std::vector<Expr> terms = e.op() == Op::Add ? e.operands() : std::vector<Expr>{e};
  int64_t k = 0;
  for (const Expr& t : terms) {
    int64_t c = 1;
    Expr mono = t;
    if (t.op() == Op::Mul && t.operands().size() == 2 && t.operands()[0].isConstant()) {
      c = *t.operands()[0].constantValue();
      mono = t.operands()[1];
    }
    if (mono.isSymbol() && mono.symbolName() == s) {
      if (__builtin_add_overflow(k, c, &k)) return std::nullopt;
    } else if (mentions(t, s)) {
      return std::nullopt;
    }
  }
  return k;
}

// Multiplies out products of sums (up to maxTerms terms per product), leaving other nodes alone.
Expr expandProducts(const Expr& e, size_t maxTerms = 64) {
  if (e.op() == Op::Add) {
    std::vector<Expr> terms;
    for (const Expr& t : e.operands()) terms.push_back(expandProducts(t, maxTerms));
    return detail::makeAdd(std::move(terms));
  }
  if (e.op() != Op::Mul) return e;
  std::vector<Expr> acc{Expr(1)};
  for (const Expr& f : e.operands()) {
    Expr fe = expandProducts(f, maxTerms);
    const std::vector<Expr> parts = fe.op() == Op::Add ? fe.operands() : std::vector<Expr>{fe};
    if (acc.size() * parts.size() > maxTerms) return e;
    std::vector<Expr> next;
    for (const Expr& a : acc)
      for (const Expr& b : parts) next.push_back(detail::makeMul({a, b}));
    acc = std::move(next);
  }
  return detail::makeAdd(std::move(acc));
}

class BoundsFinder {
public:
  explicit BoundsFinder(const Assumptions& assume) : assume_(assume) {}

  // Interval arithmetic, bottom-up.
  Interval interval(const Expr& e) {
    const auto& ops = e.operands();
    switch (e.op()) {
    case Op::Const: return point(*e.constantValue());
    case Op::Symbol: return symbol(e.symbolName());
    case Op::Add: {
      Interval r = point(0);
      for (const Expr& o : ops) r = add(r, interval(o));
      return r;
    }
    case Op::Mul: {
      Interval r = point(1);
      for (const Expr& o : ops) r = mul(r, interval(o));
      return r;
    }
    case Op::FloorDiv: return ops.size() == 2 ? floorDiv(interval(ops[0]), interval(ops[1])) : Interval{};
    case Op::Mod: return ops.size() == 2 ? mod(interval(ops[0]), interval(ops[1])) : Interval{};
    case Op::Min:
    case Op::Max: return minMax(e.op() == Op::Min, ops);
    case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: {
      if (ops.size() != 2) return {0, 1};
      const Expr d = ops[0] - ops[1];
      // The difference is bounded once per comparison (twice more with symbolic assumptions, and
      // then only for the outermost comparison), so nested comparisons cost linear time.
      ++comparisonNesting_;
      Interval dv = interval(d);
      if (comparisonNesting_ == 1 && !assume_.symbolicBounds.empty()) {
        if (Bound lo = extreme(d, false, 1); lo && (!dv.lo || *lo > *dv.lo)) dv.lo = lo;
        if (Bound hi = extreme(d, true, 1); hi && (!dv.hi || *hi < *dv.hi)) dv.hi = hi;
      }
      --comparisonNesting_;
      return truth(decideComparison(e.op(), dv));
    }
    case Op::Not:
      if (ops.size() != 1) return {0, 1};
      {
        const Interval x = interval(ops[0]);
        if (isZero(x)) return point(1);
        if (isNonZero(x)) return point(0);
      }
      return {0, 1};
    case Op::And:
    case Op::Or: {
      const bool isAnd = e.op() == Op::And;
      bool allDecidedOther = true; // every operand decided and none decisive
      for (const Expr& o : ops) {
        const Interval x = interval(o);
        if (isAnd ? isZero(x) : isNonZero(x)) return point(isAnd ? 0 : 1);
        if (!(isAnd ? isNonZero(x) : isZero(x))) allDecidedOther = false;
      }
      return allDecidedOther ? point(isAnd ? 1 : 0) : Interval{0, 1};
    }
    }
    return {};
  }

  // The lower (upper == false) or upper bound of e, also substituting symbolic bounds of symbols
  // that occur linearly in e, up to `depth` substitutions deep.
  Bound extreme(const Expr& e, bool upper, int depth) {
    const Interval iv = interval(e);
    Bound best = upper ? iv.hi : iv.lo;
    if (depth <= 0 || assume_.symbolicBounds.empty() || e.isConstant()) return best;
    for (const auto& [s, bnds] : assume_.symbolicBounds) {
      auto k = linearCoefficient(e, s);
      if (!k || *k == 0) continue;
      // The lower bound of k*s + rest takes s at its lower bound when k > 0; and so on.
      const std::optional<Expr>& rep = ((*k > 0) == upper) ? bnds.second : bnds.first;
      if (!rep || mentions(*rep, s)) continue;
      const Bound cand = extreme(e.substitute({{s, *rep}}), upper, depth - 1);
      if (!cand) continue;
      if (!best || (upper ? *cand < *best : *cand > *best)) best = cand;
    }
    return best;
  }

private:
  Interval symbol(const std::string& s) {
    Interval r;
    if (auto it = assume_.bounds.find(s); it != assume_.bounds.end()) {
      if (it->second.first) r.lo = *it->second.first;
      if (it->second.second) r.hi = *it->second.second;
    }
    auto it = assume_.symbolicBounds.find(s);
    if (it == assume_.symbolicBounds.end() ||
        std::find(inProgress_.begin(), inProgress_.end(), s) != inProgress_.end())
      return r;
    inProgress_.push_back(s); // symbolic bounds may refer to each other; do not loop
    if (it->second.first)
      if (Bound lo = interval(*it->second.first).lo; lo && (!r.lo || *lo > *r.lo)) r.lo = lo;
    if (it->second.second)
      if (Bound hi = interval(*it->second.second).hi; hi && (!r.hi || *hi < *r.hi)) r.hi = hi;
    inProgress_.pop_back();
    return r;
  }

  static Interval floorDiv(const Interval& x, const Interval& d) {
    // Only a divisor of known, constant sign; both ends are checked so that an empty interval
    // (contradictory assumptions) never divides by zero.
    const bool positive = d.lo && d.hi && *d.lo >= 1 && *d.hi >= 1;
    const bool negative = d.lo && d.hi && *d.lo <= -1 && *d.hi <= -1;
    if (!positive && !negative) return {};
    const Ext xl = loExt(x.lo), xh = hiExt(x.hi);
    return span({divExt(xl, *d.lo), divExt(xl, *d.hi), divExt(xh, *d.lo), divExt(xh, *d.hi)});
  }

  static Interval mod(const Interval& x, const Interval& d) {
    if (d.lo && d.hi && *d.lo == *d.hi && *d.lo != 0 && x.lo && x.hi &&
        floorDiv128(*x.lo, *d.lo) == floorDiv128(*x.hi, *d.lo)) // within one period: monotone
      return {floorMod128(*x.lo, *d.lo), floorMod128(*x.hi, *d.lo)};
    if (d.lo && *d.lo >= 1) { // result in [0, d - 1], and never above x when x >= 0
      Interval r{0, d.hi ? Bound(*d.hi - 1) : std::nullopt};
      if (x.lo && *x.lo >= 0 && x.hi && (!r.hi || *x.hi < *r.hi)) r.hi = x.hi;
      return r;
    }
    if (d.hi && *d.hi <= -1) { // result in [d + 1, 0], and never below x when x <= 0
      Interval r{d.lo ? Bound(*d.lo + 1) : std::nullopt, 0};
      if (x.hi && *x.hi <= 0 && x.lo && (!r.lo || *x.lo > *r.lo)) r.lo = x.lo;
      return r;
    }
    if (d.lo && d.hi) { // |x % d| < |d|; a divisor that is always 0 gives no value at all
      const i128 m = std::max(-*d.lo, *d.hi);
      if (m >= 1) return {1 - m, m - 1};
    }
    return {};
  }

  Interval minMax(bool isMin, const std::vector<Expr>& ops) {
    if (ops.empty()) return {};
    // For min: the lower end is the smallest lower end (unbounded if any is), the upper end the
    // smallest upper end that exists; max is the mirror image.
    Interval r = interval(ops[0]);
    for (size_t i = 1; i < ops.size(); ++i) {
      const Interval x = interval(ops[i]);
      if (isMin) {
        r.lo = (r.lo && x.lo) ? Bound(std::min(*r.lo, *x.lo)) : std::nullopt;
        r.hi = (r.hi && x.hi) ? Bound(std::min(*r.hi, *x.hi)) : (r.hi ? r.hi : x.hi);
      } else {
        r.lo = (r.lo && x.lo) ? Bound(std::max(*r.lo, *x.lo)) : (r.lo ? r.lo : x.lo);
        r.hi = (r.hi && x.hi) ? Bound(std::max(*r.hi, *x.hi)) : std::nullopt;
      }
    }
    return r;
  }

  const Assumptions& assume_;
  std::vector<std::string> inProgress_;
  int comparisonNesting_ = 0;
};

std::optional<int64_t> toLower(const Bound& b) {
  if (!b) return std::nullopt;
  return *b > INT64_MAX ? INT64_MAX : static_cast<int64_t>(*b); // weakened where beyond int64
}

std::optional<int64_t> toUpper(const Bound& b) {
  if (!b || *b > INT64_MAX) return std::nullopt;
  return *b < INT64_MIN ? INT64_MIN : static_cast<int64_t>(*b);
}

// Bounds of a difference, from its canonical and its multiplied-out form, whichever is tighter.
Interval differenceBounds(const Expr& d, const Assumptions& assume) {
  BoundsFinder finder(assume);
  Interval r{finder.extreme(d, false, kSubstitutionDepth), finder.extreme(d, true, kSubstitutionDepth)};
  const Expr expanded = expandProducts(d);
  if (expanded != d) {
    const Bound lo = finder.extreme(expanded, false, kSubstitutionDepth);
    const Bound hi = finder.extreme(expanded, true, kSubstitutionDepth);
    if (lo && (!r.lo || *lo > *r.lo)) r.lo = lo;
    if (hi && (!r.hi || *hi < *r.hi)) r.hi = hi;
  }
  return r;
}

} // namespace

std::pair<std::optional<int64_t>, std::optional<int64_t>> bounds(const Expr& e, const Assumptions& assume) {
  BoundsFinder finder(assume);
  return {toLower(finder.extreme(e, false, kSubstitutionDepth)), toUpper(finder.extreme(e, true, kSubstitutionDepth))};
}

std::optional<bool> proveEqual(const Expr& a, const Expr& b, const Assumptions& assume) {
  const Expr d = a - b;
  if (d == Expr(0) || expandProducts(d) == Expr(0)) return true;
  const Interval r = differenceBounds(d, assume);
  if (isZero(r)) return true;
  if (isNonZero(r)) return false;
  return std::nullopt;
}

std::optional<bool> proveLessEqual(const Expr& a, const Expr& b, const Assumptions& assume) {
  const Interval r = differenceBounds(b - a, assume);
  if (r.lo && *r.lo >= 0) return true;
  if (r.hi && *r.hi < 0) return false;
  return std::nullopt;
}

std::optional<bool> proveLess(const Expr& a, const Expr& b, const Assumptions& assume) {
  const Interval r = differenceBounds(b - a, assume);
  if (r.lo && *r.lo >= 1) return true;
  if (r.hi && *r.hi < 1) return false;
  return std::nullopt;
}

std::optional<int64_t> upperBound(const Expr& e, const Assumptions& a) {
  if (e.op() == Op::Min) {
    std::optional<int64_t> best;
    for (auto& o : e.operands())
      if (auto u = upperBound(o, a)) best = best ? std::min(*best, *u) : *u;
    return best;
  }
  if (e.op() == Op::Add) {
    for (size_t i = 0; i < e.operands().size(); ++i) {
      const sym::Expr& m = e.operands()[i];
      if (m.op() != Op::Min) continue;
      Expr rest(0);
      for (size_t j = 0; j < e.operands().size(); ++j)
        if (j != i) rest = rest + e.operands()[j];
      std::optional<int64_t> best;
      for (auto& o : m.operands())
        if (auto u = upperBound(o + rest, a)) best = best ? std::min(*best, *u) : *u;
      if (best) return best;
    }
  }
  return bounds(e, a).second;
}

} // namespace dcw::sym
