// Tests that untrusted model names always become safe, unique, deterministic C++ identifiers.
#include "codegen/Identifier.h"

#include <QtTest>

using namespace dcw::codegen;

class TestIdentifier : public QObject {
  Q_OBJECT
private slots:
  void safeNames_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("expected");
    QTest::newRow("plain") << "conv1" << "conv1";
    QTest::newRow("torch") << "/layer1/layer1.0/conv1/Conv_output_0" << "layer1_layer1_0_conv1_Conv_output_0";
    QTest::newRow("digit") << "123" << "v_123";
    QTest::newRow("keyword") << "int" << "v_int";
    QTest::newRow("injection") << "x; system(\"rm -rf /\"); //" << "x_system_rm_rf";
    QTest::newRow("reserved") << "__Secret" << "Secret";
    QTest::newRow("empty") << "" << "v_";
    QTest::newRow("unicode") << "wéight" << "w_ight";
  }
  void safeNames() {
    QFETCH(QString, name);
    QFETCH(QString, expected);
    IdentifierTable t;
    const std::string& id = t.get(name.toStdString());
    QVERIFY2(isSafeIdentifier(id), id.c_str());
    QCOMPARE(QString::fromStdString(id), expected);
  }
  void uniqueAndDeterministic() {
    IdentifierTable t;
    auto a = t.get("a/b"), b = t.get("a.b"), c = t.get("a_b");
    QVERIFY(a != b && b != c && a != c);
    QCOMPARE(t.get("a/b"), a);
    QVERIFY(isSafeIdentifier(a) && isSafeIdentifier(b) && isSafeIdentifier(c));
  }
};

QTEST_APPLESS_MAIN(TestIdentifier)
#include "tst_Identifier.moc"
