// Tests of the list of expected conformance failures (pipeline::ExpectedFailures, `dcw test-onnx
// --expected-failures`): the format is parsed strictly (every refusal names FILE:LINE), and a run
// agrees with the list only when every case that does not pass is listed with its status and every
// listed case ran and did not pass — so the committed lists cannot hide a new failure nor go stale.
#include "pipeline/OnnxTestCase.h"

#include <QtTest>

using namespace dcw;
using namespace dcw::pipeline;

namespace {

CaseResult result(const std::string& name, CaseResult::Status status, const std::string& message = {}) {
  CaseResult r;
  r.name = name;
  r.status = status;
  r.message = message;
  return r;
}

ExpectedFailures listOf(const std::string& text) {
  auto l = ExpectedFailures::parse(text, "node.txt");
  if (!l) qFatal("%s", l.error().str().c_str());
  return *l;
}

QStringList texts(const std::vector<Diagnostic>& ds) {
  QStringList out;
  for (auto& d : ds) out << QString::fromStdString(d.str());
  return out;
}

const auto kAll = [](const std::string&) { return true; };

} // namespace

class TestExpectedFailures : public QObject {
  Q_OBJECT
private slots:
  void parsesNamesStatusesAndReasons() {
    auto l = listOf("# the node suite\n\n"
                    "test_cast_FLOAT_to_STRING  unsupported  # strings are not lowered\n"
                    "   test_nonzero_example failed #data-dependent shape  \n");
    QCOMPARE(l.cases.size(), size_t(2));
    QCOMPARE(QString::fromStdString(l.cases[0].name), QString("test_cast_FLOAT_to_STRING"));
    QVERIFY(l.cases[0].status == CaseResult::Status::Unsupported);
    QCOMPARE(QString::fromStdString(l.cases[0].reason), QString("strings are not lowered"));
    QCOMPARE(l.cases[0].line, 3);
    QVERIFY(l.cases[1].status == CaseResult::Status::Failed);
    QCOMPARE(QString::fromStdString(l.cases[1].reason), QString("data-dependent shape"));
    QCOMPARE(l.cases[1].line, 4);
    QVERIFY(l.find("test_nonzero_example") == &l.cases[1]);
    QVERIFY(!l.find("test_relu"));
  }

  void refusesMalformedLines_data() {
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("error");
    QTest::newRow("no status") << "\ntest_a # why" << "node.txt:2: expected `NAME STATUS  # reason`, got 'test_a '";
    QTest::newRow("extra word") << "test_a failed twice # why" << "node.txt:1: expected `NAME STATUS  # reason`";
    QTest::newRow("unknown status") << "test_a passed # why" << "node.txt:1: unknown status 'passed' for test_a";
    QTest::newRow("no reason") << "test_a failed" << "node.txt:1: test_a has no reason";
    QTest::newRow("empty reason") << "test_a failed #  " << "node.txt:1: test_a has no reason";
    QTest::newRow("twice") << "test_a failed # x\ntest_a unsupported # y" << "node.txt:2: test_a is listed twice";
  }
  void refusesMalformedLines() {
    QFETCH(QString, text);
    QFETCH(QString, error);
    auto l = ExpectedFailures::parse(text.toStdString(), "node.txt");
    QVERIFY(!l);
    QVERIFY2(QString::fromStdString(l.error().str()).startsWith(error), l.error().str().c_str());
  }

  void loadNamesAMissingFile() {
    auto l = ExpectedFailures::load("/nonexistent/node.txt");
    QVERIFY(!l);
    QCOMPARE(QString::fromStdString(l.error().str()),
             QString("/nonexistent/node.txt: cannot read the list of expected failures; give an existing file"));
  }

  void agreesWhenEveryNonPassIsListed() {
    auto l = listOf("test_b unsupported # strings\ntest_c failed # wrong rounding\n");
    std::vector<CaseResult> rs{result("test_a", CaseResult::Status::Passed), result("test_b", CaseResult::Status::Unsupported),
                               result("test_c", CaseResult::Status::Failed)};
    QCOMPARE(texts(compareWithExpectedFailures(rs, l, kAll)), QStringList());
  }

  void namesEachDisagreement() {
    auto l = listOf("test_b unsupported # strings\n"
                    "test_c unsupported # sequences\n"
                    "test_gone failed # renamed upstream\n"
                    "test_other failed # not in this run\n");
    std::vector<CaseResult> rs{result("test_a", CaseResult::Status::Failed, "output 'y': 1 of 4 values differ"),
                               result("test_b", CaseResult::Status::Passed),
                               result("test_c", CaseResult::Status::Failed, "output 'z' has shape [2], expected [3]"),
                               result("test_d", CaseResult::Status::Unsupported, "no expansion")};
    // test_other is outside the run's selection (as with --filter): not a disagreement.
    auto selected = [](const std::string& n) { return n != "test_other"; };
    QCOMPARE(texts(compareWithExpectedFailures(rs, l, selected)),
             (QStringList{"test_a: failed and is not listed as an expected failure: output 'y': 1 of 4 values differ; "
                          "fix it, or list it in node.txt with the reason",
                          "node.txt:1: test_b passes now but is listed as unsupported; remove it from the list",
                          "node.txt:2: test_c is listed as unsupported but failed: output 'z' has shape [2], expected [3]; "
                          "fix it, or correct its line",
                          "test_d: unsupported and is not listed as an expected failure: no expansion; "
                          "fix it, or list it in node.txt with the reason",
                          "node.txt:3: test_gone is no case of this run; remove it from the list"}));
  }
};

QTEST_GUILESS_MAIN(TestExpectedFailures)
#include "tst_ExpectedFailures.moc"
