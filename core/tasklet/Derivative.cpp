// Derivative: symbolic differentiation of tasklet code.
//
// derivative() is forward mode over one expression: d(expr)/d(name), built with small simplifying
// constructors (0 and 1 folded away, literals folded, negations pulled out) so that the result stays
// readable. backwardProgram() turns the forward program into SSA form (every statement defines a
// fresh value; a name read before any statement defines it is an external input), recomputes the
// forward values it needs as `let` locals, and sweeps the statements in reverse, accumulating the
// adjoint of every value: the adjoint of statement i's value is final once every later statement has
// been visited, is bound to a `let d_<name>` temporary when it is compound, and is pushed to the
// values statement i reads as adj * d(rhs)/d(value). An output assigned several times gets its
// incoming gradient on its last assignment only; earlier assignments receive gradient only through
// later reads. Unreferenced `let`s are dropped at the end.
//
// Type safety without types: the tasklet language types `1 / n` with two integers as an integer
// division, so a division built here whose operands are not surely floating point gets a float
// numerator (`1.0 / n`, `1.0 * a / n`). The variable of differentiation and gradient connectors
// count as floating point (the caller refuses gradients of integer inputs).
#include "core/tasklet/Derivative.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <set>
#include <unordered_map>

namespace dcw::tasklet {

namespace {

ExprPtr mk(ExprKind k, std::string text, std::vector<ExprPtr> args = {}, bool isInteger = false) {
  auto e = std::make_shared<Expr>();
  e->kind = k;
  e->text = std::move(text);
  e->args = std::move(args);
  e->isInteger = isInteger;
  return e;
}
ExprPtr num(std::string text, bool isInteger) { return mk(ExprKind::Number, std::move(text), {}, isInteger); }
ExprPtr zero() { return num("0", true); }
ExprPtr one() { return num("1", true); }
ExprPtr name(const std::string& n) { return mk(ExprKind::Name, n); }
ExprPtr call(const std::string& f, std::vector<ExprPtr> args) { return mk(ExprKind::Call, f, std::move(args)); }
ExprPtr bin(const std::string& op, ExprPtr a, ExprPtr b) { return mk(ExprKind::Binary, op, {std::move(a), std::move(b)}); }

// A plain numeric literal (not true/false/inf/nan) and its value.
bool numericValue(const ExprPtr& e, double& v) {
  if (!e || e->kind != ExprKind::Number) return false;
  const std::string& t = e->text;
  if (t == "true" || t == "false" || t == "inf" || t == "nan") return false;
  v = std::strtod(t.c_str(), nullptr);
  return true;
}
bool isZero(const ExprPtr& e) {
  double v;
  return numericValue(e, v) && v == 0;
}
bool isOne(const ExprPtr& e) {
  double v;
  return numericValue(e, v) && v == 1;
}
bool isNeg(const ExprPtr& e) { return e->kind == ExprKind::Unary && e->text == "-"; }

bool same(const ExprPtr& a, const ExprPtr& b) {
  if (a == b) return true;
  if (!a || !b) return false;
  if (a->kind != b->kind || a->text != b->text || a->isInteger != b->isInteger || a->args.size() != b->args.size())
    return false;
  for (size_t i = 0; i < a->args.size(); ++i)
    if (!same(a->args[i], b->args[i])) return false;
  return true;
}

// A structural key (kinds are told apart, so `x` the name and `x` a literal never collide).
void keyOf(const Expr& e, std::string& out) {
  out += static_cast<char>('A' + static_cast<int>(e.kind));
  out += e.isInteger ? 'i' : 'f';
  out += e.text;
  out += '(';
  for (auto& a : e.args) {
    if (a) keyOf(*a, out);
    out += ',';
  }
  out += ')';
}
std::string keyOf(const ExprPtr& e) {
  std::string s;
  if (e) keyOf(*e, s);
  return s;
}

bool isCast(const std::string& f) { return ir::dtypeFromName(f).has_value(); }
bool isFloatCast(const std::string& f) {
  auto t = ir::dtypeFromName(f);
  return t && ir::isFloating(*t);
}

bool isComparisonOrLogic(const std::string& op) {
  return op == "&&" || op == "||" || op == "==" || op == "!=" || op == "<" || op == "<=" || op == ">" || op == ">=";
}

// Literal folding of a op b for two numeric literals; null when it does not fold.
ExprPtr foldNumbers(const std::string& op, const ExprPtr& a, const ExprPtr& b) {
  double x, y;
  if (!numericValue(a, x) || !numericValue(b, y)) return nullptr;
  auto literal = [](double v, bool integer) -> ExprPtr {
    bool negative = v < 0;
    double m = std::fabs(v);
    ExprPtr n;
    if (integer) {
      n = num(std::to_string(static_cast<long long>(m)), true);
    } else {
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, m);
      std::string s(buf, r.ptr);
      if (s.find_first_of(".e") == std::string::npos) s += ".0";
      n = num(s, false);
    }
    return negative ? mk(ExprKind::Unary, "-", {n}) : n;
  };
  if (a->isInteger && b->isInteger) {
    long long p = std::strtoll(a->text.c_str(), nullptr, 10), q = std::strtoll(b->text.c_str(), nullptr, 10), r = 0;
    bool overflow = op == "+" ? __builtin_add_overflow(p, q, &r)
                    : op == "-" ? __builtin_sub_overflow(p, q, &r)
                    : op == "*" ? __builtin_mul_overflow(p, q, &r)
                                : true; // integer division and modulo are left as written
    if (overflow || r == std::numeric_limits<long long>::min()) return nullptr;
    return literal(static_cast<double>(r), true);
  }
  double r;
  if (op == "+") r = x + y;
  else if (op == "-") r = x - y;
  else if (op == "*") r = x * y;
  else return nullptr;
  if (!std::isfinite(r)) return nullptr;
  return literal(r, false);
}

// Simplifying constructors. `floatNames` are names known to hold floating-point values.
struct Builder {
  std::set<std::string> floatNames;

  bool surelyFloat(const ExprPtr& e) const {
    if (!e) return false;
    switch (e->kind) {
    case ExprKind::Number:
      return !e->isInteger && e->text != "true" && e->text != "false";
    case ExprKind::Name: return floatNames.count(e->text) > 0;
    case ExprKind::Index: return false;
    case ExprKind::Unary: return e->text == "-" && surelyFloat(e->args[0]);
    case ExprKind::Binary:
      if (isComparisonOrLogic(e->text)) return false;
      return surelyFloat(e->args[0]) || surelyFloat(e->args[1]);
    case ExprKind::Ternary: return surelyFloat(e->args[1]) || surelyFloat(e->args[2]);
    case ExprKind::Call: {
      const std::string& f = e->text;
      if (isCast(f)) return isFloatCast(f);
      if (f == "isnan" || f == "isinf") return false;
      if (f == "random_uniform") return true;
      if (f == "select") return surelyFloat(e->args[1]) || surelyFloat(e->args[2]);
      static const std::set<std::string> passArgs{"abs", "relu", "sign", "floor", "ceil", "round", "trunc",
                                                  "min", "max", "pow"};
      if (passArgs.count(f)) {
        for (auto& a : e->args)
          if (surelyFloat(a)) return true;
        return false;
      }
      return true; // exp, log, sqrt, trigonometric, erf, atan2, fmod, sigmoid
    }
    }
    return false;
  }

  ExprPtr neg(const ExprPtr& a) const {
    if (isZero(a)) return zero();
    if (isNeg(a)) return a->args[0];
    if (a->kind == ExprKind::Binary && a->text == "-") return bin("-", a->args[1], a->args[0]);
    return mk(ExprKind::Unary, "-", {a});
  }

  ExprPtr add(const ExprPtr& a, const ExprPtr& b) const {
    if (isZero(a)) return b;
    if (isZero(b)) return a;
    if (auto f = foldNumbers("+", a, b)) return f;
    if (isNeg(b)) return sub(a, b->args[0]);
    if (isNeg(a)) return sub(b, a->args[0]);
    if (same(a, b)) return mul(num("2", true), a);
    return bin("+", a, b);
  }

  ExprPtr sub(const ExprPtr& a, const ExprPtr& b) const {
    if (isZero(b)) return a;
    if (isZero(a)) return neg(b);
    if (auto f = foldNumbers("-", a, b)) return f;
    if (isNeg(b)) return add(a, b->args[0]);
    if (same(a, b)) return zero();
    return bin("-", a, b);
  }

  ExprPtr mul(const ExprPtr& a, const ExprPtr& b) const {
    if (isZero(a) || isZero(b)) return zero();
    if (isOne(a) && (a->isInteger || surelyFloat(b))) return b;
    if (isOne(b) && (b->isInteger || surelyFloat(a))) return a;
    if (auto f = foldNumbers("*", a, b)) return f;
    if (isNeg(a)) return neg(mul(a->args[0], b));
    if (isNeg(b)) return neg(mul(a, b->args[0]));
    // a * (1 / d) -> a / d, when that stays a floating-point division.
    if (b->kind == ExprKind::Binary && b->text == "/" && isOne(b->args[0]) &&
        (surelyFloat(a) || surelyFloat(b->args[1])))
      return div(a, b->args[1]);
    if (a->kind == ExprKind::Binary && a->text == "/" && isOne(a->args[0]) &&
        (surelyFloat(b) || surelyFloat(a->args[1])))
      return div(b, a->args[1]);
    // a * (c ? p : q) with literal branches -> c ? a * p : a * q (e.g. relu: x > 0 ? g : 0).
    auto literalBranches = [](const ExprPtr& t) {
      return t->kind == ExprKind::Ternary && t->args[1]->kind == ExprKind::Number && t->args[2]->kind == ExprKind::Number;
    };
    if (literalBranches(b)) return ternary(b->args[0], mul(a, b->args[1]), mul(a, b->args[2]));
    if (literalBranches(a)) return ternary(a->args[0], mul(a->args[1], b), mul(a->args[2], b));
    if (a->kind == ExprKind::Number && b->kind != ExprKind::Number) return bin("*", a, b);
    if (b->kind == ExprKind::Number) return bin("*", b, a); // literal first: 2 * x
    return bin("*", a, b);
  }

  ExprPtr div(const ExprPtr& a, const ExprPtr& b) const {
    if (isZero(a)) return zero();
    if (isOne(b) && (b->isInteger || surelyFloat(a))) return a;
    if (isNeg(a)) return neg(div(a->args[0], b));
    if (!surelyFloat(a) && !surelyFloat(b)) {
      // keep it a floating-point division
      if (a->kind == ExprKind::Number && a->isInteger) return bin("/", num(a->text + ".0", false), b);
      return bin("/", bin("*", num("1.0", false), a), b);
    }
    return bin("/", a, b);
  }

  ExprPtr ternary(const ExprPtr& c, const ExprPtr& a, const ExprPtr& b) const {
    if (same(a, b)) return a;
    return mk(ExprKind::Ternary, "?", {c, a, b});
  }
};

// Forward-mode derivative.
struct Differentiator {
  const Builder& B;
  const std::string& var;
  const std::string& where;

  Expected<ExprPtr> d(const ExprPtr& e) const {
    if (!e) return fail(where, "malformed tasklet expression (missing operand)");
    for (auto& a : e->args)
      if (!a) return fail(where, "malformed tasklet expression (missing operand)");
    switch (e->kind) {
    case ExprKind::Number: return zero();
    case ExprKind::Name: return e->text == var ? one() : zero();
    case ExprKind::Index:
      return fail(where, "cannot differentiate the array read '" + e->text + "[...]'",
                  "autodiff of tasklets handles scalar connectors only; read the element of '" + e->text +
                      "' through a scalar connector (a memlet to one element) instead of indexing in the tasklet");
    case ExprKind::Unary: {
      if (e->args.size() != 1) return fail(where, "malformed tasklet expression");
      if (e->text == "!") return zero();
      auto da = d(e->args[0]);
      if (!da) return da;
      return B.neg(*da);
    }
    case ExprKind::Binary: {
      if (e->args.size() != 2) return fail(where, "malformed tasklet expression");
      const std::string& op = e->text;
      if (isComparisonOrLogic(op)) return zero();
      const ExprPtr &a = e->args[0], &b = e->args[1];
      auto da = d(a);
      if (!da) return da;
      auto db = d(b);
      if (!db) return db;
      if (op == "+") return B.add(*da, *db);
      if (op == "-") return B.sub(*da, *db);
      if (op == "*") return B.add(B.mul(*da, b), B.mul(a, *db));
      if (op == "/") return quotient(a, b, *da, *db);
      if (op == "%") return B.sub(*da, B.mul(call("trunc", {B.div(a, b)}), *db));
      return fail(where, "cannot differentiate the operator '" + op + "'");
    }
    case ExprKind::Ternary: {
      if (e->args.size() != 3) return fail(where, "malformed tasklet expression");
      auto da = d(e->args[1]);
      if (!da) return da;
      auto db = d(e->args[2]);
      if (!db) return db;
      return B.ternary(e->args[0], *da, *db);
    }
    case ExprKind::Call: return dcall(e);
    }
    return fail(where, "malformed tasklet expression");
  }

  ExprPtr quotient(const ExprPtr& a, const ExprPtr& b, const ExprPtr& da, const ExprPtr& db) const {
    // d(a/b) = da/b - a*db/(b*b)
    if (isZero(db)) return B.div(da, b);
    ExprPtr second = B.div(B.mul(a, db), B.mul(b, b));
    if (isZero(da)) return B.neg(second);
    return B.sub(B.div(da, b), second);
  }

  Expected<ExprPtr> dcall(const ExprPtr& e) const {
    const std::string& f = e->text;
    auto arity = [&](size_t n) { return e->args.size() == n; };
    if (isCast(f)) {
      if (!arity(1)) return fail(where, "malformed call of '" + f + "'");
      if (!isFloatCast(f)) return zero(); // integer and boolean casts are piecewise constant
      return d(e->args[0]);
    }
    // Piecewise constant, or (random_uniform) a draw that does not depend on a differentiable value.
    static const std::set<std::string> flat{"floor", "ceil", "round", "trunc", "sign", "isnan", "isinf", "random_uniform"};
    if (flat.count(f)) return zero();
    if (f == "select") {
      if (!arity(3)) return fail(where, "malformed call of 'select'");
      auto da = d(e->args[1]);
      if (!da) return da;
      auto db = d(e->args[2]);
      if (!db) return db;
      if (same(*da, *db)) return *da;
      return call("select", {e->args[0], *da, *db});
    }
    if (arity(2)) {
      const ExprPtr &a = e->args[0], &b = e->args[1];
      auto da = d(a);
      if (!da) return da;
      auto db = d(b);
      if (!db) return db;
      if (isZero(*da) && isZero(*db)) return zero();
      if (f == "pow") {
        // d a^b = b * a^(b-1) da + a^b log(a) db (the latter only where a > 0)
        ExprPtr r = zero();
        if (!isZero(*da)) {
          ExprPtr e1 = B.sub(b, one());
          ExprPtr p = isOne(e1) ? a : isZero(e1) ? one() : call("pow", {a, e1});
          r = B.mul(*da, B.mul(b, p));
        }
        if (!isZero(*db)) {
          ExprPtr g = B.ternary(bin(">", a, zero()), B.mul(e, call("log", {a})), zero());
          r = B.add(r, B.mul(*db, g));
        }
        return r;
      }
      if (f == "atan2") // atan2(a, b): (b da - a db) / (a^2 + b^2)
        return B.div(B.sub(B.mul(b, *da), B.mul(a, *db)), B.add(B.mul(a, a), B.mul(b, b)));
      if (f == "fmod") return B.sub(*da, B.mul(call("trunc", {B.div(a, b)}), *db));
      if (f == "min") return B.ternary(bin("<=", a, b), *da, *db);
      if (f == "max") return B.ternary(bin(">=", a, b), *da, *db);
      return fail(where, "cannot differentiate the function '" + f + "'");
    }
    if (!arity(1)) return fail(where, "malformed call of '" + f + "'");
    const ExprPtr& a = e->args[0];
    auto dar = d(a);
    if (!dar) return dar;
    const ExprPtr& da = *dar;
    if (isZero(da)) return zero();
    auto sq = [&]() { return B.mul(a, a); };
    if (f == "exp") return B.mul(da, e);
    if (f == "log") return B.div(da, a);
    if (f == "sqrt") return B.div(da, B.mul(num("2", true), e));
    if (f == "abs") return B.mul(da, call("sign", {a}));
    if (f == "sin") return B.mul(da, call("cos", {a}));
    if (f == "cos") return B.neg(B.mul(da, call("sin", {a})));
    if (f == "tan") {
      ExprPtr c = call("cos", {a});
      return B.div(da, B.mul(c, c));
    }
    if (f == "asin") return B.div(da, call("sqrt", {B.sub(one(), sq())}));
    if (f == "acos") return B.neg(B.div(da, call("sqrt", {B.sub(one(), sq())})));
    if (f == "atan") return B.div(da, B.add(one(), sq()));
    if (f == "sinh") return B.mul(da, call("cosh", {a}));
    if (f == "cosh") return B.mul(da, call("sinh", {a}));
    if (f == "tanh") return B.mul(da, B.sub(one(), B.mul(e, e)));
    if (f == "asinh") return B.div(da, call("sqrt", {B.add(sq(), one())}));
    if (f == "acosh") return B.div(da, call("sqrt", {B.sub(sq(), one())}));
    if (f == "atanh") return B.div(da, B.sub(one(), sq()));
    if (f == "erf") // 2/sqrt(pi) exp(-a^2)
      return B.mul(da, B.mul(num("1.1283791670955126", false), call("exp", {B.neg(sq())})));
    if (f == "sigmoid") return B.mul(da, B.mul(e, B.sub(one(), e)));
    if (f == "relu") return B.mul(da, B.ternary(bin(">", a, zero()), one(), zero()));
    return fail(where, "cannot differentiate the function '" + f + "'");
  }
};

void collectNames(const ExprPtr& e, std::set<std::string>& out) {
  if (!e) return;
  if (e->kind == ExprKind::Name || e->kind == ExprKind::Index) out.insert(e->text);
  for (auto& a : e->args) collectNames(a, out);
}

const Expr* findIndex(const ExprPtr& e) {
  if (!e) return nullptr;
  if (e->kind == ExprKind::Index) return e.get();
  for (auto& a : e->args)
    if (auto f = findIndex(a)) return f;
  return nullptr;
}

bool isIdentifier(const std::string& s) {
  if (s.empty() || s.size() > 256) return false;
  if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return !(s == "let" || s == "true" || s == "false" || s == "inf" || s == "nan");
}

} // namespace

Expected<ExprPtr> derivative(const ExprPtr& expr, const std::string& name, const std::string& where) {
  Builder b;
  b.floatNames.insert(name);
  Differentiator diff{b, name, where};
  return diff.d(expr);
}

Expected<Program> backwardProgram(const Program& forward, const BackwardSpec& spec, const std::string& where) {
  // ---- validate ----
  std::vector<std::string> reads = readNames(forward), outputs = writtenNames(forward);
  std::set<std::string> readSet(reads.begin(), reads.end()), outputSet(outputs.begin(), outputs.end());
  for (auto& st : forward.statements) {
    if (!st.value) return fail(where, "malformed tasklet statement assigning '" + st.target + "'");
    if (auto ix = findIndex(st.value))
      return fail(where, "cannot differentiate the tasklet: it indexes the array '" + ix->text + "' (" + ix->text + "[...])",
                  "autodiff of tasklets handles scalar connectors only; read the element of '" + ix->text +
                      "' through a scalar connector (a memlet to one element) instead of indexing in the tasklet");
  }
  std::set<std::string> connectors; // gradient connectors of the backward program
  auto checkConnector = [&](const std::string& c, const std::string& what) -> Expected<void> {
    if (!isIdentifier(c)) return fail(where, "gradient connector '" + c + "' for " + what + " is not a valid name");
    if (readSet.count(c))
      return fail(where, "gradient connector '" + c + "' for " + what + " has the name of a forward input",
                  "the backward tasklet reads the forward inputs under their own names; rename the gradient connector");
    if (!connectors.insert(c).second)
      return fail(where, "gradient connector '" + c + "' is used more than once",
                  "give every input and output gradient its own connector");
    return {};
  };
  for (auto& [out, g] : spec.outputGradient) {
    if (!outputSet.count(out)) {
      std::string list;
      for (auto& o : outputs) list += (list.empty() ? "" : ", ") + o;
      return fail(where, "a gradient is given for '" + out + "', which the tasklet does not write",
                  list.empty() ? "the tasklet writes no output" : "the tasklet writes: " + list);
    }
    DCW_CHECK(checkConnector(g, "output '" + out + "'"));
  }
  for (auto& [in, g] : spec.inputGradient)
    DCW_CHECK(checkConnector(g, "input '" + in + "'"));

  // ---- SSA form ----
  // Values: externals (read before any definition) and one per statement.
  struct Value {
    std::string bname;     // name in the backward program
    bool external = false;
    int stmt = -1;
    ExprPtr rhs;           // renamed right-hand side (statements)
    bool relevant = false; // depends on an input whose gradient is wanted
  };
  std::vector<Value> values;
  std::map<std::string, int> externalOf, current;
  std::set<std::string> used; // names taken in the backward program
  for (auto& r : reads) used.insert(r);
  for (auto& c : connectors) used.insert(c);
  auto fresh = [&](const std::string& base) {
    if (used.insert(base).second) return base;
    for (int k = 1;; ++k)
      if (std::string s = base + "_" + std::to_string(k); used.insert(s).second) return s;
  };
  auto externalValue = [&](const std::string& n) {
    if (auto it = externalOf.find(n); it != externalOf.end()) return it->second;
    Value v;
    v.bname = n;
    v.external = true;
    v.relevant = spec.inputGradient.count(n) > 0;
    values.push_back(v);
    return externalOf[n] = static_cast<int>(values.size()) - 1;
  };
  std::map<std::string, int> valueByBname;
  std::function<ExprPtr(const ExprPtr&)> rename = [&](const ExprPtr& e) -> ExprPtr {
    if (e->kind == ExprKind::Name) {
      auto it = current.find(e->text);
      int v = it != current.end() ? it->second : externalValue(e->text);
      valueByBname[values[v].bname] = v;
      return values[v].bname == e->text ? e : name(values[v].bname);
    }
    if (e->args.empty()) return e;
    auto c = std::make_shared<Expr>(*e);
    for (auto& a : c->args) a = rename(a);
    return c;
  };
  std::vector<int> stmtValue;
  for (size_t i = 0; i < forward.statements.size(); ++i) {
    const auto& st = forward.statements[i];
    Value v;
    v.stmt = static_cast<int>(i);
    v.rhs = rename(st.value);
    std::set<std::string> refs;
    collectNames(v.rhs, refs);
    for (auto& r : refs)
      if (values[valueByBname.at(r)].relevant) v.relevant = true;
    v.bname = fresh(st.target);
    values.push_back(v);
    int id = static_cast<int>(values.size()) - 1;
    valueByBname[v.bname] = id;
    current[st.target] = id;
    stmtValue.push_back(id);
  }

  // ---- reverse sweep ----
  Builder B;
  for (auto& c : connectors) B.floatNames.insert(c);
  // CSE: a subtree equal to a forward right-hand side is replaced by that value's name.
  std::unordered_map<std::string, std::string> rhsName;
  for (int id : stmtValue) {
    const auto& v = values[id];
    if (v.rhs->kind == ExprKind::Name || v.rhs->kind == ExprKind::Number) continue;
    rhsName.emplace(keyOf(v.rhs), v.bname);
  }
  std::function<ExprPtr(const ExprPtr&)> cse = [&](const ExprPtr& e) -> ExprPtr {
    if (e->args.empty()) return e;
    if (auto it = rhsName.find(keyOf(e)); it != rhsName.end()) return name(it->second);
    auto c = std::make_shared<Expr>(*e);
    bool changed = false;
    for (auto& a : c->args) {
      auto n = cse(a);
      changed |= n != a;
      a = n;
    }
    return changed ? c : e;
  };

  std::vector<ExprPtr> adj(values.size());
  for (auto& [out, g] : spec.outputGradient) adj[current.at(out)] = name(g);

  std::vector<Statement> adjointLets;
  for (int i = static_cast<int>(stmtValue.size()) - 1; i >= 0; --i) {
    int id = stmtValue[i];
    if (!adj[id] || isZero(adj[id])) continue;
    const Value& v = values[id];
    std::set<std::string> refs;
    collectNames(v.rhs, refs);
    std::vector<int> targets;
    for (auto& r : refs)
      if (values[valueByBname.at(r)].relevant) targets.push_back(valueByBname.at(r));
    if (targets.empty()) continue;
    ExprPtr a = adj[id];
    if (a->kind != ExprKind::Name && a->kind != ExprKind::Number) {
      std::string dn = fresh("d_" + v.bname);
      adjointLets.push_back(Statement{dn, true, a});
      B.floatNames.insert(dn);
      a = name(dn);
    }
    for (int t : targets) {
      B.floatNames.insert(values[t].bname);
      Differentiator diff{B, values[t].bname, where};
      auto dv = diff.d(v.rhs);
      B.floatNames.erase(values[t].bname);
      if (!dv) return dv.takeError();
      if (isZero(*dv)) continue;
      ExprPtr contribution = cse(B.mul(a, *dv));
      adj[t] = adj[t] ? B.add(adj[t], contribution) : contribution;
    }
  }

  // ---- assemble: recomputed forward values, adjoint temporaries, gradient writes; drop dead lets ----
  std::vector<Statement> writes;
  std::set<std::string> written;
  auto writeGradient = [&](const std::string& in) {
    auto it = spec.inputGradient.find(in);
    if (it == spec.inputGradient.end() || !written.insert(in).second) return;
    ExprPtr g;
    if (auto e = externalOf.find(in); e != externalOf.end()) g = adj[e->second];
    writes.push_back(Statement{it->second, false, g ? g : zero()});
  };
  for (auto& r : reads) writeGradient(r);
  for (auto& [in, g] : spec.inputGradient) writeGradient(in);

  std::vector<Statement> lets;
  for (int id : stmtValue) lets.push_back(Statement{values[id].bname, true, values[id].rhs});
  for (auto& s : adjointLets) lets.push_back(s);
  std::set<std::string> needed;
  for (auto& w : writes) collectNames(w.value, needed);
  std::vector<bool> keep(lets.size(), false);
  for (int i = static_cast<int>(lets.size()) - 1; i >= 0; --i)
    if (needed.count(lets[i].target)) {
      keep[i] = true;
      collectNames(lets[i].value, needed);
    }
  Program p;
  for (size_t i = 0; i < lets.size(); ++i)
    if (keep[i]) p.statements.push_back(lets[i]);
  for (auto& w : writes) p.statements.push_back(w);
  return p;
}

} // namespace dcw::tasklet
