// GeluFusion: structure (the five ops PyTorch exports for GELU and their intermediates and constants
// are gone; one dcw::Gelu reads x and writes y), numbers (pure Gelu and oneDNN's eltwise_gelu_erf
// against the five ops), the other ways of writing it, exact undo/redo, and a refusal.
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/GeluFusion.h"

#include "core/ir/AccessNode.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

class TestGeluFusion : public QObject {
  Q_OBJECT
  transforms::GeluFusion t;

private slots:
  void fuses_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("x");
    QTest::addColumn<QString>("scale");
    QTest::addColumn<QString>("erf");
    QTest::addColumn<int>("opsLeft");
    QTest::newRow("as PyTorch exports it") << "matmul_bias_gelu.onnx" << "H" << "div" << "Erf" << 2;
    QTest::newRow("x * 1/sqrt(2), halved first") << "gelu_variant.onnx" << "X" << "scale" << "erf" << 0;
  }
  void fuses() {
    QFETCH(QString, file);
    QFETCH(QString, x);
    QFETCH(QString, scale);
    QFETCH(QString, erf);
    QFETCH(int, opsLeft);
    auto m = loadModel(controlflowDataFile(file.toStdString()), /*expand=*/false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    QVERIFY(!ref.empty());
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(1));
    QCOMPARE(matches[0], labelledMatch(*m, "GeluFusion", scale.toStdString(), "scale", "scaled", erf.toStdString(), "erf"));
    QVERIFY(checkTransformation(*m, t, matches[0], 0, /*numeric=*/false));
    LibraryNode* gelu = nullptr;
    int others = 0;
    for (auto* n : allNodes<LibraryNode>(*m)) {
      if (n->className() == "dcw::Gelu") gelu = n;
      else ++others;
    }
    QVERIFY(gelu);
    QCOMPARE(others, opsLeft);
    const State& st = *gelu->parent();
    QCOMPARE(static_cast<AccessNode*>(st.node(st.inEdges(gelu->id())[0]->src))->data(), x.toStdString());
    QCOMPARE(static_cast<AccessNode*>(st.node(st.outEdges(gelu->id())[0]->dst))->data(), std::string("Y"));
    for (const char* gone : {"one", "half", "sqrt2", "rsqrt2", "D", "E", "A", "M"}) QVERIFY2(!m->findData(gone), gone);
    QVERIFY(outputsClose(ref, runExpanded(*m, 5), 1e-5, "pure"));
    std::string code;
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 5, {"onednn"}, &code), 1e-4, "onednn"));
    QVERIFY2(code.find("eltwise_gelu_erf") != std::string::npos, code.c_str());
  }

  void refusesAnotherScale() {
    auto m = loadModel(controlflowDataFile("not_gelu.onnx"), false);
    QVERIFY(m);
    QVERIFY(applicableMatches(*m, t).empty());
    const QString why = whyNot(t, labelledMatch(*m, "GeluFusion", "div", "scale", "scaled", "erf", "erf"), *m);
    QVERIFY2(why.contains("Div is not by sqrt(2)"), qPrintable(why));
  }
};

QTEST_APPLESS_MAIN(TestGeluFusion)
#include "tst_GeluFusion.moc"
