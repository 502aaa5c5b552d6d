// AddFusion: structure (the Add and the producer's intermediate are gone; the producer is the dcw fused
// op reading the Add's other operand as Z), numbers (the same values as the unfused model, through the
// pure expansion and through oneDNN: the sum post-op for a Z of the result's shape, the matmul's bias
// for a broadcast bias), exact undo/redo, the reason of each refusal, and auto-optimize's use of it
// (only where oneDNN runs the fused node).
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/ActivationFusion.h"
#include "transforms/catalogue/AddFusion.h"
#include "transforms/catalogue/GeluFusion.h"

#include "core/ir/AccessNode.h"
#include "transforms/AutoOptimize.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

transforms::Match matchAt(const Sdfg& m, const std::string& producer, const std::string& add) {
  return labelledMatch(m, "AddFusion", producer, "producer", "output", add, "add");
}

// The data read at the node's connector `conn`, or "".
std::string inputAt(const LibraryNode& n, const std::string& conn) {
  const State& st = *n.parent();
  for (auto* e : st.inEdges(n.id()))
    if (e->dstConnector == conn) return static_cast<AccessNode*>(st.node(e->src))->data();
  return {};
}

} // namespace

class TestAddFusion : public QObject {
  Q_OBJECT
  transforms::AddFusion t;

private slots:
  // ResNet's block end: Conv -> Add(T, skip) -> Relu becomes FusedConv(Z=skip) -> Relu.
  void fusesTheSkipConnection() {
    auto m = loadModel(controlflowDataFile("conv_add_relu.onnx"), /*expand=*/false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    QVERIFY(!ref.empty());
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(1));
    QCOMPARE(matches[0], matchAt(*m, "conv", "add"));
    QVERIFY(checkTransformation(*m, t, matches[0], 0, /*numeric=*/false));
    auto libs = allNodes<LibraryNode>(*m);
    QCOMPARE(libs.size(), size_t(2));
    LibraryNode* conv = m->allStates()[0]->nodeByLabel("conv") ? static_cast<LibraryNode*>(m->allStates()[0]->nodeByLabel("conv")) : nullptr;
    QVERIFY(conv);
    QCOMPARE(conv->className(), std::string("dcw::FusedConv"));
    QCOMPARE(inputAt(*conv, "Z"), std::string("S"));
    QCOMPARE(inputAt(*conv, "X"), std::string("X"));
    QVERIFY(!conv->attribute("activation"));
    QVERIFY(!m->findData("T"));
    // The fused conv writes what the Add wrote, which the Relu still reads.
    State* st = conv->parent();
    QCOMPARE(static_cast<AccessNode*>(st->node(st->outEdges(conv->id())[0]->dst))->data(), std::string("U"));
    QVERIFY(outputsClose(ref, runExpanded(*m, 5), 1e-5, "pure"));
    std::string code;
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 5, {"onednn"}, &code), 1e-4, "onednn"));
    QVERIFY2(code.find("po.append_sum(1.0f)") != std::string::npos && code.find("dcw_k.addSum(") != std::string::npos, code.c_str());
  }

  // A linear layer's bias: MatMul -> Add(bias [N], T) becomes FusedMatMul(Z=bias), the matmul's bias
  // under oneDNN; with GeluFusion and ActivationFusion after it, the whole feed-forward input is one node.
  void fusesALinearLayersBias() {
    auto m = loadModel(controlflowDataFile("matmul_bias_gelu.onnx"), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    QVERIFY(!ref.empty());
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(1));
    QCOMPARE(matches[0], matchAt(*m, "mm", "add"));
    QVERIFY(checkTransformation(*m, t, matches[0], 0, false));
    auto* mm = static_cast<LibraryNode*>(m->allStates()[0]->nodeByLabel("mm"));
    QVERIFY(mm);
    QCOMPARE(mm->className(), std::string("dcw::FusedMatMul"));
    QCOMPARE(inputAt(*mm, "Z"), std::string("bias"));
    QVERIFY(outputsClose(ref, runExpanded(*m, 5), 1e-5, "pure"));
    std::string code;
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 5, {"onednn"}, &code), 1e-4, "onednn"));
    QVERIFY2(code.find("DNNL_ARG_BIAS") != std::string::npos, code.c_str());
    // GELU, then into the matmul: one node left.
    auto gelu = applicableMatches(*m, transforms::GeluFusion());
    QCOMPARE(gelu.size(), size_t(1));
    QVERIFY(applyNow(*m, transforms::GeluFusion(), gelu[0]));
    auto act = applicableMatches(*m, transforms::ActivationFusion());
    QCOMPARE(act.size(), size_t(1));
    QVERIFY(applyNow(*m, transforms::ActivationFusion(), act[0]));
    QCOMPARE(allNodes<LibraryNode>(*m).size(), size_t(1));
    QVERIFY(outputsClose(ref, runExpanded(*m, 5), 1e-5, "pure, with Gelu"));
    code.clear();
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 5, {"onednn"}, &code), 1e-4, "onednn, with Gelu"));
    QVERIFY2(code.find("eltwise_gelu_erf") != std::string::npos, code.c_str());
  }

  // Auto-optimize fuses where oneDNN takes the fused node, and only then: not under --prefer pure, and
  // not for a Z oneDNN's post-ops cannot broadcast (the step is rolled back and the Add stays).
  void autoOptimizeFusesWhereOnednnRunsIt_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("prefer");
    QTest::addColumn<QString>("fused");
    QTest::newRow("skip connection, onednn") << "conv_add_relu.onnx" << "onednn" << "dcw::FusedConv Z Relu onednn";
    QTest::newRow("skip connection, pure") << "conv_add_relu.onnx" << "pure" << "";
    QTest::newRow("spatial broadcast, onednn") << "conv_add_spatial.onnx" << "onednn" << "";
    QTest::newRow("bias and GELU, onednn") << "matmul_bias_gelu.onnx" << "onednn" << "dcw::FusedMatMul Z Gelu onednn";
  }
  void autoOptimizeFusesWhereOnednnRunsIt() {
    QFETCH(QString, file);
    QFETCH(QString, prefer);
    QFETCH(QString, fused);
    auto m = loadModel(controlflowDataFile(file.toStdString()), false);
    QVERIFY(m);
    edit::History h(*m);
    transforms::AutoOptimizeOptions o;
    o.expand = false;
    o.prefer = {prefer.toStdString()};
    QVERIFY(transforms::autoOptimize(h, o));
    QString found;
    for (auto* n : allNodes<LibraryNode>(*m))
      if (n->domain == "dcw" && n->opType != "Gelu") {
        auto* act = n->attribute("activation");
        found = QString::fromStdString(n->className() + (inputAt(*n, "Z").empty() ? "" : " Z") +
                                       (act ? " " + std::get<std::string>(act->value) : "") + " " + n->implementation);
      }
    QCOMPARE(found, fused);
    QVERIFY(validate(*m).firstError() == nullptr);
  }

  void refusesAnAddThatBroadcastsTheResult() {
    auto m = loadModel(controlflowDataFile("conv_add_broadcasts_result.onnx"), false);
    QVERIFY(m);
    QVERIFY(applicableMatches(*m, t).empty());
    const QString why = whyNot(t, matchAt(*m, "conv", "add"), *m);
    QVERIFY2(why.contains("the Add's output float32[1, 2, 4, 4] does not have the type of the Conv's result float32[1, 2, 1, 1]"),
             qPrintable(why));
  }

  // A bias, then a residual: the fused op takes the first Add; the second stays, saying why.
  void refusesASecondZ() {
    auto m = loadModel(controlflowDataFile("matmul_bias_residual.onnx"), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(1));
    QVERIFY(applyNow(*m, t, matches[0]));
    QVERIFY(applicableMatches(*m, t).empty());
    const QString why = whyNot(t, matchAt(*m, "mm", "residual"), *m);
    QVERIFY2(why.contains("the FusedMatMul already adds a Z"), qPrintable(why));
    QVERIFY(outputsClose(ref, runExpanded(*m, 5), 1e-5, "pure"));
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 5, {"onednn"}), 1e-4, "onednn"));
  }

  void refusesAResultTheModelReturns() {
    auto m = loadModel(controlflowDataFile("matmul_add_shared.onnx"), false);
    QVERIFY(m);
    QVERIFY(applicableMatches(*m, t).empty());
    const QString why = whyNot(t, matchAt(*m, "mm", "add"), *m);
    QVERIFY2(why.contains("is an output of the model"), qPrintable(why));
  }
};

QTEST_APPLESS_MAIN(TestAddFusion)
#include "tst_AddFusion.moc"
