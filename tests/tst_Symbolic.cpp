// tst_Symbolic: symbolic integer expressions (core/symbolic). Canonical forms and the simplification
// rules, printing and parsing (round trip and located errors), substitution, exact evaluation
// (floor division and modulo on negatives, overflow, division by zero, unbound symbols), bounds and
// proofs, and randomized properties: simplification never changes a value (checked against a
// reference evaluator of the unsimplified tree), printing always reads back, bounds and proofs are
// sound.
#include "core/symbolic/Expr.h"

#include <QtTest>

#include <random>

using namespace dcw::sym;

namespace {

Expr sym(const char* name) { return Expr::symbol(name); }

// Parses text that must be valid; a failure is reported on the calling test.
Expr parsed(const QString& text) {
  auto e = Expr::parse(text.toStdString());
  if (!e) {
    QTest::qFail(qPrintable("parse of '" + text + "' failed: " + QString::fromStdString(e.error().str())),
                 __FILE__, __LINE__);
    return Expr();
  }
  return *e;
}

QString qs(const std::string& s) { return QString::fromStdString(s); }

// "a=-7,b=2" -> {a: -7, b: 2}
std::map<std::string, int64_t> assignment(const QString& text) {
  std::map<std::string, int64_t> values;
  for (const QString& part : text.split(',', Qt::SkipEmptyParts)) {
    const QStringList kv = part.split('=');
    values[kv[0].trimmed().toStdString()] = kv[1].trimmed().toLongLong();
  }
  return values;
}

// ---- a reference model for the randomized tests: an unsimplified tree and its direct evaluation ----

__extension__ typedef __int128 i128; // wide enough that the reference never overflows

struct RefNode {
  Op op = Op::Const;
  int64_t value = 0;
  std::string name;
  std::vector<RefNode> kids;
};

std::optional<int64_t> refEval(const RefNode& n, const std::map<std::string, int64_t>& env) {
  if (n.op == Op::Const) return n.value;
  if (n.op == Op::Symbol) return env.at(n.name);
  std::vector<int64_t> v;
  for (const RefNode& k : n.kids) {
    auto r = refEval(k, env);
    if (!r) return std::nullopt;
    v.push_back(*r);
  }
  i128 r = 0;
  switch (n.op) {
  case Op::Add: r = 0; for (int64_t x : v) r += x; break;
  case Op::Mul: r = 1; for (int64_t x : v) { r *= x; if (r > INT64_MAX || r < INT64_MIN) return std::nullopt; } break;
  case Op::FloorDiv: {
    if (v[1] == 0) return std::nullopt;
    // Floor of the exact quotient, computed in the obvious (slow) way.
    i128 a = v[0], b = v[1];
    i128 q = a / b;
    if (q * b != a && ((a < 0) != (b < 0))) q -= 1;
    r = q;
    break;
  }
  case Op::Mod: {
    if (v[1] == 0) return std::nullopt;
    i128 a = v[0], b = v[1];
    i128 q = a / b;
    if (q * b != a && ((a < 0) != (b < 0))) q -= 1;
    r = a - q * b;
    break;
  }
  case Op::Min: r = *std::min_element(v.begin(), v.end()); break;
  case Op::Max: r = *std::max_element(v.begin(), v.end()); break;
  case Op::Eq: r = v[0] == v[1]; break;
  case Op::Ne: r = v[0] != v[1]; break;
  case Op::Lt: r = v[0] < v[1]; break;
  case Op::Le: r = v[0] <= v[1]; break;
  case Op::Gt: r = v[0] > v[1]; break;
  case Op::Ge: r = v[0] >= v[1]; break;
  case Op::And: r = std::all_of(v.begin(), v.end(), [](int64_t x) { return x != 0; }); break;
  case Op::Or: r = std::any_of(v.begin(), v.end(), [](int64_t x) { return x != 0; }); break;
  case Op::Not: r = v[0] == 0; break;
  default: return std::nullopt;
  }
  if (r > INT64_MAX || r < INT64_MIN) return std::nullopt;
  return static_cast<int64_t>(r);
}

// The same tree built through the public (simplifying) constructors, one operation at a time.
Expr refBuild(const RefNode& n) {
  std::vector<Expr> k;
  for (const RefNode& c : n.kids) k.push_back(refBuild(c));
  switch (n.op) {
  case Op::Const: return Expr(n.value);
  case Op::Symbol: return Expr::symbol(n.name);
  case Op::Add: { Expr r = k[0]; for (size_t i = 1; i < k.size(); ++i) r = r + k[i]; return r; }
  case Op::Mul: { Expr r = k[0]; for (size_t i = 1; i < k.size(); ++i) r = r * k[i]; return r; }
  case Op::FloorDiv: return floorDiv(k[0], k[1]);
  case Op::Mod: return mod(k[0], k[1]);
  case Op::Min: return min(k[0], k[1]);
  case Op::Max: return max(k[0], k[1]);
  case Op::Eq: return eq(k[0], k[1]);
  case Op::Ne: return ne(k[0], k[1]);
  case Op::Lt: return lt(k[0], k[1]);
  case Op::Le: return le(k[0], k[1]);
  case Op::Gt: return gt(k[0], k[1]);
  case Op::Ge: return ge(k[0], k[1]);
  case Op::And: return logicalAnd(k[0], k[1]);
  case Op::Or: return logicalOr(k[0], k[1]);
  case Op::Not: return logicalNot(k[0]);
  }
  return Expr();
}

// Fully parenthesised text of the tree, for the parser.
std::string refText(const RefNode& n) {
  auto bin = [&](const char* op) { return "(" + refText(n.kids[0]) + op + refText(n.kids[1]) + ")"; };
  switch (n.op) {
  case Op::Const: return n.value < 0 ? "(" + std::to_string(n.value) + ")" : std::to_string(n.value);
  case Op::Symbol: return n.name;
  case Op::Add: return bin(" + ");
  case Op::Mul: return bin("*");
  case Op::FloorDiv: return bin(" // ");
  case Op::Mod: return bin(" % ");
  case Op::Min: return "min(" + refText(n.kids[0]) + ", " + refText(n.kids[1]) + ")";
  case Op::Max: return "max(" + refText(n.kids[0]) + ", " + refText(n.kids[1]) + ")";
  case Op::Eq: return bin(" == ");
  case Op::Ne: return bin(" != ");
  case Op::Lt: return bin(" < ");
  case Op::Le: return bin(" <= ");
  case Op::Gt: return bin(" > ");
  case Op::Ge: return bin(" >= ");
  case Op::And: return bin(" and ");
  case Op::Or: return bin(" or ");
  case Op::Not: return "(not " + refText(n.kids[0]) + ")";
  }
  return "?";
}

class RandomTrees {
public:
  explicit RandomTrees(uint32_t seed) : rng_(seed) {}

  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }

  RefNode leaf() {
    RefNode n;
    if (uniform(0, 2) == 0) {
      n.value = uniform(-13, 13);
    } else {
      n.op = Op::Symbol;
      n.name = std::string(1, static_cast<char>('a' + uniform(0, 2)));
    }
    return n;
  }

  RefNode constant(int lo, int hi) {
    RefNode n;
    n.value = uniform(lo, hi);
    return n;
  }

  RefNode tree(int depth) {
    if (depth == 0 || uniform(0, 5) == 0) return leaf();
    RefNode n;
    const int pick = uniform(0, 19);
    auto two = [&](Op op) {
      n.op = op;
      n.kids = {tree(depth - 1), tree(depth - 1)};
    };
    if (pick < 5) two(Op::Add);
    else if (pick < 8) two(Op::Mul);
    else if (pick < 11) { // divisors: mostly small constants of either sign, sometimes an expression
      n.op = pick < 10 ? Op::FloorDiv : Op::Mod;
      if (pick == 9) n.op = Op::Mod;
      n.kids = {tree(depth - 1), uniform(0, 3) == 0 ? tree(depth - 1) : constant(-9, 9)};
    } else if (pick < 13) two(pick == 11 ? Op::Min : Op::Max);
    else if (pick == 13) { // negation, as the parser and operator- build it
      n.op = Op::Mul;
      n.kids = {constant(-1, -1), tree(depth - 1)};
    } else if (pick < 17) {
      static const Op cmp[] = {Op::Eq, Op::Ne, Op::Lt, Op::Le, Op::Gt, Op::Ge};
      two(cmp[uniform(0, 5)]);
    } else if (pick < 19) two(pick == 17 ? Op::And : Op::Or);
    else {
      n.op = Op::Not;
      n.kids = {tree(depth - 1)};
    }
    return n;
  }

  std::map<std::string, int64_t> values(int lo, int hi) {
    return {{"a", uniform(lo, hi)}, {"b", uniform(lo, hi)}, {"c", uniform(lo, hi)}};
  }

private:
  std::mt19937 rng_;
};

} // namespace

class TestSymbolic : public QObject {
  Q_OBJECT

private slots:
  void construction();
  void orderAndHash();
  void canonicalForms_data();
  void canonicalForms();
  void overflowIsNotFolded();
  void printing_data();
  void printing();
  void roundTrip_data();
  void roundTrip();
  void parseAccepts_data();
  void parseAccepts();
  void parseErrors_data();
  void parseErrors();
  void identifiers();
  void substitute();
  void flattenedIndexRecombines();
  void evaluate_data();
  void evaluate();
  void bounds_data();
  void bounds();
  void proofs();
  void randomizedSimplificationKeepsValues();
  void randomizedBoundsAndProofsAreSound();
};

void TestSymbolic::construction() {
  const Expr N = sym("N"), M = sym("M");
  QVERIFY(Expr().isConstant());
  QCOMPARE(Expr().constantValue(), std::optional<int64_t>(0));
  QCOMPARE(Expr(7).constantValue(), std::optional<int64_t>(7));
  QVERIFY(N.isSymbol());
  QCOMPARE(N.symbolName(), std::string("N"));
  QVERIFY(N.operands().empty());
  QVERIFY(!N.constantValue());

  QCOMPARE((2 * N + N).str(), std::string("3*N"));
  QCOMPARE((N - N), Expr(0));
  QCOMPARE(((N + 1) * 2).str(), std::string("2*N + 2"));
  QCOMPARE((N * 0), Expr(0));
  QCOMPARE((N * 1), N);
  QCOMPARE((N + 0), N);
  QCOMPARE(Expr(5) + 3, Expr(8));
  QCOMPARE((N + M).op(), Op::Add);
  QCOMPARE((N + M).operands().size(), size_t(2));
  QCOMPARE((N * M).op(), Op::Mul);
  QCOMPARE(-(-N), N);
  QCOMPARE((N - 2 * M).str(), std::string("N - 2*M"));
  QCOMPARE(N + 1 - 1, N);

  Expr acc = N;
  acc += 1;
  acc *= 3;
  acc -= N;
  QCOMPARE(acc.str(), std::string("2*N + 3"));

  QCOMPARE(ceilDiv(N, 4).str(), std::string("(N + 3) // 4"));
  QCOMPARE(ceilDiv(Expr(7), Expr(2)), Expr(4));
  QCOMPARE(ceilDiv(Expr(-7), Expr(2)), Expr(-3));
  QCOMPARE(ceilDiv(N, M).str(), std::string("-(-N // M)"));
  QCOMPARE(floorDiv(N, 4).str(), std::string("N // 4"));
  QCOMPARE(mod(N, 4).str(), std::string("N % 4"));
  QCOMPARE(min(N, 16).str(), std::string("min(N, 16)"));
  QCOMPARE(max(16, N).str(), std::string("max(N, 16)"));
  QCOMPARE(min(N, N + 1), N);
  QCOMPARE(max(N - 3, N), N);

  QCOMPARE(lt(N, N + 1), Expr(1));
  QCOMPARE(ge(N, N + 1), Expr(0));
  QCOMPARE(eq(N, M), eq(M, N));
  QCOMPARE(logicalNot(logicalNot(lt(N, M))), lt(N, M));
  QCOMPARE(logicalAnd(Expr(1), lt(N, M)), lt(N, M));
  QCOMPARE(logicalOr(Expr(0), lt(N, M)), lt(N, M));
  QCOMPARE(logicalAnd(Expr(0), lt(N, M)), Expr(0));
  QCOMPARE(logicalOr(Expr(3), lt(N, M)), Expr(1));

  QCOMPARE((N * M + floorDiv(sym("K"), N)).freeSymbols(), (std::set<std::string>{"K", "M", "N"}));
  QVERIFY(Expr(3).freeSymbols().empty());
}

void TestSymbolic::orderAndHash() {
  const Expr N = sym("N");
  const Expr a = N + 1, b = parsed("1 + N");
  QCOMPARE(a, b);
  QCOMPARE(a.hash(), b.hash());
  QCOMPARE(std::hash<Expr>{}(a), a.hash());
  QVERIFY(!(a < b) && !(b < a));
  QVERIFY(a != N);

  // A strict total order over a mixed set: irreflexive, asymmetric, transitive, total.
  std::vector<Expr> all;
  for (const char* t : {"0", "1", "-1", "N", "M", "N + 1", "2*N", "M*N", "N // 2", "N % 2", "min(N, M)",
                        "max(N, 3)", "N < M", "N == M", "N < M and M < 3", "N < M or M < 3", "not N", "N*N"})
    all.push_back(parsed(t));
  for (const Expr& x : all) {
    QVERIFY(!(x < x));
    for (const Expr& y : all) {
      if (x == y) continue;
      QVERIFY2((x < y) != (y < x), (x.str() + " vs " + y.str()).c_str());
      for (const Expr& z : all)
        if (x < y && y < z) QVERIFY(x < z);
    }
  }
  std::set<Expr> set(all.begin(), all.end());
  QCOMPARE(set.size(), all.size());
}

void TestSymbolic::canonicalForms_data() {
  QTest::addColumn<QString>("input");
  QTest::addColumn<QString>("canonical");
  // Sums and products
  QTest::newRow("collect") << "2*N + N" << "3*N";
  QTest::newRow("cancel") << "N - N" << "0";
  QTest::newRow("distribute constant") << "(N + 1)*2" << "2*N + 2";
  QTest::newRow("add zero") << "N + 0" << "N";
  QTest::newRow("times one") << "N*1" << "N";
  QTest::newRow("times zero") << "N*0*M" << "0";
  QTest::newRow("fold") << "1 + 2*3 - 4" << "3";
  QTest::newRow("sorted terms") << "N + M + N" << "M + 2*N";
  QTest::newRow("commuted product") << "M*N + N*M" << "2*M*N";
  QTest::newRow("negated sum") << "-(N + 1)" << "-N - 1";
  QTest::newRow("subtraction") << "N - 2*M" << "N - 2*M";
  QTest::newRow("content to coefficient") << "N*(2*M + 2)" << "2*N*(M + 1)";
  QTest::newRow("negative content") << "N*(-M - 1)" << "-N*(M + 1)";
  QTest::newRow("product of sums kept") << "(N + 1)*(M + 1)" << "(M + 1)*(N + 1)";
  QTest::newRow("nested constants") << "2*(3*(N + 1))" << "6*N + 6";
  QTest::newRow("higher degree first") << "1 + N + N*M" << "M*N + N + 1";
  // Floor division
  QTest::newRow("div const") << "-7 // 2" << "-4";
  QTest::newRow("div by one") << "N // 1" << "N";
  QTest::newRow("div by minus one") << "N // -1" << "-N";
  QTest::newRow("div exact") << "(3*N) // 3" << "N";
  QTest::newRow("div peel constant") << "(2*N + 1) // 2" << "N";
  QTest::newRow("div peel term") << "(4*i + j) // 4" << "i + j // 4";
  QTest::newRow("div keep") << "(i + 3) // 4" << "(i + 3) // 4";
  QTest::newRow("div reduce constant") << "(N + 5) // 4" << "(N + 1) // 4 + 1";
  QTest::newRow("div negative constant") << "(N - 1) // 4" << "(N + 3) // 4 - 1";
  QTest::newRow("div common factor") << "(2*N) // 4" << "N // 2";
  QTest::newRow("div nested") << "(N // 2) // 3" << "N // 6";
  QTest::newRow("div nested offset") << "(N // 2 + 1) // 3" << "(N + 2) // 6";
  QTest::newRow("div negative divisor") << "N // -2" << "-N // 2";
  QTest::newRow("div of bounded") << "(N % 4) // 4" << "0";
  QTest::newRow("div by zero kept") << "N // 0" << "N // 0";
  QTest::newRow("div by symbol") << "(N + 1) // M" << "(N + 1) // M";
  // Modulo
  QTest::newRow("mod const") << "-7 % 2" << "1";
  QTest::newRow("mod const neg divisor") << "7 % -2" << "-1";
  QTest::newRow("mod by one") << "N % 1" << "0";
  QTest::newRow("mod multiple") << "(4*N) % 4" << "0";
  QTest::newRow("mod drop term") << "(4*i + j) % 4" << "j % 4";
  QTest::newRow("mod reduce constant") << "(N + 5) % 4" << "(N + 1) % 4";
  QTest::newRow("mod common factor") << "(2*N) % 4" << "2*(N % 2)";
  QTest::newRow("mod nested divides") << "(N % 8) % 4" << "N % 4";
  QTest::newRow("mod nested smaller") << "(N % 4) % 8" << "N % 4";
  QTest::newRow("mod by zero kept") << "N % 0" << "N % 0";
  // Min / max
  QTest::newRow("min dup") << "min(N, N)" << "N";
  QTest::newRow("min offset") << "min(N, N + 1)" << "N";
  QTest::newRow("max offset") << "max(N, N + 1)" << "N + 1";
  QTest::newRow("min fold") << "min(3, 5, N)" << "min(N, 3)";
  QTest::newRow("min flatten") << "min(min(N, M), 4)" << "min(M, N, 4)";
  QTest::newRow("min single") << "min(N)" << "N";
  QTest::newRow("max by bounds") << "max(N % 4, 5)" << "5";
  QTest::newRow("min by bounds") << "min(N % 4, 3)" << "N % 4";
  QTest::newRow("max consts") << "max(-2, 7, 3)" << "7";
  QTest::newRow("min operand equal to constant") << "min(b, 0, a % (c < 13))" << "min(b, 0)";
  // Comparisons and logic
  QTest::newRow("cmp const") << "3 < 4" << "1";
  QTest::newRow("cmp difference") << "N < N + 1" << "1";
  QTest::newRow("cmp difference false") << "N + 1 <= N" << "0";
  QTest::newRow("eq self") << "N == N" << "1";
  QTest::newRow("ne offset") << "N != N + 2" << "1";
  QTest::newRow("eq sorted") << "N == M" << "M == N";
  QTest::newRow("cmp by bounds") << "N % 4 < 4" << "1";
  QTest::newRow("not cmp") << "not (i < N)" << "i >= N";
  QTest::newRow("double not") << "not not (i < N)" << "i < N";
  QTest::newRow("double not int") << "not not N" << "N != 0";
  QTest::newRow("and true") << "true and N < M" << "N < M";
  QTest::newRow("and false") << "false and N < M" << "0";
  QTest::newRow("or true") << "true or N < M" << "1";
  QTest::newRow("or false") << "false || N < M" << "N < M";
  QTest::newRow("contradiction") << "N < M and not (N < M)" << "0";
  QTest::newRow("excluded middle") << "N < M or N >= M" << "1";
  QTest::newRow("and dup") << "N < M && N < M" << "N < M";
  QTest::newRow("and int") << "N and 1" << "N != 0";
  QTest::newRow("not const") << "!0" << "1";
}

void TestSymbolic::canonicalForms() {
  QFETCH(QString, input);
  QFETCH(QString, canonical);
  const Expr e = parsed(input);
  QCOMPARE(qs(e.str()), canonical);
  QCOMPARE(parsed(canonical), e);
}

void TestSymbolic::overflowIsNotFolded() {
  const Expr big(INT64_MAX);
  const Expr sum = big + 1;
  QVERIFY(!sum.isConstant());
  auto v = sum.evaluate({});
  QVERIFY(!v);
  QVERIFY(QString::fromStdString(v.error().message).contains("overflow"));

  const Expr prod = big * 2;
  QVERIFY(!prod.isConstant());
  QVERIFY(!prod.evaluate({}));

  const Expr div = floorDiv(Expr(INT64_MIN), Expr(-1));
  QVERIFY(!div.isConstant());
  QVERIFY(!div.evaluate({}));
  QCOMPARE(mod(Expr(INT64_MIN), Expr(-1)), Expr(0));

  // Still printable and re-parseable, including the most negative literal.
  QCOMPARE(parsed(qs(sum.str())), sum);
  QCOMPARE(parsed(qs(Expr(INT64_MIN).str())), Expr(INT64_MIN));
  const Expr N = sym("N");
  QCOMPARE(parsed(qs((N + Expr(INT64_MIN)).str())), N + Expr(INT64_MIN));
  QCOMPARE(parsed(qs((Expr(INT64_MIN) * N).str())), Expr(INT64_MIN) * N);
  QCOMPARE((Expr(INT64_MIN) * N - N).evaluate({{"N", 0}}).value(), int64_t(0));
}

void TestSymbolic::printing_data() {
  QTest::addColumn<QString>("input");
  QTest::addColumn<QString>("printed");
  QTest::newRow("linear") << "1 + 2*N" << "2*N + 1";
  QTest::newRow("minus one") << "N - 1" << "N - 1";
  QTest::newRow("negative lead") << "-2*M + N" << "N - 2*M";
  QTest::newRow("all negative") << "-N - M - 1" << "-M - N - 1";
  QTest::newRow("floordiv parens") << "(i+3)//4" << "(i + 3) // 4";
  QTest::newRow("mod parens") << "((i+3))%(4)" << "(i + 3) % 4";
  QTest::newRow("min") << "min(16,N)" << "min(N, 16)";
  QTest::newRow("condition") << "(i<N)and(j>=0)" << "i < N and j >= 0";
  QTest::newRow("or in and") << "(a or b) and c" << "c and (a or b)";
  QTest::newRow("and in or") << "a and b or c" << "c or a and b";
  QTest::newRow("cmp in sum") << "(N < M) + 1" << "(N < M) + 1";
  QTest::newRow("negated div") << "-(N // 2)" << "-(N // 2)";
  QTest::newRow("subtracted div") << "M - N // 2" << "M - N // 2";
  QTest::newRow("div in product") << "M*(N // 2)" << "M*(N // 2)";
  QTest::newRow("sum in product") << "M*(N + 1)" << "M*(N + 1)";
  QTest::newRow("product over div") << "(M*N) // 2" << "M*N // 2";
  QTest::newRow("div of div symbol") << "N // (M // 2)" << "N // (M // 2)";
  QTest::newRow("not") << "not N" << "not N";
  QTest::newRow("not and") << "not (a and b)" << "not (a and b)";
  QTest::newRow("cmp of cmp") << "(a < b) == c" << "c == (a < b)";
  QTest::newRow("negative const") << "N*(-3)" << "-3*N";
  QTest::newRow("mod negative") << "N % -3" << "N % -3";
  QTest::newRow("subtract cmp") << "N - (a < b)" << "N - (a < b)";
}

void TestSymbolic::printing() {
  QFETCH(QString, input);
  QFETCH(QString, printed);
  QCOMPARE(qs(parsed(input).str()), printed);
}

void TestSymbolic::roundTrip_data() {
  QTest::addColumn<QString>("text");
  const char* texts[] = {
      "0", "-5", "N", "N + 1", "N - 1", "2*N + 1", "N - 2*M", "-N", "-N - 1", "M*N", "2*M*N - 3",
      "M*N + N + 1", "(M + 1)*(N + 1)", "2*N*(M + 1)", "-N*(M + 1)", "N // 4", "(N + 3) // 4",
      "(N + 1) // 4 + 1", "N % 4", "2*(N % 2)", "(i + 2*j) % 8", "-(N // 2)", "N // M", "(N + 1) % M",
      "N // (M // 2)", "M*(N // 2)", "min(N, 16)", "max(M, N, 0)", "min(N, max(M, 2))", "min(N // 2, M) + 1",
      "i < N", "i <= N - 1", "i > 0", "j >= 0", "M == N", "M != N + 1", "i < N and j >= 0",
      "i < N or j < M and k > 0", "not (a and b)", "not N", "(N < M) + 1", "2*(i < N)", "(a < b) == c",
      "N != 0", "a and b", "N*N*N - 1", "_x1 + y_2", "N % -3", "-N // 2",
      // A product over a sum left whole because it would overflow, whose coefficient a mod or a floor
      // division then divides down until it fits (the fuzzer's find): distributed, constant reduced.
      "(i % 64775808 + 3685477583) // 4 * (-92233720368) % 4775808",
      "(i % 64775808 + 3685477583) // 4 * (-92233720368) // 4775808",
  };
  for (const char* t : texts) QTest::newRow(t) << QString(t);
}

void TestSymbolic::roundTrip() {
  QFETCH(QString, text);
  const Expr e = parsed(text);
  const Expr again = parsed(qs(e.str()));
  QCOMPARE(again, e);
  QCOMPARE(again.str(), e.str());
  QCOMPARE(again.hash(), e.hash());
}

void TestSymbolic::parseAccepts_data() {
  QTest::addColumn<QString>("input");
  QTest::addColumn<QString>("printed");
  QTest::newRow("whitespace") << "  \t2 *N\n+  1 " << "2*N + 1";
  QTest::newRow("true") << "true" << "1";
  QTest::newRow("false") << "false" << "0";
  QTest::newRow("unary chain") << "- - N" << "N";
  QTest::newRow("unary plus") << "+N" << "N";
  QTest::newRow("int64 max") << "9223372036854775807" << "9223372036854775807";
  QTest::newRow("int64 min") << "-9223372036854775808" << "-9223372036854775808";
  QTest::newRow("symbolic ops") << "a && b || !c" << "a and b or not c";
  QTest::newRow("precedence") << "1 + 2*3 % 4" << "3";
  QTest::newRow("left assoc div") << "100 // 5 // 2" << "10";
  QTest::newRow("left assoc sub") << "10 - 3 - 2" << "5";
  QTest::newRow("unary binds tight") << "-7 // 2" << "-4";
  QTest::newRow("not binds loose") << "not a < b" << "a >= b";
  QTest::newRow("max args") << "max(1, 2, 3, N)" << "max(N, 3)";
  QTest::newRow("identifier with keyword prefix") << "android + minimum" << "android + minimum";
}

void TestSymbolic::parseAccepts() {
  QFETCH(QString, input);
  QFETCH(QString, printed);
  QCOMPARE(qs(parsed(input).str()), printed);
}

void TestSymbolic::parseErrors_data() {
  QTest::addColumn<QString>("input");
  QTest::addColumn<QString>("message");
  QTest::addColumn<QString>("hint");
  QTest::newRow("empty") << "" << "column 1: the expression is empty" << "";
  QTest::newRow("blank") << "   " << "column 4: the expression is empty" << "";
  QTest::newRow("missing operand") << "N + * 2" << "column 5: expected an operand, found '*'" << "";
  QTest::newRow("dangling") << "N +" << "column 4: expected an operand, found the end of the input" << "";
  QTest::newRow("slash") << "N / 2" << "column 3: '/' is not an operator" << "//";
  QTest::newRow("single equals") << "N = 1" << "column 3: '=' is not an operator" << "==";
  QTest::newRow("single amp") << "a & b" << "column 3: '&' is not an operator" << "and";
  QTest::newRow("unclosed") << "(N + 1" << "column 7: expected ')', found the end of the input" << "";
  QTest::newRow("extra close") << "N + 1)" << "column 6: unexpected ')' after a complete expression" << "";
  QTest::newRow("trailing") << "N 1" << "column 3: unexpected '1' after a complete expression" << "";
  QTest::newRow("unknown function") << "foo(1)" << "column 1: unknown function 'foo'" << "min";
  QTest::newRow("overflow") << "99999999999999999999" << "column 1: integer literal 99999999999999999999 does not fit in 64 bits" << "";
  QTest::newRow("overflow max+1") << "1 + 9223372036854775808" << "column 5: integer literal 9223372036854775808 does not fit" << "";
  QTest::newRow("empty min") << "min()" << "column 5: expected an operand, found ')'" << "";
  QTest::newRow("min without call") << "min + 1" << "column 5: expected '(' after 'min', found '+'" << "";
  QTest::newRow("unclosed max") << "max(1, 2" << "column 9: expected ',' or ')' in max(...), found the end of the input" << "";
  QTest::newRow("chained") << "a < b < c" << "column 7: comparisons cannot be chained" << "and";
  QTest::newRow("keyword operand") << "and" << "column 1: expected an operand, found 'and'" << "";
  QTest::newRow("bad char") << "N $ 1" << "column 3: unexpected character '$'" << "";
  QTest::newRow("minus not") << "-not a" << "column 2: expected an operand, found 'not'" << "";
  QTest::newRow("empty parens") << "()" << "column 2: expected an operand, found ')'" << "";
  QTest::newRow("deep") << QString(1000, '(') + "1" + QString(1000, ')') << "nested too deeply" << "";
}

void TestSymbolic::parseErrors() {
  QFETCH(QString, input);
  QFETCH(QString, message);
  QFETCH(QString, hint);
  auto e = Expr::parse(input.toStdString());
  QVERIFY(!e);
  const QString got = qs(e.error().message);
  QVERIFY2(got.startsWith(message) || (message.startsWith("nested") && got.contains(message)),
           qPrintable("message: " + got));
  QVERIFY2(qs(e.error().location).startsWith("expression '"), e.error().location.c_str());
  if (!hint.isEmpty()) QVERIFY2(qs(e.error().hint).contains(hint), e.error().hint.c_str());
}

void TestSymbolic::identifiers() {
  QVERIFY(isIdentifier("N"));
  QVERIFY(isIdentifier("_tmp0"));
  QVERIFY(isIdentifier("minimum"));
  QVERIFY(!isIdentifier(""));
  QVERIFY(!isIdentifier("0N"));
  QVERIFY(!isIdentifier("a-b"));
  for (const char* k : {"and", "or", "not", "true", "false", "min", "max"}) QVERIFY(!isIdentifier(k));
}

void TestSymbolic::substitute() {
  const Expr N = sym("N"), M = sym("M"), i = sym("i"), j = sym("j");
  QCOMPARE((N * M).substitute({{"N", Expr(2)}}).str(), std::string("2*M"));
  QCOMPARE((N * M + 1).substitute({{"N", Expr(2)}, {"M", Expr(3)}}), Expr(7));
  QCOMPARE(floorDiv(i + 1, 4).substitute({{"i", 4 * j + 3}}), j + 1);
  QCOMPARE(mod(i, 4).substitute({{"i", 4 * j + 6}}).str(), std::string("2"));
  QCOMPARE((N - M).substitute({{"M", N}}), Expr(0));
  QCOMPARE(lt(i, N).substitute({{"i", N - 1}}), Expr(1));
  QCOMPARE(min(N, M).substitute({{"M", N + 5}}), N);
  // Simultaneous, not sequential: N -> M and M -> N swap.
  QCOMPARE((N - 2 * M).substitute({{"N", M}, {"M", N}}).str(), std::string("M - 2*N"));
  const Expr e = N * M + floorDiv(N, 2);
  QCOMPARE(e.substitute({{"K", Expr(1)}}), e);
  QCOMPARE(e.substitute({}).node(), e.node()); // unchanged expressions are shared, not rebuilt
}

// A flattened map parameter p read as (p // W, p % W) of a row-major array: its offset W*(p // W) + p % W
// is p again, with a constant or a symbolic W, scaled, inside larger sums and for any p (negative too).
void TestSymbolic::flattenedIndexRecombines() {
  const Expr p = sym("p"), c = sym("c"), W = sym("W"), H = sym("H");
  QCOMPARE(7 * floorDiv(p, 7) + mod(p, 7), p);
  QCOMPARE(49 * c + 7 * floorDiv(p, 7) + mod(p, 7), 49 * c + p);
  QCOMPARE(3 * (7 * floorDiv(p, 7) + mod(p, 7)), 3 * p);
  QCOMPARE(W * floorDiv(p, W) + mod(p, W), p);
  QCOMPARE(H * W * c + W * floorDiv(p + 1, W) + mod(p + 1, W) + 2, H * W * c + p + 3);
  QCOMPARE(2 * W * floorDiv(p, W) + 2 * mod(p, W), 2 * p);
  // Not a pair: a different divisor, coefficient or numerator stays as it is.
  QVERIFY(6 * floorDiv(p, 7) + mod(p, 7) != p);
  QVERIFY(7 * floorDiv(p, 7) + mod(c, 7) != p);
  QVERIFY(H * floorDiv(p, W) + mod(p, W) != p);
  // Three parameters flattened into one of a [., 3, 4] array: (p // 12, (p // 4) % 3, p % 4).
  QCOMPARE(12 * floorDiv(p, 12) + 4 * mod(floorDiv(p, 4), 3) + mod(p, 4), p);
  // The identity holds for every p: check the evaluated parts, negative p included.
  for (int64_t v : {-15, -7, -1, 0, 3, 6, 7, 48, 50})
    QCOMPARE(*(7 * floorDiv(p, 7)).evaluate({{"p", v}}) + *mod(p, 7).evaluate({{"p", v}}), v);
}

void TestSymbolic::evaluate_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("values");
  QTest::addColumn<qlonglong>("expected");
  QTest::addColumn<QString>("error"); // empty: must succeed with `expected`
  QTest::newRow("linear") << "2*N + 1" << "N=5" << 11LL << "";
  QTest::newRow("floordiv neg") << "a // b" << "a=-7,b=2" << -4LL << "";
  QTest::newRow("mod neg") << "a % b" << "a=-7,b=2" << 1LL << "";
  QTest::newRow("floordiv neg divisor") << "a // b" << "a=7,b=-2" << -4LL << "";
  QTest::newRow("mod neg divisor") << "a % b" << "a=7,b=-2" << -1LL << "";
  QTest::newRow("both neg div") << "a // b" << "a=-7,b=-2" << 3LL << "";
  QTest::newRow("both neg mod") << "a % b" << "a=-7,b=-2" << -1LL << "";
  QTest::newRow("exact neg") << "a // b" << "a=-8,b=2" << -4LL << "";
  QTest::newRow("const div") << "(a - 1) // 4" << "a=0" << -1LL << "";
  QTest::newRow("const mod") << "(a + 5) % 4" << "a=-8" << 1LL << "";
  QTest::newRow("ceil") << "-((-a) // 4)" << "a=5" << 2LL << "";
  QTest::newRow("min") << "min(a, b, 3)" << "a=5,b=4" << 3LL << "";
  QTest::newRow("max") << "max(a, b)" << "a=-5,b=-4" << -4LL << "";
  QTest::newRow("cmp") << "a < b" << "a=1,b=2" << 1LL << "";
  QTest::newRow("cmp false") << "a >= b" << "a=1,b=2" << 0LL << "";
  QTest::newRow("logic") << "a < b and not (b == 3)" << "a=1,b=3" << 0LL << "";
  QTest::newRow("or") << "a == 1 or b" << "a=0,b=7" << 1LL << "";
  QTest::newRow("and decides") << "a != 0 and b // a > 1" << "a=0,b=5" << 0LL << "";
  QTest::newRow("int64 min literal") << "a + -9223372036854775808" << "a=1" << (qlonglong)(INT64_MIN + 1) << "";
  QTest::newRow("div by zero") << "a // b" << "a=1,b=0" << 0LL << "division by zero in 'a // b'";
  QTest::newRow("mod by zero") << "a % b" << "a=1,b=0" << 0LL << "division by zero in 'a % b'";
  QTest::newRow("add overflow") << "a + 1" << "a=9223372036854775807" << 0LL << "integer overflow";
  QTest::newRow("mul overflow") << "a*b" << "a=4611686018427387904,b=2" << 0LL << "integer overflow in 'a*b'";
  QTest::newRow("div overflow") << "a // b" << "a=-9223372036854775808,b=-1" << 0LL << "integer overflow";
  QTest::newRow("mod min -1") << "a % b" << "a=-9223372036854775808,b=-1" << 0LL << "";
  QTest::newRow("unbound") << "N + M" << "N=1" << 0LL << "symbol 'M' has no value";
  QTest::newRow("unbound in cond") << "i < N" << "i=1" << 0LL << "symbol 'N'";
}

void TestSymbolic::evaluate() {
  QFETCH(QString, text);
  QFETCH(QString, values);
  QFETCH(qlonglong, expected);
  QFETCH(QString, error);
  const Expr e = parsed(text);
  auto v = e.evaluate(assignment(values));
  if (error.isEmpty()) {
    QVERIFY2(v.ok(), v.ok() ? "" : v.error().str().c_str());
    QCOMPARE(qlonglong(*v), expected);
  } else {
    QVERIFY(!v);
    QVERIFY2(qs(v.error().message).contains(error), v.error().str().c_str());
    QVERIFY2(qs(v.error().location).contains(qs(e.str())), v.error().location.c_str());
  }
}

void TestSymbolic::bounds_data() {
  QTest::addColumn<QString>("text");
  QTest::addColumn<QString>("assume"); // "N=1:" lower only, "i=0:9", "M=:5" upper only
  QTest::addColumn<QString>("lower");  // empty: unbounded
  QTest::addColumn<QString>("upper");
  QTest::newRow("const") << "7" << "" << "7" << "7";
  QTest::newRow("free symbol") << "N" << "" << "" << "";
  QTest::newRow("symbol") << "N" << "N=1:" << "1" << "";
  QTest::newRow("sum") << "N + M - 1" << "N=1:10,M=0:5" << "0" << "14";
  QTest::newRow("scaled") << "-3*i + 2" << "i=0:9" << "-25" << "2";
  QTest::newRow("product") << "i*j" << "i=-2:3,j=-5:4" << "-15" << "12";
  QTest::newRow("product half open") << "i*j" << "i=1:,j=2:" << "2" << "";
  QTest::newRow("floordiv") << "i // 4" << "i=-5:9" << "-2" << "2";
  QTest::newRow("floordiv neg") << "i // -4" << "i=-5:9" << "-3" << "1";
  QTest::newRow("mod any") << "N % 8" << "" << "0" << "7";
  QTest::newRow("mod in period") << "i % 8" << "i=9:12" << "1" << "4";
  QTest::newRow("mod small") << "i % 100" << "i=0:9" << "0" << "9";
  QTest::newRow("mod neg divisor") << "N % -4" << "" << "-3" << "0";
  QTest::newRow("mod symbolic") << "i % N" << "N=1:16" << "0" << "15";
  QTest::newRow("div symbolic") << "i // N" << "i=0:100,N=2:4" << "0" << "50";
  QTest::newRow("min") << "min(N, 16)" << "N=1:" << "1" << "16";
  QTest::newRow("max") << "max(N, M)" << "N=1:4,M=:7" << "1" << "7";
  QTest::newRow("comparison") << "i < N" << "i=0:3,N=4:" << "1" << "1";
  QTest::newRow("comparison open") << "i < N" << "i=0:3" << "0" << "1";
  QTest::newRow("logic") << "i < N and N > 0" << "i=0:3,N=5:" << "1" << "1";
  QTest::newRow("overflowing product") << "N*M" << "N=4294967296:,M=4294967296:" << "9223372036854775807" << "";
}

namespace {
Assumptions parseAssumptions(const QString& text) {
  Assumptions a;
  for (const QString& part : text.split(',', Qt::SkipEmptyParts)) {
    const QStringList kv = part.split('=');
    const QStringList range = kv[1].split(':');
    const std::string s = kv[0].trimmed().toStdString();
    if (!range[0].isEmpty()) a.setLower(s, int64_t(range[0].toLongLong()));
    if (range.size() > 1 && !range[1].isEmpty()) a.setUpper(s, int64_t(range[1].toLongLong()));
  }
  return a;
}
QString boundText(std::optional<int64_t> b) { return b ? QString::number(*b) : QString(); }
} // namespace

void TestSymbolic::bounds() {
  QFETCH(QString, text);
  QFETCH(QString, assume);
  QFETCH(QString, lower);
  QFETCH(QString, upper);
  auto [lo, hi] = dcw::sym::bounds(parsed(text), parseAssumptions(assume));
  QCOMPARE(boundText(lo), lower);
  QCOMPARE(boundText(hi), upper);
}

void TestSymbolic::proofs() {
  const Expr N = sym("N"), M = sym("M"), i = sym("i"), j = sym("j");
  const std::optional<bool> proved = true, disproved = false, undecided = std::nullopt;

  Assumptions dims;
  dims.setLower("N", 1);
  dims.setLower("M", 1);
  QCOMPARE(proveLessEqual(N - 1, N, dims), proved);
  QCOMPARE(proveLessEqual(N, N - 1, dims), disproved);
  QCOMPARE(proveLessEqual(N, M, dims), undecided);
  QCOMPARE(proveLess(Expr(0), N, dims), proved);
  QCOMPARE(proveLess(N, Expr(1), dims), disproved);
  QCOMPARE(proveLessEqual(Expr(1), N * M, dims), proved);
  QCOMPARE(proveLess(N, N, dims), disproved);
  QCOMPARE(proveLessEqual(N, N), proved);

  // A map parameter i in [0, N - 1] lies below N.
  Assumptions loop = dims;
  loop.setLower("i", 0);
  loop.setUpper("i", N - 1);
  QCOMPARE(proveLess(i, N, loop), proved);
  QCOMPARE(proveLessEqual(i + 1, N, loop), proved);
  QCOMPARE(proveLessEqual(Expr(0), i, loop), proved);
  QCOMPARE(proveLess(N, i + 1, loop), disproved);
  QCOMPARE(proveLess(i, N - 1, loop), undecided);
  QCOMPARE(proveLess(i, M, loop), undecided);
  // Nested: j in [0, i], so j < N too; and 2*i + 1 < 2*N.
  loop.setLower("j", 0);
  loop.setUpper("j", i);
  QCOMPARE(proveLess(j, N, loop), proved);
  QCOMPARE(proveLess(2 * i + 1, 2 * N, loop), proved);
  auto [lo, hi] = dcw::sym::bounds(N - i, loop);
  QCOMPARE(lo, std::optional<int64_t>(1));
  QVERIFY(!hi);
  // Symbolic bounds also tighten the integer bounds of the symbol: i <= N - 1 <= 9.
  Assumptions capped = loop;
  capped.setUpper("N", 10);
  QCOMPARE(dcw::sym::bounds(i, capped).second, std::optional<int64_t>(9));
  // Cyclic symbolic bounds do not loop.
  Assumptions cyclic;
  cyclic.setUpper("a", sym("b"));
  cyclic.setUpper("b", sym("a"));
  QCOMPARE(proveLessEqual(sym("a"), sym("b"), cyclic), proved);
  QCOMPARE(proveLess(sym("a"), sym("b"), cyclic), disproved); // a <= b <= a: a == b

  // Equality: canonical, multiplied out, or from bounds.
  QCOMPARE(proveEqual(2 * (N + 1), 2 * N + 2), proved);
  QCOMPARE(proveEqual((N + 1) * (M + 1), N * M + N + M + 1), proved);
  QCOMPARE(proveEqual((N + 1) * (N - 1), N * N - 1), proved);
  QCOMPARE(proveEqual(N, N + 1), disproved);
  QCOMPARE(proveEqual(N, M), undecided);
  QCOMPARE(proveEqual(N, Expr(0), dims), disproved);
  QCOMPARE(proveEqual(mod(N, 4), Expr(7)), disproved);
  Assumptions fixed;
  fixed.setLower("N", 3);
  fixed.setUpper("N", 3);
  QCOMPARE(proveEqual(N, Expr(3), fixed), proved);
  QCOMPARE(proveEqual(floorDiv(N + 3, 4), Expr(1), fixed), proved);

  // True facts that need reasoning beyond intervals are never disproved.
  QVERIFY(proveLessEqual(N, 4 * ceilDiv(N, 4), dims) != disproved);
  QVERIFY(proveLessEqual(floorDiv(N, 4) * 4, N, dims) != disproved);
  QVERIFY(proveLessEqual(floorDiv(N, 4), N, dims) != disproved);
}

void TestSymbolic::randomizedSimplificationKeepsValues() {
  RandomTrees gen(20240611u);
  int compared = 0, expressions = 0;
  for (int round = 0; round < 3000; ++round) {
    const RefNode tree = gen.tree(gen.uniform(1, 5));
    const Expr e = refBuild(tree);
    ++expressions;
    // Printing reads back, and parsing the unsimplified text gives the same canonical form.
    const std::string printed = e.str();
    auto back = Expr::parse(printed);
    QVERIFY2(back.ok(), (refText(tree) + " printed as " + printed).c_str());
    QVERIFY2(*back == e, (refText(tree) + " printed as " + printed + " reads back as " + back->str()).c_str());
    auto fromText = Expr::parse(refText(tree));
    QVERIFY2(fromText.ok(), refText(tree).c_str());
    QVERIFY2(*fromText == e, (refText(tree) + ": built " + printed + ", parsed " + fromText->str()).c_str());
    // Same value as the unsimplified tree wherever the tree has one.
    for (int k = 0; k < 12; ++k) {
      const auto env = gen.values(-12, 12);
      const auto expected = refEval(tree, env);
      if (!expected) continue;
      auto got = e.evaluate(env);
      const std::string where = refText(tree) + " simplified to " + printed + " at a=" + std::to_string(env.at("a")) +
                                " b=" + std::to_string(env.at("b")) + " c=" + std::to_string(env.at("c"));
      if (!got) QFAIL((where + ": " + got.error().str()).c_str());
      QVERIFY2(*got == *expected, (where + ": got " + std::to_string(*got) + ", expected " + std::to_string(*expected)).c_str());
      ++compared;
    }
  }
  QVERIFY(compared > expressions * 4); // the generator mostly produces defined expressions
}

void TestSymbolic::randomizedBoundsAndProofsAreSound() {
  RandomTrees gen(77u);
  int checked = 0;
  for (int round = 0; round < 1500; ++round) {
    const RefNode t1 = gen.tree(gen.uniform(1, 4));
    const RefNode t2 = gen.tree(gen.uniform(1, 3));
    const Expr e1 = refBuild(t1), e2 = refBuild(t2);
    Assumptions assume;
    std::map<std::string, std::pair<int, int>> box;
    for (const char* s : {"a", "b", "c"}) {
      const int lo = gen.uniform(-10, 6), hi = lo + gen.uniform(0, 10);
      box[s] = {lo, hi};
      assume.setLower(s, int64_t(lo));
      assume.setUpper(s, int64_t(hi));
    }
    if (gen.uniform(0, 2) == 0) { // sometimes a symbolic bound as well: a <= b + 1
      assume.setUpper("a", sym("b") + 1);
    }
    const auto [lo, hi] = dcw::sym::bounds(e1, assume);
    const auto le = proveLessEqual(e1, e2, assume);
    const auto lt = proveLess(e1, e2, assume);
    const auto same = proveEqual(e1, e2, assume);
    for (int k = 0; k < 16; ++k) {
      std::map<std::string, int64_t> env;
      for (const auto& [s, r] : box) env[s] = gen.uniform(r.first, r.second);
      if (assume.symbolicBounds.count("a") && env["a"] > env["b"] + 1) continue;
      auto v1 = e1.evaluate(env), v2 = e2.evaluate(env);
      if (!v1 || !v2) continue;
      const std::string where = e1.str() + " vs " + e2.str() + " at a=" + std::to_string(env["a"]) +
                                " b=" + std::to_string(env["b"]) + " c=" + std::to_string(env["c"]);
      QVERIFY2(!lo || *lo <= *v1, (where + ": below lower bound " + std::to_string(*lo)).c_str());
      QVERIFY2(!hi || *v1 <= *hi, (where + ": above upper bound " + std::to_string(*hi)).c_str());
      if (le) QVERIFY2(*le == (*v1 <= *v2), (where + ": wrong <= proof").c_str());
      if (lt) QVERIFY2(*lt == (*v1 < *v2), (where + ": wrong < proof").c_str());
      if (same) QVERIFY2(*same == (*v1 == *v2), (where + ": wrong == proof").c_str());
      ++checked;
    }
  }
  QVERIFY(checked > 1000);
}

QTEST_APPLESS_MAIN(TestSymbolic)
#include "tst_Symbolic.moc"
