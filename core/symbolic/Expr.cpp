// Expr.cpp: the node behind a symbolic expression and everything that reads a finished one:
// accessors, structural hashing, equality and the total order that fixes canonical operand order,
// printing in the re-parseable syntax with minimal parentheses, free symbols, substitution and
// evaluation with exact (checked) 64-bit integer semantics.
// Simplification lives in Simplify.cpp, parsing in ExprParser.cpp, bounds and proofs in Prover.cpp.
#include "core/symbolic/Expr.h"

#include <functional>

namespace dcw::sym {

struct ExprNode {
  Op op = Op::Const;
  int64_t value = 0;          // Const
  std::string name;           // Symbol
  std::vector<Expr> operands; // every other op
  size_t hash = 0;
};

namespace {

size_t mix(size_t seed, size_t v) {
  return seed ^ (v + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2));
}

std::shared_ptr<const ExprNode> newNode(Op op, int64_t value, std::string name, std::vector<Expr> operands) {
  auto n = std::make_shared<ExprNode>();
  n->op = op;
  n->value = value;
  n->name = std::move(name);
  n->operands = std::move(operands);
  size_t h = mix(0, static_cast<size_t>(op));
  if (op == Op::Const) h = mix(h, std::hash<int64_t>{}(value));
  if (op == Op::Symbol) h = mix(h, std::hash<std::string>{}(n->name));
  for (const Expr& o : n->operands) h = mix(h, o.hash());
  n->hash = h;
  return n;
}

// A default-constructed shared_ptr is never produced here, but Expr(nullptr) is possible through the
// public node constructor; it reads as the constant 0 rather than crashing.
const ExprNode& nodeOf(const Expr& e) {
  static const std::shared_ptr<const ExprNode> zero = newNode(Op::Const, 0, {}, {});
  return e.node() ? *e.node() : *zero;
}

// Position of each op in the canonical order. Products come first so that sums list their
// higher-degree terms first ("M*N + N + 1"); constants come last ("N + 1", "min(N, 16)").
int rank(Op op) {
  switch (op) {
  case Op::Mul: return 0;
  case Op::Symbol: return 1;
  case Op::FloorDiv: return 2;
  case Op::Mod: return 3;
  case Op::Min: return 4;
  case Op::Max: return 5;
  case Op::Add: return 6;
  case Op::Eq: return 7;
  case Op::Ne: return 8;
  case Op::Lt: return 9;
  case Op::Le: return 10;
  case Op::Gt: return 11;
  case Op::Ge: return 12;
  case Op::And: return 13;
  case Op::Or: return 14;
  case Op::Not: return 15;
  case Op::Const: return 16;
  }
  return 17;
}

int compareExpr(const Expr& a, const Expr& b) {
  if (a.node() == b.node()) return 0;
  const ExprNode& x = nodeOf(a);
  const ExprNode& y = nodeOf(b);
  if (x.op != y.op) return rank(x.op) < rank(y.op) ? -1 : 1;
  switch (x.op) {
  case Op::Const: return x.value < y.value ? -1 : (x.value > y.value ? 1 : 0);
  case Op::Symbol: return x.name.compare(y.name) < 0 ? -1 : (x.name == y.name ? 0 : 1);
  default: break;
  }
  if (x.op == Op::Mul && x.operands.size() != y.operands.size())
    return x.operands.size() > y.operands.size() ? -1 : 1; // higher degree first
  const size_t n = std::min(x.operands.size(), y.operands.size());
  for (size_t i = 0; i < n; ++i)
    if (int c = compareExpr(x.operands[i], y.operands[i])) return c;
  if (x.operands.size() != y.operands.size()) return x.operands.size() < y.operands.size() ? -1 : 1;
  return 0;
}

// ---- printing ----

// Binding strength of the printed form: or < and < not < comparison < additive < multiplicative
// < unary < atom.
enum Prec { PrecOr = 1, PrecAnd, PrecNot, PrecCmp, PrecAdd, PrecMul, PrecUnary, PrecAtom };

int precedence(const Expr& e) {
  const ExprNode& n = nodeOf(e);
  switch (n.op) {
  case Op::Const: return n.value < 0 ? PrecUnary : PrecAtom;
  case Op::Symbol:
  case Op::Min:
  case Op::Max: return PrecAtom;
  case Op::Add: return PrecAdd;
  case Op::Mul:
  case Op::FloorDiv:
  case Op::Mod: return PrecMul;
  case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: return PrecCmp;
  case Op::And: return PrecAnd;
  case Op::Or: return PrecOr;
  case Op::Not: return PrecNot;
  }
  return PrecAtom;
}

void print(const Expr& e, std::string& out);

void printAt(const Expr& e, int minPrec, std::string& out) {
  if (precedence(e) < minPrec) {
    out += '(';
    print(e, out);
    out += ')';
  } else {
    print(e, out);
  }
}

// The leading integer factor of a term, if it has one (Const, or a Mul that starts with a Const).
std::optional<int64_t> leadingCoefficient(const Expr& t) {
  const ExprNode& n = nodeOf(t);
  if (n.op == Op::Const) return n.value;
  if (n.op == Op::Mul && !n.operands.empty() && n.operands[0].isConstant()) return n.operands[0].constantValue();
  return std::nullopt;
}

// -t for a term with a negative leading coefficient, built without simplification (printing only).
std::optional<Expr> negatedTerm(const Expr& t) {
  const ExprNode& n = nodeOf(t);
  auto c = leadingCoefficient(t);
  if (!c || *c >= 0 || *c == INT64_MIN) return std::nullopt;
  if (n.op == Op::Const) return Expr(-*c);
  std::vector<Expr> rest(n.operands.begin() + 1, n.operands.end());
  if (*c == -1) {
    if (rest.size() == 1) return rest[0];
    return detail::makeNode(Op::Mul, std::move(rest));
  }
  rest.insert(rest.begin(), Expr(-*c));
  return detail::makeNode(Op::Mul, std::move(rest));
}

const char* opText(Op op) {
  switch (op) {
  case Op::FloorDiv: return " // ";
  case Op::Mod: return " % ";
  case Op::Eq: return " == ";
  case Op::Ne: return " != ";
  case Op::Lt: return " < ";
  case Op::Le: return " <= ";
  case Op::Gt: return " > ";
  case Op::Ge: return " >= ";
  case Op::And: return " and ";
  case Op::Or: return " or ";
  default: return " ? ";
  }
}

void print(const Expr& e, std::string& out) {
  const ExprNode& n = nodeOf(e);
  const auto& ops = n.operands;
  switch (n.op) {
  case Op::Const: out += std::to_string(n.value); return;
  case Op::Symbol: out += n.name; return;
  case Op::Add: {
    if (ops.empty()) { out += '0'; return; }
    // Lead with the first term that is not subtracted, so that "N - 2*M" is not "-2*M + N".
    size_t lead = 0;
    for (size_t i = 0; i < ops.size(); ++i)
      if (!negatedTerm(ops[i])) { lead = i; break; }
    printAt(ops[lead], PrecAdd, out);
    for (size_t i = 0; i < ops.size(); ++i) {
      if (i == lead) continue;
      if (auto neg = negatedTerm(ops[i])) {
        out += " - ";
        printAt(*neg, PrecMul, out);
      } else {
        out += " + ";
        printAt(ops[i], PrecMul, out);
      }
    }
    return;
  }
  case Op::Mul: {
    if (ops.empty()) { out += '1'; return; }
    size_t first = 0;
    if (ops.size() >= 2 && ops[0].isConstant()) {
      const int64_t c = *ops[0].constantValue();
      if (c == -1) out += '-';
      else { out += std::to_string(c); out += '*'; }
      first = 1;
    }
    for (size_t i = first; i < ops.size(); ++i) {
      if (i > first) out += '*';
      // Floor-div and mod factors are always parenthesised: "N*(i // 2)", never "i // 2*N".
      printAt(ops[i], PrecUnary, out);
    }
    return;
  }
  case Op::FloorDiv:
  case Op::Mod:
    if (ops.size() != 2) break;
    printAt(ops[0], PrecMul, out);
    out += opText(n.op);
    printAt(ops[1], PrecUnary, out);
    return;
  case Op::Min:
  case Op::Max:
    out += n.op == Op::Min ? "min(" : "max(";
    for (size_t i = 0; i < ops.size(); ++i) {
      if (i) out += ", ";
      print(ops[i], out);
    }
    out += ')';
    return;
  case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge:
    if (ops.size() != 2) break;
    printAt(ops[0], PrecAdd, out);
    out += opText(n.op);
    printAt(ops[1], PrecAdd, out);
    return;
  case Op::And:
  case Op::Or:
    for (size_t i = 0; i < ops.size(); ++i) {
      if (i) out += opText(n.op);
      printAt(ops[i], n.op == Op::And ? PrecNot : PrecAnd, out);
    }
    return;
  case Op::Not:
    if (ops.size() != 1) break;
    out += "not ";
    printAt(ops[0], PrecNot, out);
    return;
  }
  out += "<malformed>";
}

// ---- evaluation ----

struct EvalResult {
  int64_t value = 0;
  std::string error; // empty when ok
};

EvalResult evalError(std::string message) { return EvalResult{0, std::move(message)}; }

EvalResult evalNode(const Expr& e, const std::map<std::string, int64_t>& values) {
  const ExprNode& n = nodeOf(e);
  const auto& ops = n.operands;
  switch (n.op) {
  case Op::Const: return {n.value, {}};
  case Op::Symbol: {
    auto it = values.find(n.name);
    if (it == values.end()) return evalError("symbol '" + n.name + "' has no value");
    return {it->second, {}};
  }
  case Op::And:
  case Op::Or: {
    // Order-independent: a decisive operand (0 for and, non-zero for or) wins over an error in
    // another operand, matching the simplifier, which drops operands once the result is decided.
    const bool isAnd = n.op == Op::And;
    std::string firstError;
    for (const Expr& o : ops) {
      EvalResult r = evalNode(o, values);
      if (!r.error.empty()) {
        if (firstError.empty()) firstError = std::move(r.error);
        continue;
      }
      if (isAnd && r.value == 0) return {0, {}};
      if (!isAnd && r.value != 0) return {1, {}};
    }
    if (!firstError.empty()) return evalError(std::move(firstError));
    return {isAnd ? 1 : 0, {}};
  }
  default: break;
  }

  std::vector<int64_t> v;
  v.reserve(ops.size());
  for (const Expr& o : ops) {
    EvalResult r = evalNode(o, values);
    if (!r.error.empty()) return r;
    v.push_back(r.value);
  }
  auto overflow = [&] { return evalError("integer overflow in '" + e.str() + "'"); };
  auto arity = [&](size_t k) { return v.size() == k; };
  switch (n.op) {
  case Op::Add: {
    int64_t s = 0;
    for (int64_t x : v)
      if (__builtin_add_overflow(s, x, &s)) return overflow();
    return {s, {}};
  }
  case Op::Mul: {
    int64_t p = 1;
    for (int64_t x : v)
      if (__builtin_mul_overflow(p, x, &p)) return overflow();
    return {p, {}};
  }
  case Op::FloorDiv:
  case Op::Mod: {
    if (!arity(2)) break;
    const int64_t a = v[0], b = v[1];
    if (b == 0) return evalError("division by zero in '" + e.str() + "'");
    if (n.op == Op::Mod) {
      if (b == -1) return {0, {}};
      int64_t r = a % b;
      if (r != 0 && ((r < 0) != (b < 0))) r += b;
      return {r, {}};
    }
    if (a == INT64_MIN && b == -1) return overflow();
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return {q, {}};
  }
  case Op::Min:
  case Op::Max: {
    if (v.empty()) break;
    int64_t r = v[0];
    for (int64_t x : v) r = n.op == Op::Min ? std::min(r, x) : std::max(r, x);
    return {r, {}};
  }
  case Op::Eq: if (arity(2)) return {v[0] == v[1], {}}; break;
  case Op::Ne: if (arity(2)) return {v[0] != v[1], {}}; break;
  case Op::Lt: if (arity(2)) return {v[0] < v[1], {}}; break;
  case Op::Le: if (arity(2)) return {v[0] <= v[1], {}}; break;
  case Op::Gt: if (arity(2)) return {v[0] > v[1], {}}; break;
  case Op::Ge: if (arity(2)) return {v[0] >= v[1], {}}; break;
  case Op::Not: if (arity(1)) return {v[0] == 0, {}}; break;
  default: break;
  }
  return evalError("malformed expression node");
}

void collectSymbols(const Expr& e, std::set<std::string>& out) {
  const ExprNode& n = nodeOf(e);
  if (n.op == Op::Symbol) out.insert(n.name);
  for (const Expr& o : n.operands) collectSymbols(o, out);
}

} // namespace

// ---- construction and access ----

Expr::Expr() : node_(newNode(Op::Const, 0, {}, {})) {}
Expr::Expr(int64_t value) : node_(newNode(Op::Const, value, {}, {})) {}

Expr Expr::symbol(std::string name) { return Expr(newNode(Op::Symbol, 0, std::move(name), {})); }

Expr detail::makeNode(Op op, std::vector<Expr> operands) {
  return Expr(newNode(op, 0, {}, std::move(operands)));
}

Op Expr::op() const { return nodeOf(*this).op; }

std::optional<int64_t> Expr::constantValue() const {
  const ExprNode& n = nodeOf(*this);
  if (n.op != Op::Const) return std::nullopt;
  return n.value;
}

const std::string& Expr::symbolName() const { return nodeOf(*this).name; }

const std::vector<Expr>& Expr::operands() const { return nodeOf(*this).operands; }

std::string Expr::str() const {
  std::string out;
  print(*this, out);
  return out;
}

std::set<std::string> Expr::freeSymbols() const {
  std::set<std::string> out;
  collectSymbols(*this, out);
  return out;
}

size_t Expr::treeSize(size_t cap) const {
  size_t count = 0;
  std::vector<const ExprNode*> todo{&nodeOf(*this)};
  while (!todo.empty() && count <= cap) {
    const ExprNode* n = todo.back();
    todo.pop_back();
    ++count;
    for (auto& o : n->operands) todo.push_back(&nodeOf(o));
  }
  return count;
}

Expr Expr::substitute(const std::map<std::string, Expr>& replacements) const {
  const ExprNode& n = nodeOf(*this);
  if (n.op == Op::Const) return *this;
  if (n.op == Op::Symbol) {
    auto it = replacements.find(n.name);
    return it == replacements.end() ? *this : it->second;
  }
  std::vector<Expr> ops;
  ops.reserve(n.operands.size());
  bool changed = false;
  for (const Expr& o : n.operands) {
    ops.push_back(o.substitute(replacements));
    changed = changed || ops.back().node() != o.node();
  }
  if (!changed) return *this;
  return detail::simplified(n.op, std::move(ops));
}

Expected<int64_t> Expr::evaluate(const std::map<std::string, int64_t>& values) const {
  EvalResult r = evalNode(*this, values);
  if (!r.error.empty()) return fail("expression '" + str() + "'", r.error);
  return r.value;
}

bool Expr::operator==(const Expr& other) const {
  if (node_ == other.node_) return true;
  const ExprNode& x = nodeOf(*this);
  const ExprNode& y = nodeOf(other);
  if (x.hash != y.hash || x.op != y.op || x.value != y.value || x.operands.size() != y.operands.size() ||
      x.name != y.name)
    return false;
  for (size_t i = 0; i < x.operands.size(); ++i)
    if (x.operands[i] != y.operands[i]) return false;
  return true;
}

bool Expr::operator<(const Expr& other) const { return compareExpr(*this, other) < 0; }

size_t Expr::hash() const { return nodeOf(*this).hash; }

Expr operator+(const Expr& a, const Expr& b) { return detail::makeAdd({a, b}); }
Expr operator-(const Expr& a, const Expr& b) { return detail::makeAdd({a, detail::makeMul({Expr(-1), b})}); }
Expr operator*(const Expr& a, const Expr& b) { return detail::makeMul({a, b}); }
Expr operator-(const Expr& a) { return detail::makeMul({Expr(-1), a}); }

} // namespace dcw::sym
