// SiluFusion: structure (Sigmoid, Mul and the sigmoid's result are gone; one dcw::Silu reads x and
// writes y), numbers (pure Silu and oneDNN's eltwise_swish against Sigmoid and Mul; then folded into
// the Conv before it as a post-op), exact undo/redo, and the refusal of a gate x * sigmoid(g).
#include "support/SdfgFixtures.h"
#include "support/FoldIntoConv.h"
#include "transforms/catalogue/SiluFusion.h"

#include "core/ir/AccessNode.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

class TestSiluFusion : public QObject {
  Q_OBJECT
  transforms::SiluFusion t;

private slots:
  void fusesThenFoldsIntoTheConv() {
    auto m = loadModel(controlflowDataFile("conv_silu.onnx"), /*expand=*/false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    QVERIFY(!ref.empty());
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(1));
    QCOMPARE(matches[0], labelledMatch(*m, "SiluFusion", "Sigmoid", "sigmoid", "output", "mul", "mul"));
    QVERIFY(checkTransformation(*m, t, matches[0], 0, /*numeric=*/false));
    std::map<std::string, LibraryNode*> libs;
    for (auto* n : allNodes<LibraryNode>(*m)) libs[n->className()] = n;
    QCOMPARE(libs.size(), size_t(2));
    QVERIFY(libs.count("Conv") && libs.count("dcw::Silu"));
    LibraryNode* silu = libs["dcw::Silu"];
    QCOMPARE(silu->label(), std::string("Silu"));
    const State& st = *silu->parent();
    QCOMPARE(static_cast<AccessNode*>(st.node(st.inEdges(silu->id())[0]->src))->data(), std::string("T"));
    QCOMPARE(static_cast<AccessNode*>(st.node(st.outEdges(silu->id())[0]->dst))->data(), std::string("Y"));
    QVERIFY(!m->findData("S"));
    QVERIFY(outputsClose(ref, runExpanded(*m, 5), 1e-5, "pure"));
    std::string code;
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 5, {"onednn"}, &code), 1e-4, "onednn"));
    QVERIFY2(code.find("eltwise_swish") != std::string::npos, code.c_str());
    // The Conv's only reader is now the activation: ActivationFusion makes it one node with a post-op.
    QVERIFY(foldsIntoTheConv(*m, ref, "po.append_eltwise(1.0f, dnnl::algorithm::eltwise_swish, 1.0f"));
  }

  void refusesAGate() {
    auto m = loadModel(controlflowDataFile("sigmoid_gate.onnx"), false);
    QVERIFY(m);
    QVERIFY(applicableMatches(*m, t).empty());
    const QString why = whyNot(t, labelledMatch(*m, "SiluFusion", "sigmoid", "sigmoid", "output", "mul", "mul"), *m);
    QVERIFY2(why.contains("multiplies the sigmoid by another tensor than its input"), qPrintable(why));
  }
};

QTEST_APPLESS_MAIN(TestSiluFusion)
#include "tst_SiluFusion.moc"
