// tst_TaskletDerivative: symbolic differentiation of tasklet code (core/tasklet/Derivative). Every
// operator and function of the tasklet language is checked against central finite differences in
// double precision at random points away from kinks, through both derivative() and
// backwardProgram(); multi-statement programs (locals, multiple outputs, outputs overwritten and
// read back, shadowed inputs, reassigned locals), zero gradients (unused inputs, integer casts), the
// refusals (array indexing, bad gradient specs) and the exact text of a few backward programs.
//
// The evaluator below models the tasklet language in double precision with the CPU runtime's
// semantics (round half to even, min/max/sign/relu as dcw_rt, saturating integer casts); floating
// casts are modelled as exact, so that finite differences check their pass-through derivative.
#include "core/tasklet/Derivative.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <set>

using namespace dcw::tasklet;

namespace {

using Env = std::map<std::string, double>;

struct Evaluator {
  std::string error;

  double eval(const ExprPtr& e, const Env& env) {
    if (!e) {
      error = "null expression";
      return NAN;
    }
    auto arg = [&](size_t i) { return eval(e->args.at(i), env); };
    switch (e->kind) {
    case ExprKind::Number:
      if (e->text == "true") return 1;
      if (e->text == "false") return 0;
      if (e->text == "inf") return INFINITY;
      if (e->text == "nan") return NAN;
      return std::strtod(e->text.c_str(), nullptr);
    case ExprKind::Name: {
      auto it = env.find(e->text);
      if (it == env.end()) {
        error = "unbound name '" + e->text + "'";
        return NAN;
      }
      return it->second;
    }
    case ExprKind::Index: error = "index expression"; return NAN;
    case ExprKind::Unary: return e->text == "-" ? -arg(0) : (arg(0) == 0 ? 1 : 0);
    case ExprKind::Binary: {
      const std::string& op = e->text;
      double a = arg(0), b = arg(1);
      if (op == "+") return a + b;
      if (op == "-") return a - b;
      if (op == "*") return a * b;
      if (op == "/") return a / b;
      if (op == "%") return std::fmod(a, b);
      if (op == "<") return a < b;
      if (op == "<=") return a <= b;
      if (op == ">") return a > b;
      if (op == ">=") return a >= b;
      if (op == "==") return a == b;
      if (op == "!=") return a != b;
      if (op == "&&") return (a != 0) && (b != 0);
      if (op == "||") return (a != 0) || (b != 0);
      error = "operator " + op;
      return NAN;
    }
    case ExprKind::Ternary: return arg(0) != 0 ? arg(1) : arg(2);
    case ExprKind::Call: return call(e, env);
    }
    return NAN;
  }

  template <class T> static double toInt(double x) {
    if (!(x == x)) return 0;
    if (x <= static_cast<double>(std::numeric_limits<T>::min())) return static_cast<double>(std::numeric_limits<T>::min());
    if (x >= static_cast<double>(std::numeric_limits<T>::max())) return static_cast<double>(std::numeric_limits<T>::max());
    return static_cast<double>(static_cast<T>(x));
  }

  double call(const ExprPtr& e, const Env& env) {
    const std::string& f = e->text;
    if (f == "select") return eval(e->args[0], env) != 0 ? eval(e->args[1], env) : eval(e->args[2], env);
    std::vector<double> v;
    for (auto& a : e->args) v.push_back(eval(a, env));
    double a = v[0], b = v.size() > 1 ? v[1] : 0;
    if (f == "exp") return std::exp(a);
    if (f == "log") return std::log(a);
    if (f == "sqrt") return std::sqrt(a);
    if (f == "abs") return std::fabs(a);
    if (f == "sin") return std::sin(a);
    if (f == "cos") return std::cos(a);
    if (f == "tan") return std::tan(a);
    if (f == "asin") return std::asin(a);
    if (f == "acos") return std::acos(a);
    if (f == "atan") return std::atan(a);
    if (f == "sinh") return std::sinh(a);
    if (f == "cosh") return std::cosh(a);
    if (f == "tanh") return std::tanh(a);
    if (f == "asinh") return std::asinh(a);
    if (f == "acosh") return std::acosh(a);
    if (f == "atanh") return std::atanh(a);
    if (f == "erf") return std::erf(a);
    if (f == "floor") return std::floor(a);
    if (f == "ceil") return std::ceil(a);
    if (f == "round") return std::nearbyint(a);
    if (f == "trunc") return std::trunc(a);
    if (f == "pow") return std::pow(a, b);
    if (f == "atan2") return std::atan2(a, b);
    if (f == "fmod") return std::fmod(a, b);
    if (f == "min") return (a < b || a != a) ? a : b;
    if (f == "max") return (a > b || a != a) ? a : b;
    if (f == "sign") return a > 0 ? 1.0 : (a < 0 ? -1.0 : a);
    if (f == "isnan") return std::isnan(a);
    if (f == "isinf") return std::isinf(a);
    if (f == "sigmoid") return 1.0 / (1.0 + std::exp(-a));
    if (f == "relu") return a < 0 ? 0.0 : a;
    if (f == "bool") return a != 0;
    if (f == "int8") return toInt<int8_t>(a);
    if (f == "int16") return toInt<int16_t>(a);
    if (f == "int32") return toInt<int32_t>(a);
    if (f == "int64") return toInt<int64_t>(a);
    if (f == "uint8") return toInt<uint8_t>(a);
    if (f == "uint16") return toInt<uint16_t>(a);
    if (f == "uint32") return toInt<uint32_t>(a);
    if (f == "uint64") return toInt<uint64_t>(a);
    if (f == "float16" || f == "bfloat16" || f == "float32" || f == "float64") return a; // modelled as exact
    error = "function " + f;
    return NAN;
  }

  Env run(const Program& p, Env env) {
    for (auto& s : p.statements) env[s.target] = eval(s.value, env);
    return env;
  }
};

QString qs(const std::string& s) { return QString::fromStdString(s); }

Program parsed(const std::string& code) {
  auto p = parse(code, "test/tasklet");
  if (!p) {
    QTest::qFail(qPrintable("parse failed: " + qs(p.error().str())), __FILE__, __LINE__);
    return {};
  }
  return *p;
}

ExprPtr parsedExpr(const std::string& code) {
  Program p = parsed("r = " + code);
  return p.statements.empty() ? nullptr : p.statements[0].value;
}

bool near(double got, double want, double rel = 1e-6) {
  if (std::isnan(got) || std::isnan(want)) return false;
  return std::fabs(got - want) <= rel * (std::fabs(got) + std::fabs(want)) + 1e-8;
}

double frac(double v) { return v - std::floor(v); }

// Points near the kinks of the piecewise functions are skipped: x == w, x or w near a multiple of
// 1/2 (floor, round, casts, abs at 0), and x / w near an integer (fmod).
bool awayFromKinks(double x, double w) {
  auto nearHalf = [](double v) {
    double f = frac(2 * v);
    return f < 0.02 || f > 0.98;
  };
  double q = frac(x / w);
  return std::fabs(x - w) > 0.02 && !nearHalf(x) && !nearHalf(w) && q > 0.02 && q < 0.98;
}

struct Case {
  const char* expr;
  double lo, hi;         // range of x and w
  double wlo = 0, whi = 0; // range of w when different (whi > wlo)
};

// The gradient connector of output `o`: "g" + o, or "g" + o + "_out" when o is also an input.
std::string outGrad(const std::string& o, const std::vector<std::string>& inputs) {
  return std::find(inputs.begin(), inputs.end(), o) != inputs.end() ? "g" + o + "_out" : "g" + o;
}

// backwardProgram for `forward` with gradients of `inputs` (gradient connector "g" + name) given the
// gradients of `outputs` (outGrad).
dcw::Expected<Program> backward(const Program& forward, const std::vector<std::string>& inputs,
                                const std::vector<std::string>& outputs) {
  BackwardSpec spec;
  for (auto& i : inputs) spec.inputGradient[i] = "g" + i;
  for (auto& o : outputs) spec.outputGradient[o] = outGrad(o, inputs);
  return backwardProgram(forward, spec, "main/state0/T");
}

// Checks the backward program of `forward` against central differences of L = sum_o g_o * o at
// `points` random points drawn by `draw`; also checks the structure of the backward program.
void checkProgram(const std::string& code, const std::vector<std::string>& inputs,
                  const std::vector<std::string>& outputs, const std::function<Env(std::mt19937&)>& draw,
                  int points = 5) {
  Program forward = parsed(code);
  auto bw = backward(forward, inputs, outputs);
  QVERIFY2(bw.ok(), bw.ok() ? "" : qPrintable(qs(code + ": " + bw.error().str())));
  const Program& b = *bw;
  if (qEnvironmentVariableIsSet("DCW_PRINT")) qInfo("%s\n---\n%s\n", code.c_str(), b.str().c_str());
  // Re-parses to the same text; writes each gradient connector exactly once; reads only forward
  // inputs and gradient connectors.
  auto re = parse(b.str(), "reparse");
  QVERIFY2(re.ok() && re->str() == b.str(), qPrintable(qs(b.str())));
  std::map<std::string, int> writes;
  for (auto& s : b.statements)
    if (!s.local) ++writes[s.target];
  QCOMPARE(writes.size(), inputs.size());
  for (auto& i : inputs) QVERIFY2(writes["g" + i] == 1, qPrintable(qs(b.str())));
  std::vector<std::string> fwdReads = readNames(forward);
  std::set<std::string> allowed(fwdReads.begin(), fwdReads.end());
  for (auto& o : outputs) allowed.insert(outGrad(o, inputs));
  for (auto& r : readNames(b)) QVERIFY2(allowed.count(r), qPrintable(qs("backward reads '" + r + "':\n" + b.str())));

  std::mt19937 rng(1234);
  std::uniform_real_distribution<double> gdist(0.5, 1.5);
  for (int k = 0; k < points; ++k) {
    Env env = draw(rng);
    Env benv = env;
    std::map<std::string, double> go;
    for (auto& o : outputs) benv[outGrad(o, inputs)] = go[o] = gdist(rng);
    auto loss = [&](const Env& at) {
      Evaluator ev;
      Env r = ev.run(forward, at);
      if (!ev.error.empty()) QTest::qFail(qPrintable(qs(ev.error)), __FILE__, __LINE__);
      double l = 0;
      for (auto& o : outputs) l += go[o] * r[o];
      return l;
    };
    Evaluator ev;
    Env got = ev.run(b, benv);
    QVERIFY2(ev.error.empty(), qPrintable(qs(ev.error + " in\n" + b.str())));
    for (auto& i : inputs) {
      double want = 0;
      if (env.count(i)) {
        double h = 1e-6 * std::max(1.0, std::fabs(env[i]));
        Env p = env, m = env;
        p[i] += h;
        m[i] -= h;
        want = (loss(p) - loss(m)) / (2 * h);
      }
      double g = got["g" + i];
      QVERIFY2(near(g, want), qPrintable(qs(code + "\nd/d" + i + " at point " + std::to_string(k) + ": got " +
                                              std::to_string(g) + ", finite difference " + std::to_string(want) +
                                              "\nbackward:\n" + b.str())));
    }
  }
}

std::string text(const dcw::Expected<Program>& p) { return p.ok() ? p->str() : "ERROR: " + p.error().str(); }

} // namespace

class TaskletDerivativeTest : public QObject {
  Q_OBJECT

private slots:
  void everyFunctionAgainstFiniteDifferences_data() {
    QTest::addColumn<QString>("expr");
    QTest::addColumn<double>("lo");
    QTest::addColumn<double>("hi");
    QTest::addColumn<double>("wlo");
    QTest::addColumn<double>("whi");
    const Case cases[] = {
        // operators
        {"x + w", -3, 3}, {"x - w", -3, 3}, {"x * w", -3, 3}, {"x / w", 0.5, 3}, {"-x * w", -3, 3},
        {"x % w", 0.5, 5, 0.7, 1.9}, {"(-x) % w", 0.5, 5, 0.7, 1.9}, {"x < w", -3, 3}, {"x <= w", -3, 3},
        {"x > w", -3, 3}, {"x >= w", -3, 3}, {"x == w", -3, 3}, {"x != w", -3, 3}, {"x && w", -3, 3},
        {"x || w", -3, 3}, {"!x + w", -3, 3}, {"x > w ? x * x : w * 3", -3, 3},
        {"x < 0.3 ? sin(x) * w : -w / x", -3, 3}, {"x * x * x - 2 * x / w", 0.5, 3}, {"(x + 1) / (x * w + 2)", 0.5, 3},
        // functions
        {"exp(x) * w", -2, 2}, {"log(x * w)", 0.3, 3}, {"sqrt(x + w)", 0.3, 3}, {"abs(x) * w", -3, 3},
        {"sin(x * w)", -2, 2}, {"cos(x * w)", -2, 2}, {"tan(x) + w", -1.2, 1.2}, {"asin(x * w)", -0.9, 0.9, 0.2, 1},
        {"acos(x * w)", -0.9, 0.9, 0.2, 1}, {"atan(x * w)", -3, 3}, {"sinh(x) * w", -2, 2}, {"cosh(x * w)", -2, 2},
        {"tanh(x * w)", -2, 2}, {"asinh(x * w)", -3, 3}, {"acosh(x + w)", 0.7, 3}, {"atanh(x * w)", -0.9, 0.9, 0.2, 1},
        {"erf(x * w)", -2, 2}, {"floor(x) * w", -3, 3}, {"ceil(x) * w", -3, 3}, {"round(x) * w", -3, 3},
        {"trunc(x) * w", -3, 3}, {"pow(x, w)", 0.3, 3}, {"pow(x, 3) * w", -2, 2}, {"pow(x, 0.5) + w", 0.3, 3},
        {"pow(w, 2.5) * x", 0.3, 3}, {"atan2(x, w)", -3, 3}, {"atan2(x * w, x - w)", -3, 3},
        {"fmod(x, w)", 0.5, 5, 0.7, 1.9}, {"fmod(-x, w)", 0.5, 5, 0.7, 1.9}, {"min(x, w)", -3, 3},
        {"max(x, w)", -3, 3}, {"min(x * x, w)", -2, 2}, {"sign(x) * w", -3, 3}, {"isnan(x) + w", -3, 3},
        {"isinf(x) + w * x", -3, 3}, {"sigmoid(x * w)", -3, 3}, {"relu(x) * w", -3, 3}, {"relu(x - w)", -3, 3},
        {"select(x > w, exp(x), w * x)", -2, 2}, {"select(x > 0, 1, w)", -2, 2},
        // casts
        {"float32(x) * w", -3, 3}, {"float64(x * w)", -3, 3}, {"float16(x) + bfloat16(w)", -3, 3},
        {"int64(x) * w", -3, 3}, {"int32(x * w)", -3, 3}, {"int8(x) + uint8(w)", 0.5, 3},
        {"int16(x) + uint16(w) + uint32(x) + uint64(w)", 0.5, 3}, {"bool(x) * w", -3, 3},
        // literals and symbols
        {"2.5 * x + 3 * w + N", -3, 3}, {"true ? x : w", -3, 3}, {"x * 0 + w * 1 + 0", -3, 3},
    };
    for (const Case& c : cases)
      QTest::newRow(c.expr) << QString(c.expr) << c.lo << c.hi << (c.whi > c.wlo ? c.wlo : c.lo)
                            << (c.whi > c.wlo ? c.whi : c.hi);
  }

  void everyFunctionAgainstFiniteDifferences() {
    QFETCH(QString, expr);
    QFETCH(double, lo);
    QFETCH(double, hi);
    QFETCH(double, wlo);
    QFETCH(double, whi);
    const std::string e = expr.toStdString();
    auto draw = [&](std::mt19937& rng) {
      std::uniform_real_distribution<double> dx(lo, hi), dw(wlo, whi);
      while (true) {
        double x = dx(rng), w = dw(rng);
        if (awayFromKinks(x, w)) return Env{{"x", x}, {"w", w}, {"N", 4}};
      }
    };
    // backwardProgram
    checkProgram("y = " + e, {"x", "w"}, {"y"}, draw);
    // derivative() directly
    ExprPtr f = parsedExpr(e);
    QVERIFY(f);
    std::mt19937 rng(99);
    for (const char* var : {"x", "w"}) {
      auto d = derivative(f, var, "test/expr");
      QVERIFY2(d.ok(), d.ok() ? "" : qPrintable(qs(d.error().str())));
      for (int k = 0; k < 5; ++k) {
        Env env = draw(rng);
        Evaluator ev;
        double got = ev.eval(*d, env);
        QVERIFY2(ev.error.empty(), qPrintable(qs(ev.error)));
        double h = 1e-6 * std::max(1.0, std::fabs(env[var]));
        Env p = env, m = env;
        p[var] += h;
        m[var] -= h;
        double want = (ev.eval(f, p) - ev.eval(f, m)) / (2 * h);
        QVERIFY2(near(got, want), qPrintable(qs(e + " d/d" + var + ": got " + std::to_string(got) + ", want " +
                                                std::to_string(want))));
      }
    }
  }

  void exactText() {
    QCOMPARE(qs(text(backward(parsed("y = x * w + b"), {"x", "w", "b"}, {"y"}))), QString("gx = gy * w\ngw = gy * x\ngb = gy"));
    QCOMPARE(qs(text(backward(parsed("y = relu(x)"), {"x"}, {"y"}))), QString("gx = x > 0 ? gy : 0"));
    QCOMPARE(qs(text(backward(parsed("y = sigmoid(x)"), {"x"}, {"y"}))),
             QString("let y = sigmoid(x)\ngx = gy * (y * (1 - y))"));
    QCOMPARE(qs(text(backward(parsed("let t = exp(x)\ny = t / (1 + t)"), {"x"}, {"y"}))),
             QString("let t = exp(x)\nlet d_t = gy * (1 / (1 + t) - t / ((1 + t) * (1 + t)))\ngx = d_t * t"));
    auto d = [](const std::string& e, const std::string& v) {
      auto r = derivative(parsedExpr(e), v, "t");
      return r.ok() ? qs(Program{{Statement{"d", false, *r}}}.str()) : qs(r.error().str());
    };
    QCOMPARE(d("x * x", "x"), QString("d = 2 * x"));
    QCOMPARE(d("pow(x, 3)", "x"), QString("d = 3 * pow(x, 2)"));
    QCOMPARE(d("x * w + b", "w"), QString("d = x"));
    QCOMPARE(d("sin(w) + 3", "x"), QString("d = 0"));
    // integer divisions stay floating-point divisions in the derivative
    QCOMPARE(d("x / N", "x"), QString("d = 1.0 / N"));
  }

  void multiStatementPrograms() {
    auto draw = [](std::mt19937& rng) {
      std::uniform_real_distribution<double> u(0.3, 1.7);
      return Env{{"x", u(rng)}, {"w", u(rng)}, {"b", u(rng)}};
    };
    checkProgram("let t = exp(x)\ny = t / (1 + t)", {"x"}, {"y"}, draw);
    checkProgram("let a = x * w\nlet b2 = sin(a) + a\ny = b2 * b2\nz = a - x + b", {"x", "w", "b"}, {"y", "z"}, draw);
    checkProgram("let a = x * w\nlet b2 = sin(a) + a\ny = b2 * b2\nz = a - x + b", {"x", "w", "b"}, {"z"}, draw);
    checkProgram("let u = tanh(x)\nlet v = u * u + w\ny = log(v) * u\nz = sqrt(v)", {"x", "w"}, {"y", "z"}, draw);
    // an output read back after it is written, and one overwritten twice
    checkProgram("y = x * 2 + w\nz = y * y", {"x", "w"}, {"y", "z"}, draw);
    checkProgram("y = x * x\ny = y * w + x\ny = sin(y) + b", {"x", "w", "b"}, {"y"}, draw);
    checkProgram("y = x * x\ny = w * b", {"x", "w", "b"}, {"y"}, draw);
    // a local reassigned, an input shadowed by a local of the same name
    checkProgram("let t = x\nt = t * x + w\ny = t * t", {"x", "w"}, {"y"}, draw);
    checkProgram("let x = x * x\ny = x + w", {"x", "w"}, {"y"}, draw);
    checkProgram("y = y + x * w", {"x", "w", "y"}, {"y"}, [](std::mt19937& rng) {
      std::uniform_real_distribution<double> u(0.3, 1.7);
      return Env{{"x", u(rng)}, {"w", u(rng)}, {"y", u(rng)}};
    });
    // long chain of locals stays compact
    checkProgram("let a = x * w\nlet c = exp(a)\nlet d = c * a + x\nlet e = d / (1 + c)\ny = e * e + relu(d)", {"x", "w"}, {"y"}, draw);
  }

  void overwrittenOutputText() {
    // the first assignment is dead: x gets no gradient
    QCOMPARE(qs(text(backward(parsed("y = x * x\ny = w * b"), {"x", "w"}, {"y"}))), QString("gx = 0\ngw = gy * b"));
    QCOMPARE(qs(text(backward(parsed("y = x * x\ny = y * w"), {"x", "w"}, {"y"}))),
             QString("let y = x * x\nlet d_y = gy * w\ngx = d_y * (2 * x)\ngw = gy * y"));
  }

  void zeroGradients() {
    // unused input, input that influences only outputs without gradient, integer casts
    QCOMPARE(qs(text(backward(parsed("y = x * 2\nz = w"), {"x", "w", "q"}, {"y"}))), QString("gx = 2 * gy\ngw = 0\ngq = 0"));
    QCOMPARE(qs(text(backward(parsed("y = int64(x) * w"), {"x", "w"}, {"y"}))), QString("gx = 0\ngw = gy * int64(x)"));
    QCOMPARE(qs(text(backward(parsed("y = bool(x) + floor(w) + round(x) + sign(w) + (x < w)"), {"x", "w"}, {"y"}))),
             QString("gx = 0\ngw = 0"));
    QCOMPARE(qs(text(backward(parsed("y = float32(x) * 3"), {"x"}, {"y"}))), QString("gx = 3 * gy"));
    // no output gradient at all
    QCOMPARE(qs(text(backward(parsed("y = x"), {"x"}, {}))), QString("gx = 0"));
  }

  void refusals() {
    auto r = backward(parsed("y = a[i] * x"), {"x"}, {"y"});
    QVERIFY(!r.ok());
    QCOMPARE(qs(r.error().location), QString("main/state0/T"));
    QVERIFY2(r.error().message.find("'a'") != std::string::npos, r.error().message.c_str());
    QVERIFY(!r.error().hint.empty());
    auto d = derivative(parsedExpr("x * v[2]"), "x", "main/s/T2");
    QVERIFY(!d.ok());
    QCOMPARE(qs(d.error().location), QString("main/s/T2"));
    QVERIFY2(d.error().message.find("'v[...]'") != std::string::npos, d.error().message.c_str());

    // a gradient for something the tasklet does not write
    auto n = backward(parsed("let t = x\ny = t"), {"x"}, {"t"});
    QVERIFY(!n.ok());
    QVERIFY(n.error().message.find("'t'") != std::string::npos);
    // gradient connectors that clash
    BackwardSpec spec;
    spec.inputGradient["x"] = "g";
    spec.inputGradient["w"] = "g";
    spec.outputGradient["y"] = "gy";
    QVERIFY(!backwardProgram(parsed("y = x * w"), spec, "p").ok());
    spec.inputGradient["w"] = "x";
    QVERIFY(!backwardProgram(parsed("y = x * w"), spec, "p").ok());
    spec.inputGradient["w"] = "gw";
    spec.outputGradient["y"] = "bad name";
    QVERIFY(!backwardProgram(parsed("y = x * w"), spec, "p").ok());
  }

  void longProgramsStayTractable() {
    // 300 chained locals: the backward program grows linearly (one recompute and one adjoint per local)
    std::string code = "let t0 = x";
    for (int i = 1; i < 300; ++i)
      code += "\nlet t" + std::to_string(i) + " = sin(t" + std::to_string(i - 1) + ") * w + t" + std::to_string(i - 1);
    code += "\ny = t299";
    auto b = backward(parsed(code), {"x", "w"}, {"y"});
    QVERIFY(b.ok());
    QVERIFY(b->statements.size() < 2 * 300 + 3);
    QVERIFY(b->str().size() < 100000);
  }

  void localNamesNeverClash() {
    // locals named like gradient connectors or adjoint temporaries are renamed in the backward code
    checkProgram("let gx = exp(x)\nlet d_gx = gx * w\ny = d_gx / (1 + gx)", {"x", "w"}, {"y"},
                 [](std::mt19937& rng) {
                   std::uniform_real_distribution<double> u(0.3, 1.7);
                   return Env{{"x", u(rng)}, {"w", u(rng)}};
                 });
  }
};

QTEST_GUILESS_MAIN(TaskletDerivativeTest)
#include "tst_TaskletDerivative.moc"
