// Tests of what a test does when something it needs is missing (tests/support/Prerequisites.h): an
// installed prerequisite that is missing skips with the reason outside CI and fails in CI (CI=true),
// so that CI can never turn a missing dependency into a silent skip; a present one does neither.
#include "support/TestPaths.h"
#include "support/Prerequisites.h"

#include <QtTest>

using dcw::testsupport::checkInstalled;
using dcw::testsupport::inCi;

class TestPrerequisites : public QObject {
  Q_OBJECT
private slots:
  void init() { saved_ = qgetenv("CI"), hadCi_ = qEnvironmentVariableIsSet("CI"); }
  void cleanup() { hadCi_ ? qputenv("CI", saved_) : qunsetenv("CI"); }

  void ciIsTheCiVariable_data() {
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<bool>("ci");
    QTest::newRow("true") << QByteArray("true") << true;
    QTest::newRow("TRUE") << QByteArray("TRUE") << true;
    QTest::newRow("1") << QByteArray("1") << true;
    QTest::newRow("empty") << QByteArray() << false;
    QTest::newRow("0") << QByteArray("0") << false;
    QTest::newRow("false") << QByteArray("false") << false;
  }
  void ciIsTheCiVariable() {
    QFETCH(QByteArray, value);
    QFETCH(bool, ci);
    qputenv("CI", value);
    QCOMPARE(inCi(), ci);
    qunsetenv("CI");
    QVERIFY(!inCi());
  }

  void missingSkipsOutsideCi() {
    qunsetenv("CI");
    auto m = checkInstalled(QStringLiteral("/nonexistent/testdata"), QStringLiteral("setup installs it"));
    QVERIFY(m);
    QVERIFY(!m->fails);
    QCOMPARE(m->message, QStringLiteral("/nonexistent/testdata is not installed (setup installs it); outside CI this is a skip"));
  }

  void missingFailsInCi() {
    qputenv("CI", "true");
    auto m = checkInstalled(QStringLiteral("/nonexistent/testdata"), QStringLiteral("setup installs it"));
    QVERIFY(m);
    QVERIFY(m->fails);
    QCOMPARE(m->message, QStringLiteral("/nonexistent/testdata is not installed (setup installs it); CI must have it"));
  }

  void presentIsNeither() {
    qputenv("CI", "true");
    QVERIFY(!checkInstalled(testpaths::qsource("/tests/CMakeLists.txt"), QStringLiteral("-")));
  }

private:
  QByteArray saved_;
  bool hadCi_ = false;
};

QTEST_GUILESS_MAIN(TestPrerequisites)
#include "tst_Prerequisites.moc"
