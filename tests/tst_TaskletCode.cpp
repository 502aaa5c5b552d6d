// Tests of the tasklet language: canonical printing round trips, every function, located errors,
// name analysis, and rejection of anything that could smuggle text into generated source.
#include "core/tasklet/TaskletCode.h"

#include <QtTest>

using namespace dcw;
using namespace dcw::tasklet;

namespace {
QString errorOf(std::string_view code) {
  auto p = parse(code, "main/s/t");
  if (p) return QString();
  return QString::fromStdString(p.error().str());
}
} // namespace

class TestTaskletCode : public QObject {
  Q_OBJECT
private slots:
  void roundTrip_data() {
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("canonical");
    QTest::newRow("assign") << "b = a * 2 + 1" << "b = a * 2 + 1";
    QTest::newRow("spaces") << "  b=a*2+1  " << "b = a * 2 + 1";
    QTest::newRow("parens kept") << "b = (a + 1) * 2" << "b = (a + 1) * 2";
    QTest::newRow("parens dropped") << "b = (a * 2) + 1" << "b = a * 2 + 1";
    QTest::newRow("left assoc") << "b = a - c - d" << "b = a - c - d";
    QTest::newRow("right grouping") << "b = a - (c - d)" << "b = a - (c - d)";
    QTest::newRow("division") << "b = a / (c / d)" << "b = a / (c / d)";
    QTest::newRow("unary") << "b = -a * -c" << "b = -a * -c";
    QTest::newRow("double negation") << "b = - -a" << "b = - -a";
    QTest::newRow("negated not") << "b = -(!a)" << "b = - !a";
    QTest::newRow("unary of sum") << "b = -(a + c)" << "b = -(a + c)";
    QTest::newRow("not") << "b = !(a < c) && d" << "b = !(a < c) && d";
    QTest::newRow("logic") << "b = a || c && d" << "b = a || c && d";
    QTest::newRow("logic parens") << "b = (a || c) && d" << "b = (a || c) && d";
    QTest::newRow("comparisons") << "b = a + 1 < c == d >= e" << "b = a + 1 < c == d >= e";
    QTest::newRow("ternary") << "b = a > 0 ? a : 0.5 * a" << "b = a > 0 ? a : 0.5 * a";
    QTest::newRow("nested ternary") << "b = a ? c : d ? e : f" << "b = a ? c : d ? e : f";
    QTest::newRow("ternary in operand") << "b = (a ? c : d) + 1" << "b = (a ? c : d) + 1";
    QTest::newRow("numbers") << "b = 12 + 1.5 + 1e-5 + 2.5E+3 + .5 + 3." << "b = 12 + 1.5 + 1e-5 + 2.5E+3 + .5 + 3.";
    QTest::newRow("hex") << "b = 0x1F" << "b = 31";
    QTest::newRow("leading zeros") << "b = 007" << "b = 7";
    QTest::newRow("literals") << "b = select(true, inf, nan) + false" << "b = select(true, inf, nan) + false";
    QTest::newRow("index") << "b = x[i * 3 + 1]" << "b = x[i * 3 + 1]";
    QTest::newRow("let") << "let t = a * a; b = t + 1" << "let t = a * a\nb = t + 1";
    QTest::newRow("newlines") << "let t = a\n\n b = t;" << "let t = a\nb = t";
    QTest::newRow("casts") << "b = float16(a) + int32(c) + bool(d)" << "b = float16(a) + int32(c) + bool(d)";
    QTest::newRow("unary plus") << "b = +a" << "b = a";
    QTest::newRow("modulo") << "b = a % 3" << "b = a % 3";
    QTest::newRow("floor division") << "b = (h + 3) // 4"
                                    << "b = (h + 3) / 4 - select((h + 3) % 4 != 0 && h + 3 < 0 != 4 < 0, 1, 0)";
  }
  void roundTrip() {
    QFETCH(QString, code);
    QFETCH(QString, canonical);
    auto p = parse(code.toStdString(), "t");
    QVERIFY2(p, p ? "" : qPrintable(QString::fromStdString(p.error().str())));
    QCOMPARE(QString::fromStdString(p->str()), canonical);
    auto again = parse(p->str(), "t");
    QVERIFY(again);
    QCOMPARE(QString::fromStdString(again->str()), canonical);
  }

  void everyFunction_data() {
    QTest::addColumn<QString>("fn");
    QTest::addColumn<int>("arity");
    for (const char* f : {"exp", "log", "sqrt", "abs", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh",
                          "asinh", "acosh", "atanh", "erf", "floor", "ceil", "round", "trunc", "sign", "isnan", "isinf",
                          "sigmoid", "relu", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                          "uint64", "float16", "bfloat16", "float32", "float64"})
      QTest::newRow(f) << f << 1;
    for (const char* f : {"pow", "atan2", "fmod", "min", "max"}) QTest::newRow(f) << f << 2;
    QTest::newRow("select") << "select" << 3;
  }
  void everyFunction() {
    QFETCH(QString, fn);
    QFETCH(int, arity);
    QVERIFY(isFunction(fn.toStdString()));
    QStringList args;
    for (int i = 0; i < arity; ++i) args << QString("x%1").arg(i);
    QString code = "y = " + fn + "(" + args.join(", ") + ")";
    auto p = parse(code.toStdString(), "t");
    QVERIFY2(p, p ? "" : qPrintable(QString::fromStdString(p.error().str())));
    QCOMPARE(QString::fromStdString(p->str()), code);
    QCOMPARE(p->statements.at(0).value->kind, ExprKind::Call);
    // Wrong arity is rejected with the expected count.
    QString bad = "y = " + fn + "(" + args.join(", ") + (arity ? ", " : "") + "z)";
    QVERIFY(errorOf(bad.toStdString()).contains(QString("takes %1 argument").arg(arity)));
  }

  void notFunctions() {
    QVERIFY(!isFunction("system"));
    QVERIFY(!isFunction("complex64"));
    QVERIFY(!isFunction("string"));
    QVERIFY(!isFunction(""));
  }

  void errors_data() {
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("message");
    QTest::newRow("missing operand") << "b = a +" << "line 1, column 8: expected an expression, found the end of the code";
    QTest::newRow("column") << "b = a * )" << "line 1, column 9: expected an expression, found ')'";
    QTest::newRow("second line") << "let t = a\nb = t t" << "line 2, column 7: expected ';' or a new line";
    QTest::newRow("unknown function") << "b = system(a)" << "line 1, column 5: unknown function 'system'";
    QTest::newRow("unclosed paren") << "b = (a + 1" << "line 1, column 11: expected ')'";
    QTest::newRow("no assignment") << "a + 1" << "line 1, column 3: expected '=' after 'a'";
    QTest::newRow("reserved") << "true = 1" << "'true' is a reserved word";
    QTest::newRow("let twice") << "let t = 1; let t = 2" << "local 't' is already declared";
    QTest::newRow("big int") << "b = 99999999999999999999" << "integer literal is out of range";
    QTest::newRow("big float") << "b = 1e999" << "floating-point literal is out of range";
    QTest::newRow("bad number") << "b = 1.5.2" << "malformed number";
    QTest::newRow("bad exponent") << "b = 1e+" << "malformed exponent";
    QTest::newRow("ternary") << "b = a ? c" << "expected ':'";
    QTest::newRow("index") << "b = x[1" << "expected ']'";
    // Each `//` prints its operands three times: a chain of them is refused before it grows exponentially.
    QTest::newRow("floor division chain") << "b = a" + QString(" // a").repeated(40) << "more than 100000 terms";
  }
  void errors() {
    QFETCH(QString, code);
    QFETCH(QString, message);
    QString e = errorOf(code.toStdString());
    QVERIFY2(e.contains(message), qPrintable(e));
    QVERIFY2(e.startsWith("main/s/t: "), qPrintable(e));
  }

  // A chain of unary operators within the nesting limit prints back into code that parses (it printed
  // as "-(-(-...))" before, three nesting levels per operator, and was refused on reparse: found by
  // tests/fuzz/FuzzTaskletCode.cpp, input kept in tests/fuzz/corpus/tasklet_code/). One more than the
  // limit is refused with the limit named.
  void unaryChainReprints() {
    const std::string code = "b = " + std::string(150, '-') + "a";
    auto p = parse(code, "t");
    QVERIFY2(p, p ? "" : p.error().str().c_str());
    auto again = parse(p->str(), "t");
    QVERIFY2(again, again ? "" : again.error().str().c_str());
    QCOMPARE(again->str(), p->str());
    QCOMPARE(errorOf("b = " + std::string(201, '-') + "a"),
             QString("main/s/t: line 1, column 204: expression is nested too deeply (more than 200 levels)"));
  }

  void unknownFunctionHint() {
    auto p = parse("b = frobnicate(a)", "t");
    QVERIFY(!p);
    QVERIFY(QString::fromStdString(p.error().hint).contains("known functions: exp"));
  }

  void injection_data() {
    QTest::addColumn<QString>("code");
    QTest::addColumn<QString>("message");
    QTest::newRow("call statement") << "a = b; system(\"x\")" << "no strings";
    QTest::newRow("call statement, no string") << "a = b; system(x)" << "line 1, column 14: expected '=' after 'system'";
    QTest::newRow("string") << "a = \"rm -rf /\"" << "no strings";
    QTest::newRow("char") << "a = 'x'" << "no strings";
    QTest::newRow("include") << "#include <cstdlib>\na = b" << "no preprocessor";
    QTest::newRow("include mid") << "a = b\n#include <cstdlib>" << "line 2, column 1";
    QTest::newRow("braces") << "a = b; } int main() { return 0" << "unexpected character '}'";
    // `//` is floor division, so what follows it is code, never a comment that hides text.
    QTest::newRow("comment") << "a = b // system(x)" << "unknown function 'system'";
    QTest::newRow("block comment") << "a = b /* c */" << "expected an expression";
    QTest::newRow("backslash") << "a = b \\\n c" << "unexpected character '\\'";
    QTest::newRow("non-ascii") << "a = b\xC2\xA0" << "unexpected character byte 0xc2";
    QTest::newRow("semicolon in call") << "a = exp(b; c)" << "expected ',' or ')'";
    QTest::newRow("asm") << "a = asm(b)" << "unknown function 'asm'";
    QTest::newRow("lambda") << "a = [](){}" << "unexpected character '{'";
    QTest::newRow("member") << "a = b.c" << "unexpected character '.'";
    QTest::newRow("pointer") << "a = *b" << "expected an expression";
    QTest::newRow("assign in expr") << "a = (b = c)" << "expected ')'";
  }
  void injection() {
    QFETCH(QString, code);
    QFETCH(QString, message);
    QString e = errorOf(code.toStdString());
    QVERIFY2(!e.isEmpty(), "accepted");
    QVERIFY2(e.contains(message), qPrintable(e));
  }

  void names() {
    auto p = parse("let t = a * k + x[i]\nb = t + c\nd = b * a + e\nlet u = d\nd = u + f", "t");
    QVERIFY(p);
    QCOMPARE(readNames(*p), (std::vector<std::string>{"a", "k", "x", "i", "c", "e", "f"}));
    QCOMPARE(writtenNames(*p), (std::vector<std::string>{"b", "d"}));
    auto q = parse("b = b + 1", "t"); // read before written: an input of the same name
    QVERIFY(q);
    QCOMPARE(readNames(*q), (std::vector<std::string>{"b"}));
    QCOMPARE(writtenNames(*q), (std::vector<std::string>{"b"}));
  }

  void depthLimit() {
    std::string deep = "b = " + std::string(500, '(') + "a" + std::string(500, ')');
    auto p = parse(deep, "t");
    QVERIFY(!p);
    QVERIFY(QString::fromStdString(p.error().message).contains("nested too deeply"));
    std::string unary = "b = " + std::string(500, '-') + "a";
    QVERIFY(!parse(unary, "t"));
    std::string ok = "b = " + std::string(50, '(') + "a" + std::string(50, ')');
    QVERIFY(parse(ok, "t"));
    std::string longSum = "b = a";
    for (int i = 0; i < 1000; ++i) longSum += " + a"; // long but flat: fine
    QVERIFY(parse(longSum, "t"));
    for (int i = 0; i < 4000; ++i) longSum += " + a"; // printers recurse: bounded
    auto tooLong = parse(longSum, "t");
    QVERIFY(!tooLong);
    QVERIFY(QString::fromStdString(tooLong.error().message).contains("too long"));
  }

  void emptyProgram() {
    auto p = parse("  \n ; \n", "t");
    QVERIFY(p);
    QVERIFY(p->statements.empty());
    QCOMPARE(QString::fromStdString(p->str()), QString());
  }
};

QTEST_APPLESS_MAIN(TestTaskletCode)
#include "tst_TaskletCode.moc"
