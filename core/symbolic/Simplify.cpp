// Simplify.cpp: the canonicalising constructors. Every Expr built through the operators and free
// functions is in canonical form, so that equal-looking expressions compare equal structurally and
// print the same way:
//  - sums are flat lists of coefficient*monomial terms with like terms collected, sorted, and the
//    constant last; products are flat, sorted, with one leading integer coefficient; a constant
//    times a sum is distributed; a sum that is one factor among several gives its integer content
//    to the coefficient ("N*(2*M + 2)" is "2*N*(M + 1)");
//  - floor-div and mod by an integer c peel out terms whose coefficient c divides, reduce the
//    constant into [0, c), cancel a common factor, nest ((x // a) // b = x // (a*b)) and fold when
//    the bounds of the numerator decide the result;
//  - min/max are flat, deduplicated, with dominated operands removed;
//  - comparisons fold when the bounds of the difference decide them; logic folds constants,
//    duplicates and complements, and `not` inverts comparisons.
// Every rule is exact for all int64 values, negative ones included; a rule may drop a subexpression
// whose evaluation would fail (x*0 = 0, false and x) but never changes a defined value. Constant
// arithmetic that would overflow is left unfolded rather than wrapped, so evaluate() reports it.
#include "core/symbolic/Expr.h"

#include <algorithm>
#include <numeric>

namespace dcw::sym {

using detail::makeAdd;
using detail::makeMul;
using detail::makeNode;

namespace {

std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// Floor division and matching modulo; callers exclude b == 0 and (INT64_MIN, -1) for division.
int64_t floorDivInt(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

int64_t floorModInt(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

uint64_t magnitude(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }

bool isConst(const Expr& e, int64_t v) { return e.isConstant() && *e.constantValue() == v; }

bool isComparison(Op op) {
  return op == Op::Eq || op == Op::Ne || op == Op::Lt || op == Op::Le || op == Op::Gt || op == Op::Ge;
}

// ---- sums as coefficient*monomial terms ----

struct Term {
  int64_t coeff;
  Expr mono;
};

struct Linear {
  std::vector<Term> terms;
  std::vector<int64_t> constants; // at most one, except where folding would overflow
  int64_t constant() const { return constants.empty() ? 0 : constants[0]; }
};

void addTerm(const Expr& t, Linear& out) {
  if (t.isConstant()) {
    out.constants.push_back(*t.constantValue());
    return;
  }
  const auto& ops = t.operands();
  if (t.op() == Op::Mul && ops.size() >= 2 && ops[0].isConstant()) {
    if (ops.size() == 2) out.terms.push_back({*ops[0].constantValue(), ops[1]});
    else out.terms.push_back({*ops[0].constantValue(), makeNode(Op::Mul, std::vector<Expr>(ops.begin() + 1, ops.end()))});
    return;
  }
  out.terms.push_back({1, t});
}

Linear decompose(const Expr& e) {
  Linear lin;
  if (e.op() == Op::Add) for (const Expr& t : e.operands()) addTerm(t, lin);
  else addTerm(e, lin);
  return lin;
}

Expr termExpr(int64_t coeff, const Expr& mono) {
  if (coeff == 1) return mono;
  if (mono.op() == Op::Mul && !mono.operands().empty() && !mono.operands()[0].isConstant()) {
    std::vector<Expr> ops;
    ops.reserve(mono.operands().size() + 1);
    ops.push_back(Expr(coeff));
    ops.insert(ops.end(), mono.operands().begin(), mono.operands().end());
    return makeNode(Op::Mul, std::move(ops));
  }
  return makeNode(Op::Mul, {Expr(coeff), mono});
}

std::optional<Expr> scaleSum(const Expr& sum, int64_t c);

// A term k*(a % b) and a term k*b*(a // b) of the same sum (b an integer or an expression), which
// together are k*a for every a and every b != 0: a flattened loop index p = H*W-sized range read as
// (p // W, p % W) of a row-major array gives W*(p // W) + p % W, which is p. Found only where the
// products k*b and k*a's coefficients fit in 64 bits.
struct DivModPair {
  size_t mod, div;
};
std::optional<DivModPair> divModPair(const std::vector<Term>& terms) {
  for (size_t m = 0; m < terms.size(); ++m) {
    const Expr& mm = terms[m].mono;
    if (mm.op() != Op::Mod || mm.operands().size() != 2) continue;
    const Expr& a = mm.operands()[0];
    const Expr& b = mm.operands()[1];
    const Expr quotient = floorDiv(a, b); // canonical: (x // 4) % 3 pairs with x // 12
    const int64_t k = terms[m].coeff;
    for (size_t d = 0; d < terms.size(); ++d) {
      if (d == m) continue;
      const Expr& dm = terms[d].mono;
      bool match = false;
      if (b.isConstant()) {
        auto kb = checkedMul(k, *b.constantValue());
        match = kb && terms[d].coeff == *kb && dm == quotient;
      } else if (terms[d].coeff == k && dm.op() == Op::Mul) {
        // k * (b's factors and a // b) in any canonical order: take the quotient out, compare the rest with b.
        std::vector<Expr> rest;
        bool found = false;
        for (const Expr& f : dm.operands()) {
          if (!found && f == quotient) found = true;
          else rest.push_back(f);
        }
        match = found && !rest.empty() && (rest.size() == 1 ? rest[0] : makeMul(rest)) == b;
      }
      if (!match) continue;
      Linear scaled = decompose(a);
      bool fits = true;
      for (const Term& t : scaled.terms) fits = fits && checkedMul(t.coeff, k).has_value();
      for (int64_t c : scaled.constants) fits = fits && checkedMul(c, k).has_value();
      if (fits) return DivModPair{m, d};
    }
  }
  return std::nullopt;
}

// Collects like terms and folds constants; the canonical sum of lin.
Expr buildSum(Linear lin) {
  // A coefficient times a sum is distributed, as makeMul does, where no coefficient overflows: a
  // product left whole because it would have overflowed may fit once a mod or a floor division has
  // divided its coefficient down, and reading the printed result back would distribute it.
  for (size_t i = 0; i < lin.terms.size();) {
    if (lin.terms[i].coeff != 1 && lin.terms[i].mono.op() == Op::Add)
      if (auto scaled = scaleSum(lin.terms[i].mono, lin.terms[i].coeff)) {
        lin.terms.erase(lin.terms.begin() + std::ptrdiff_t(i));
        if (scaled->op() == Op::Add)
          for (const Expr& x : scaled->operands()) addTerm(x, lin);
        else
          addTerm(*scaled, lin);
        continue;
      }
    ++i;
  }
  int64_t k = 0;
  std::vector<int64_t> unfolded;
  for (int64_t c : lin.constants) {
    if (auto s = checkedAdd(k, c)) k = *s;
    else unfolded.push_back(c);
  }
  std::stable_sort(lin.terms.begin(), lin.terms.end(), [](const Term& a, const Term& b) { return a.mono < b.mono; });
  std::vector<Term> merged;
  for (Term& t : lin.terms) {
    if (!merged.empty() && merged.back().mono == t.mono) {
      if (auto s = checkedAdd(merged.back().coeff, t.coeff)) {
        merged.back().coeff = *s;
        continue;
      }
    }
    merged.push_back(std::move(t));
  }
  if (auto pair = divModPair(merged)) {
    // k*b*(a // b) + k*(a % b) = k*a: the two terms go, k*a's terms join the rest (one Mod fewer).
    const Expr a = merged[pair->mod].mono.operands()[0];
    const int64_t scale = merged[pair->mod].coeff;
    Linear again;
    for (size_t i = 0; i < merged.size(); ++i)
      if (i != pair->mod && i != pair->div) again.terms.push_back(merged[i]);
    Linear scaled = decompose(a);
    for (Term& t : scaled.terms) t.coeff *= scale; // divModPair checked these products
    for (int64_t& c : scaled.constants) c *= scale;
    again.terms.insert(again.terms.end(), scaled.terms.begin(), scaled.terms.end());
    again.constants = lin.constants;
    again.constants.insert(again.constants.end(), scaled.constants.begin(), scaled.constants.end());
    return buildSum(std::move(again));
  }
  std::vector<Expr> out;
  for (const Term& t : merged)
    if (t.coeff != 0) out.push_back(termExpr(t.coeff, t.mono));
  if (k != 0 || (out.empty() && unfolded.empty())) out.push_back(Expr(k));
  for (int64_t c : unfolded) out.push_back(Expr(c));
  if (out.size() == 1) return out[0];
  return makeNode(Op::Add, std::move(out));
}

// c * sum with every coefficient scaled, or nullopt where a coefficient would overflow.
std::optional<Expr> scaleSum(const Expr& sum, int64_t c) {
  Linear lin = decompose(sum);
  for (Term& t : lin.terms) {
    auto v = checkedMul(t.coeff, c);
    if (!v) return std::nullopt;
    t.coeff = *v;
  }
  for (int64_t& k : lin.constants) {
    auto v = checkedMul(k, c);
    if (!v) return std::nullopt;
    k = *v;
  }
  return buildSum(std::move(lin));
}

// Splits a canonical sum into g * primitive, where g is the gcd of its coefficients with the sign of
// its leading term; g == 1 when nothing can be taken out.
std::pair<int64_t, Expr> content(const Expr& sum) {
  Linear lin = decompose(sum);
  if (lin.terms.empty() || lin.constants.size() > 1) return {1, sum};
  uint64_t g = magnitude(lin.constant());
  for (const Term& t : lin.terms) g = std::gcd(g, magnitude(t.coeff));
  if (g == 0 || g > static_cast<uint64_t>(INT64_MAX)) return {1, sum};
  int64_t s = static_cast<int64_t>(g);
  if (lin.terms[0].coeff < 0) s = -s;
  if (s == 1) return {1, sum};
  for (Term& t : lin.terms) {
    if (s == -1 && t.coeff == INT64_MIN) return {1, sum};
    t.coeff /= s;
  }
  for (int64_t& k : lin.constants) {
    if (s == -1 && k == INT64_MIN) return {1, sum};
    k /= s;
  }
  return {s, buildSum(std::move(lin))};
}

// ---- floor division and modulo by an integer ----

// gcd of c and every coefficient and the constant of lin (all positive); 1 if lin is irregular.
int64_t commonFactor(const Linear& lin, int64_t c) {
  uint64_t g = magnitude(c);
  for (const Term& t : lin.terms) g = std::gcd(g, magnitude(t.coeff));
  for (int64_t k : lin.constants) g = std::gcd(g, magnitude(k));
  if (g == 0 || g > static_cast<uint64_t>(INT64_MAX)) return 1;
  return static_cast<int64_t>(g);
}

void divideAll(Linear& lin, int64_t g) {
  for (Term& t : lin.terms) t.coeff /= g;
  for (int64_t& k : lin.constants) k /= g;
}

Expr floorDivByPositive(const Expr& a, int64_t c);

// inner // c for c > 1, where inner has no term that c divides and its constant lies in [0, c).
Expr floorDivNode(const Expr& inner, int64_t c) {
  auto [lo, hi] = bounds(inner);
  if (lo && hi && floorDivInt(*lo, c) == floorDivInt(*hi, c)) return Expr(floorDivInt(*lo, c));
  // (x // a + k) // c = (x + k*a) // (a*c) for a, c > 0.
  Linear lin = decompose(inner);
  if (lin.terms.size() == 1 && lin.terms[0].coeff == 1 && lin.constants.size() <= 1 &&
      lin.terms[0].mono.op() == Op::FloorDiv && lin.terms[0].mono.operands().size() == 2) {
    const Expr& x = lin.terms[0].mono.operands()[0];
    const Expr& a = lin.terms[0].mono.operands()[1];
    if (a.isConstant() && *a.constantValue() > 0) {
      auto ac = checkedMul(*a.constantValue(), c);
      auto ka = checkedMul(lin.constant(), *a.constantValue());
      if (ac && ka) return floorDivByPositive(makeAdd({x, Expr(*ka)}), *ac);
    }
  }
  return makeNode(Op::FloorDiv, {inner, Expr(c)});
}

// a // c for c > 0. (c*q + r) // c = q + r // c holds for all integers, so terms whose coefficient
// c divides and multiples of c in the constant come out of the division.
Expr floorDivByPositive(const Expr& a, int64_t c) {
  if (c == 1) return a;
  Linear lin = decompose(a);
  if (lin.constants.size() > 1) return makeNode(Op::FloorDiv, {a, Expr(c)});
  const int64_t k = lin.constant();
  Linear quotient, rest;
  for (Term& t : lin.terms) {
    if (t.coeff % c == 0) quotient.terms.push_back({t.coeff / c, std::move(t.mono)});
    else rest.terms.push_back(std::move(t));
  }
  if (rest.terms.empty()) {
    quotient.constants.push_back(floorDivInt(k, c));
    return buildSum(std::move(quotient));
  }
  quotient.constants.push_back(floorDivInt(k, c));
  rest.constants.push_back(floorModInt(k, c));
  // (g*x) // (g*y) = x // y for g > 0.
  const int64_t g = commonFactor(rest, c);
  divideAll(rest, g);
  // Peeled again: a smaller coefficient may let buildSum distribute a product over a sum whose
  // constant then belongs outside (a no-op for everything else).
  Expr div = g == 1 ? floorDivNode(buildSum(std::move(rest)), c) : floorDivByPositive(buildSum(std::move(rest)), c / g);
  return makeAdd({buildSum(std::move(quotient)), div});
}

// inner % c where inner has no term that c divides and its constant lies in the range of % c.
Expr modNode(const Expr& inner, int64_t c) {
  auto [lo, hi] = bounds(inner);
  if (lo && hi) {
    if (c > 0 && *lo >= 0 && *hi < c) return inner;
    if (c < 0 && *hi <= 0 && *lo > c) return inner;
  }
  // (x % a) % c = x % c when c divides a (a, c > 0); a <= c is covered by the bounds above.
  if (c > 0 && inner.op() == Op::Mod && inner.operands().size() == 2 && inner.operands()[1].isConstant()) {
    const int64_t a = *inner.operands()[1].constantValue();
    if (a > 0 && a % c == 0) return mod(inner.operands()[0], Expr(c));
  }
  return makeNode(Op::Mod, {inner, Expr(c)});
}

Expr modByConstant(const Expr& a, int64_t c) {
  if (c == 1 || c == -1) return Expr(0);
  Linear lin = decompose(a);
  if (lin.constants.size() > 1) return makeNode(Op::Mod, {a, Expr(c)});
  // (c*q + r) % c = r % c for all integers and either sign of c.
  Linear rest;
  for (Term& t : lin.terms)
    if (t.coeff % c != 0) rest.terms.push_back(std::move(t));
  const int64_t r0 = floorModInt(lin.constant(), c);
  if (rest.terms.empty()) return Expr(r0);
  rest.constants.push_back(r0);
  // (g*x) % (g*y) = g * (x % y) for g > 0.
  const int64_t g = commonFactor(rest, c);
  divideAll(rest, g);
  // Reduced again: a smaller coefficient may let buildSum distribute a product over a sum whose
  // constant then reduces (a no-op for everything else).
  Expr m = g == 1 ? modNode(buildSum(std::move(rest)), c) : modByConstant(buildSum(std::move(rest)), c / g);
  return g == 1 ? m : makeMul({Expr(g), m});
}

// ---- min / max ----

Expr minMax(Op op, const std::vector<Expr>& input) {
  const bool isMin = op == Op::Min;
  std::vector<Expr> items;
  for (const Expr& e : input) {
    if (e.op() == op) items.insert(items.end(), e.operands().begin(), e.operands().end());
    else items.push_back(e);
  }
  if (items.empty()) return makeNode(op, {});
  std::optional<int64_t> k;
  std::vector<Expr> rest;
  for (const Expr& e : items) {
    if (auto v = e.constantValue()) k = !k ? *v : (isMin ? std::min(*k, *v) : std::max(*k, *v));
    else rest.push_back(e);
  }
  std::sort(rest.begin(), rest.end());
  rest.erase(std::unique(rest.begin(), rest.end()), rest.end());
  // Operands that differ by a constant: only the smaller (min) or larger (max) one matters.
  std::vector<bool> dropped(rest.size(), false);
  for (size_t i = 0; i < rest.size(); ++i) {
    for (size_t j = i + 1; j < rest.size() && !dropped[i]; ++j) {
      if (dropped[j]) continue;
      Expr d = rest[i] - rest[j];
      if (!d.isConstant()) continue;
      const bool iLarger = *d.constantValue() >= 0;
      if (iLarger == isMin) dropped[i] = true;
      else dropped[j] = true;
    }
  }
  std::vector<Expr> kept;
  for (size_t i = 0; i < rest.size(); ++i)
    if (!dropped[i]) kept.push_back(rest[i]);
  // Against the constant, use the bounds of the other operands.
  if (k) {
    bool constantMatters = true;
    std::vector<Expr> survivors;
    for (const Expr& e : kept) {
      auto [lo, hi] = bounds(e);
      if (isMin ? (lo && *lo >= *k) : (hi && *hi <= *k)) continue; // never below (above) k
      if (isMin ? (hi && *hi <= *k) : (lo && *lo >= *k)) constantMatters = false; // never above (below)
      survivors.push_back(e);
    }
    kept = std::move(survivors);
    if (constantMatters || kept.empty()) kept.push_back(Expr(*k));
  }
  if (kept.size() == 1) return kept[0];
  std::sort(kept.begin(), kept.end());
  return makeNode(op, std::move(kept));
}

// ---- comparisons and logic ----

bool isBoolean(const Expr& e) {
  const Op op = e.op();
  if (op == Op::Const) return isConst(e, 0) || isConst(e, 1);
  return isComparison(op) || op == Op::And || op == Op::Or || op == Op::Not;
}

Expr comparison(Op op, Expr a, Expr b) {
  auto [lo, hi] = bounds(a - b);
  std::optional<bool> decided;
  switch (op) {
  case Op::Eq:
    if (lo && hi && *lo == 0 && *hi == 0) decided = true;
    else if ((lo && *lo > 0) || (hi && *hi < 0)) decided = false;
    break;
  case Op::Ne:
    if (lo && hi && *lo == 0 && *hi == 0) decided = false;
    else if ((lo && *lo > 0) || (hi && *hi < 0)) decided = true;
    break;
  case Op::Lt:
    if (hi && *hi < 0) decided = true;
    else if (lo && *lo >= 0) decided = false;
    break;
  case Op::Le:
    if (hi && *hi <= 0) decided = true;
    else if (lo && *lo > 0) decided = false;
    break;
  case Op::Gt:
    if (lo && *lo > 0) decided = true;
    else if (hi && *hi <= 0) decided = false;
    break;
  case Op::Ge:
    if (lo && *lo >= 0) decided = true;
    else if (hi && *hi < 0) decided = false;
    break;
  default: break;
  }
  if (decided) return Expr(*decided ? 1 : 0);
  if ((op == Op::Eq || op == Op::Ne) && b < a) std::swap(a, b);
  return makeNode(op, {std::move(a), std::move(b)});
}

Expr asBoolean(const Expr& e) { return isBoolean(e) ? e : comparison(Op::Ne, e, Expr(0)); }

Op invertComparison(Op op) {
  switch (op) {
  case Op::Eq: return Op::Ne;
  case Op::Ne: return Op::Eq;
  case Op::Lt: return Op::Ge;
  case Op::Le: return Op::Gt;
  case Op::Gt: return Op::Le;
  case Op::Ge: return Op::Lt;
  default: return op;
  }
}

Expr negation(const Expr& e) {
  if (auto v = e.constantValue()) return Expr(*v == 0 ? 1 : 0);
  if (e.op() == Op::Not && e.operands().size() == 1) return asBoolean(e.operands()[0]);
  if (isComparison(e.op())) return makeNode(invertComparison(e.op()), e.operands());
  return makeNode(Op::Not, {e});
}

// and/or over the operands: flattened, constants folded (0 decides and, non-zero decides or),
// duplicates and complementary pairs removed; a single non-boolean operand x becomes x != 0.
Expr junction(Op op, const std::vector<Expr>& input) {
  const bool isAnd = op == Op::And;
  std::vector<Expr> rest;
  std::vector<Expr> items;
  for (const Expr& e : input) {
    if (e.op() == op) items.insert(items.end(), e.operands().begin(), e.operands().end());
    else items.push_back(e);
  }
  for (const Expr& e : items) {
    if (auto v = e.constantValue()) {
      if ((*v == 0) == isAnd) return Expr(isAnd ? 0 : 1);
      continue; // neutral
    }
    rest.push_back(e);
  }
  std::sort(rest.begin(), rest.end());
  rest.erase(std::unique(rest.begin(), rest.end()), rest.end());
  for (const Expr& e : rest) // x and not x = 0; x or not x = 1
    if (std::binary_search(rest.begin(), rest.end(), negation(e))) return Expr(isAnd ? 0 : 1);
  if (rest.empty()) return Expr(isAnd ? 1 : 0);
  if (rest.size() == 1) return asBoolean(rest[0]);
  return makeNode(op, std::move(rest));
}

} // namespace

// ---- public constructors ----

Expr detail::makeAdd(std::vector<Expr> terms) {
  Linear lin;
  for (const Expr& e : terms) {
    if (e.op() == Op::Add) for (const Expr& t : e.operands()) addTerm(t, lin);
    else addTerm(e, lin);
  }
  return buildSum(std::move(lin));
}

Expr detail::makeMul(std::vector<Expr> input) {
  std::vector<Expr> factors;
  for (const Expr& e : input) {
    if (e.op() == Op::Mul) factors.insert(factors.end(), e.operands().begin(), e.operands().end());
    else factors.push_back(e);
  }
  for (const Expr& f : factors)
    if (isConst(f, 0)) return Expr(0);
  int64_t coeff = 1;
  bool overflow = false;
  std::vector<Expr> consts, rest;
  for (const Expr& f : factors) {
    if (auto v = f.constantValue()) {
      consts.push_back(f);
      if (auto p = checkedMul(coeff, *v)) coeff = *p;
      else overflow = true;
    } else {
      rest.push_back(f);
    }
  }
  std::sort(rest.begin(), rest.end());
  if (overflow) { // leave the constants unfolded; evaluate() reports the overflow
    consts.insert(consts.end(), rest.begin(), rest.end());
    return makeNode(Op::Mul, std::move(consts));
  }
  if (rest.empty()) return Expr(coeff);
  if (rest.size() == 1) {
    if (coeff == 1) return rest[0];
    if (rest[0].op() == Op::Add)
      if (auto scaled = scaleSum(rest[0], coeff)) return *scaled;
    return makeNode(Op::Mul, {Expr(coeff), rest[0]});
  }
  for (Expr& f : rest) {
    if (f.op() != Op::Add) continue;
    auto [g, primitive] = content(f);
    if (g == 1) continue;
    if (auto p = checkedMul(coeff, g)) {
      coeff = *p;
      f = primitive;
    }
  }
  std::sort(rest.begin(), rest.end());
  if (coeff != 1) rest.insert(rest.begin(), Expr(coeff));
  return makeNode(Op::Mul, std::move(rest));
}

Expr floorDiv(const Expr& a, const Expr& b) {
  auto c = b.constantValue();
  if (!c || *c == 0) return makeNode(Op::FloorDiv, {a, b});
  if (auto x = a.constantValue()) {
    if (*x == INT64_MIN && *c == -1) return makeNode(Op::FloorDiv, {a, b});
    return Expr(floorDivInt(*x, *c));
  }
  if (*c < 0) { // a // c = (-a) // (-c)
    if (*c == INT64_MIN) return makeNode(Op::FloorDiv, {a, b});
    return floorDivByPositive(-a, -*c);
  }
  return floorDivByPositive(a, *c);
}

Expr mod(const Expr& a, const Expr& b) {
  auto c = b.constantValue();
  if (!c || *c == 0) return makeNode(Op::Mod, {a, b});
  if (auto x = a.constantValue()) return Expr(floorModInt(*x, *c));
  return modByConstant(a, *c);
}

Expr ceilDiv(const Expr& a, const Expr& b) {
  auto c = b.constantValue();
  if (c && *c > 0) return floorDiv(a + Expr(*c - 1), b); // exact for every integer a when c > 0
  return -floorDiv(-a, b);
}

Expr min(const Expr& a, const Expr& b) { return minMax(Op::Min, {a, b}); }
Expr max(const Expr& a, const Expr& b) { return minMax(Op::Max, {a, b}); }
Expr eq(const Expr& a, const Expr& b) { return comparison(Op::Eq, a, b); }
Expr ne(const Expr& a, const Expr& b) { return comparison(Op::Ne, a, b); }
Expr lt(const Expr& a, const Expr& b) { return comparison(Op::Lt, a, b); }
Expr le(const Expr& a, const Expr& b) { return comparison(Op::Le, a, b); }
Expr gt(const Expr& a, const Expr& b) { return comparison(Op::Gt, a, b); }
Expr ge(const Expr& a, const Expr& b) { return comparison(Op::Ge, a, b); }
Expr logicalAnd(const Expr& a, const Expr& b) { return junction(Op::And, {a, b}); }
Expr logicalOr(const Expr& a, const Expr& b) { return junction(Op::Or, {a, b}); }
Expr logicalNot(const Expr& a) { return negation(a); }

Expr detail::simplified(Op op, std::vector<Expr> ops) {
  switch (op) {
  case Op::Add: return makeAdd(std::move(ops));
  case Op::Mul: return makeMul(std::move(ops));
  case Op::Min:
  case Op::Max: return ops.empty() ? makeNode(op, {}) : minMax(op, ops);
  case Op::And:
  case Op::Or: return junction(op, ops);
  case Op::Not: return ops.size() == 1 ? negation(ops[0]) : makeNode(op, std::move(ops));
  case Op::FloorDiv: return ops.size() == 2 ? floorDiv(ops[0], ops[1]) : makeNode(op, std::move(ops));
  case Op::Mod: return ops.size() == 2 ? mod(ops[0], ops[1]) : makeNode(op, std::move(ops));
  case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge:
    return ops.size() == 2 ? comparison(op, ops[0], ops[1]) : makeNode(op, std::move(ops));
  case Op::Const:
  case Op::Symbol: break;
  }
  return ops.size() == 1 ? ops[0] : Expr(0);
}

} // namespace dcw::sym
