// HardSwishFusion: structure (HardSigmoid, Mul and the gate's result are gone; one HardSwish reads x
// and writes y), numbers (pure HardSwish and oneDNN's eltwise_hardswish against HardSigmoid and Mul;
// then folded into the Conv before it as a post-op), exact undo/redo, and the refusal of a
// HardSigmoid with other parameters.
#include "support/SdfgFixtures.h"
#include "support/FoldIntoConv.h"
#include "transforms/catalogue/HardSwishFusion.h"

#include "core/ir/AccessNode.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

class TestHardSwishFusion : public QObject {
  Q_OBJECT
  transforms::HardSwishFusion t;

private slots:
  void fusesThenFoldsIntoTheConv() {
    auto m = loadModel(controlflowDataFile("conv_hardswish.onnx"), /*expand=*/false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    QVERIFY(!ref.empty());
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(1));
    QCOMPARE(matches[0], labelledMatch(*m, "HardSwishFusion", "HardSigmoid", "gate", "output", "mul", "mul"));
    QVERIFY(checkTransformation(*m, t, matches[0], 0, /*numeric=*/false));
    std::map<std::string, LibraryNode*> libs;
    for (auto* n : allNodes<LibraryNode>(*m)) libs[n->className()] = n;
    QCOMPARE(libs.size(), size_t(2));
    QVERIFY(libs.count("Conv"));
    LibraryNode* hs = nullptr;
    for (auto* n : allNodes<LibraryNode>(*m))
      if (n->opType == "HardSwish") hs = n;
    QVERIFY(hs);
    QCOMPARE(hs->label(), std::string("HardSwish"));
    QCOMPARE(hs->opsetVersion, int64_t(14));
    const State& st = *hs->parent();
    QCOMPARE(static_cast<AccessNode*>(st.node(st.inEdges(hs->id())[0]->src))->data(), std::string("T"));
    QCOMPARE(static_cast<AccessNode*>(st.node(st.outEdges(hs->id())[0]->dst))->data(), std::string("Y"));
    QVERIFY(!m->findData("S"));
    QVERIFY(outputsClose(ref, runExpanded(*m, 5), 1e-5, "pure"));
    std::string code;
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 5, {"onednn"}, &code), 1e-4, "onednn"));
    QVERIFY2(code.find("eltwise_hardswish") != std::string::npos, code.c_str());
    // The Conv's only reader is now the activation: ActivationFusion makes it one node with a post-op.
    QVERIFY(foldsIntoTheConv(*m, ref, "eltwise_hardswish"));
  }

  void refusesOtherParameters() {
    auto m = loadModel(controlflowDataFile("hardsigmoid_default.onnx"), false);
    QVERIFY(m);
    QVERIFY(applicableMatches(*m, t).empty());
    const QString why = whyNot(t, labelledMatch(*m, "HardSwishFusion", "gate", "gate", "output", "mul", "mul"), *m);
    QVERIFY2(why.contains("are not HardSwish's 1/6 and 0.5"), qPrintable(why));
  }
};

QTEST_APPLESS_MAIN(TestHardSwishFusion)
#include "tst_HardSwishFusion.moc"
