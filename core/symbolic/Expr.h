// Expr: an immutable symbolic integer expression (shapes, strides, map ranges, memlet subsets,
// interstate conditions). Exact 64-bit integer semantics: `//` is floor division and `%` the matching
// modulo (the result has the divisor's sign), as in Python and DaCe; comparisons and logic yield 0/1.
// Expressions are built in canonical simplified form, so structural equality (==) is a cheap and
// useful first test of mathematical equality; proveEqual/proveLessEqual go further where decidable.
#pragma once

#include "core/support/Expected.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace dcw::sym {

enum class Op {
  Const,   // integer literal
  Symbol,  // named integer symbol
  Add,     // n-ary sum
  Mul,     // n-ary product
  FloorDiv,// a // b
  Mod,     // a % b
  Min,     // n-ary
  Max,     // n-ary
  // Comparisons and logic (value 0 or 1): used for interstate-edge conditions.
  Eq, Ne, Lt, Le, Gt, Ge,
  And, Or, Not,
};

struct ExprNode; // defined in Expr.cpp

class Expr {
public:
  Expr();                 // the constant 0
  Expr(int64_t value);    // NOLINT: implicit on purpose, so that `n + 1` reads naturally
  Expr(int value) : Expr(static_cast<int64_t>(value)) {}
  static Expr symbol(std::string name);   // name must be an identifier
  static Expr constant(int64_t value) { return Expr(value); }

  // Parses the syntax printed by str(): integers, identifiers, + - * // % ( ), unary -, min(a,b,...),
  // max(a,b,...), == != < <= > >=, and/or/not (also && || !), true/false.
  // The error names the column and what was expected.
  static Expected<Expr> parse(std::string_view text);

  Op op() const;
  bool isConstant() const { return op() == Op::Const; }
  bool isSymbol() const { return op() == Op::Symbol; }
  std::optional<int64_t> constantValue() const;  // set when isConstant()
  const std::string& symbolName() const;         // valid when isSymbol()
  const std::vector<Expr>& operands() const;     // empty for Const and Symbol

  // Readable, re-parseable form with minimal parentheses: "2*N + 1", "(i + 3) // 4", "min(N, 16)".
  std::string str() const;

  std::set<std::string> freeSymbols() const;
  // The number of nodes of the expression as a tree (shared subexpressions counted each time they
  // occur), counting stops past `cap`. What printing, substituting or comparing it costs.
  size_t treeSize(size_t cap = SIZE_MAX) const;
  Expr substitute(const std::map<std::string, Expr>& replacements) const;
  // Value under a full assignment; an error names an unbound symbol, division by zero or overflow.
  Expected<int64_t> evaluate(const std::map<std::string, int64_t>& values) const;

  // Structural equality and a total order (for use as map keys and canonical operand order).
  bool operator==(const Expr& other) const;
  bool operator!=(const Expr& other) const { return !(*this == other); }
  bool operator<(const Expr& other) const;
  size_t hash() const;

  friend Expr operator+(const Expr& a, const Expr& b);
  friend Expr operator-(const Expr& a, const Expr& b);
  friend Expr operator*(const Expr& a, const Expr& b);
  friend Expr operator-(const Expr& a);
  Expr& operator+=(const Expr& b) { return *this = *this + b; }
  Expr& operator-=(const Expr& b) { return *this = *this - b; }
  Expr& operator*=(const Expr& b) { return *this = *this * b; }

  explicit Expr(std::shared_ptr<const ExprNode> node) : node_(std::move(node)) {}
  const std::shared_ptr<const ExprNode>& node() const { return node_; }

private:
  std::shared_ptr<const ExprNode> node_;
};

Expr floorDiv(const Expr& a, const Expr& b);
Expr mod(const Expr& a, const Expr& b);
Expr min(const Expr& a, const Expr& b);
Expr max(const Expr& a, const Expr& b);
Expr ceilDiv(const Expr& a, const Expr& b); // -((-a) // b)
Expr eq(const Expr& a, const Expr& b);
Expr ne(const Expr& a, const Expr& b);
Expr lt(const Expr& a, const Expr& b);
Expr le(const Expr& a, const Expr& b);
Expr gt(const Expr& a, const Expr& b);
Expr ge(const Expr& a, const Expr& b);
Expr logicalAnd(const Expr& a, const Expr& b);
Expr logicalOr(const Expr& a, const Expr& b);
Expr logicalNot(const Expr& a);

// Facts a prover may use: inclusive bounds per symbol (e.g. dims are >= 1, map params lie in their range).
struct Assumptions {
  std::map<std::string, std::pair<std::optional<int64_t>, std::optional<int64_t>>> bounds;
  void setLower(const std::string& s, int64_t lo) { bounds[s].first = lo; }
  void setUpper(const std::string& s, int64_t hi) { bounds[s].second = hi; }

  // Symbolic inclusive bounds, e.g. a map parameter i in [0, N - 1]; the provers use them besides the
  // integer bounds above. A constant expression is stored as an integer bound.
  std::map<std::string, std::pair<std::optional<Expr>, std::optional<Expr>>> symbolicBounds;
  void setLower(const std::string& s, const Expr& lo) {
    if (lo.isConstant()) bounds[s].first = *lo.constantValue(); else symbolicBounds[s].first = lo;
  }
  void setUpper(const std::string& s, const Expr& hi) {
    if (hi.isConstant()) bounds[s].second = *hi.constantValue(); else symbolicBounds[s].second = hi;
  }
};

// Three-valued proofs: true = proved, false = disproved, nullopt = undecided.
std::optional<bool> proveEqual(const Expr& a, const Expr& b, const Assumptions& assume = {});
std::optional<bool> proveLessEqual(const Expr& a, const Expr& b, const Assumptions& assume = {});
std::optional<bool> proveLess(const Expr& a, const Expr& b, const Assumptions& assume = {});

// Inclusive integer bounds of e under the assumptions (nullopt on a side means unbounded/unknown).
std::pair<std::optional<int64_t>, std::optional<int64_t>> bounds(const Expr& e, const Assumptions& assume = {});
// A constant upper bound of e, tighter than bounds() on the sizes of tiles: min(a, b) - c is bounded as
// min(a - c, b - c), so a partial tile's size min(i + 32, N) - i is at most 32.
std::optional<int64_t> upperBound(const Expr& e, const Assumptions& assume = {});

bool isIdentifier(std::string_view s);

namespace detail {
// Construction hooks shared by the core/symbolic sources; not for use elsewhere. makeNode builds a
// node exactly as given (no simplification); the others are the canonicalising constructors.
Expr makeNode(Op op, std::vector<Expr> operands);
Expr simplified(Op op, std::vector<Expr> operands); // dispatches on op; n-ary for Add/Mul/Min/Max/And/Or
Expr makeAdd(std::vector<Expr> terms);
Expr makeMul(std::vector<Expr> factors);
} // namespace detail

} // namespace dcw::sym

template <>
struct std::hash<dcw::sym::Expr> {
  size_t operator()(const dcw::sym::Expr& e) const { return e.hash(); }
};
