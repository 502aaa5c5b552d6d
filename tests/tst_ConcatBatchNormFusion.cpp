// ConcatBatchNormFusion: structure (the Concat becomes dcw::ConcatBatchNormalization in place, with the
// normalization's parameters and epsilon, its Relu when it had one; the concatenation and the
// normalization are gone), numbers (the fused node computes what the two did, through its pure
// expansion and through its oneDNN implementation), exact undo/redo, the reason of each refusal, and
// auto-optimize making it where oneDNN runs the node (and not when only pure is preferred).
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/ActivationFusion.h"
#include "transforms/catalogue/ConcatBatchNormFusion.h"

#include "core/expansions/ExpandPass.h"
#include "core/ir/AccessNode.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

transforms::Match matchAt(const Sdfg& m, const std::string& concat, const std::string& norm) {
  return labelledMatch(m, "ConcatBatchNormFusion", concat, "producer", "output", norm, "norm");
}

std::string stringAttr(const LibraryNode& n, const char* name) {
  auto* a = n.attribute(name);
  auto* s = a ? std::get_if<std::string>(&a->value) : nullptr;
  return s ? *s : std::string();
}

LibraryNode* byOp(const Sdfg& m, const std::string& op) {
  for (auto* n : allNodes<LibraryNode>(m))
    if (n->opType == op) return n;
  return nullptr;
}

} // namespace

class TestConcatBatchNormFusion : public QObject {
  Q_OBJECT
  transforms::ConcatBatchNormFusion t;

private slots:
  // DenseNet's layer: the BN and Relu first become a FusedBatchNormalization (ActivationFusion), then
  // the Concat takes it in.
  void fusesConcatBatchNormRelu() {
    auto m = loadModel(controlflowDataFile("concat_bn_relu_conv.onnx"), /*expand=*/false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    QVERIFY(!ref.empty());
    // Before the Relu is fused, the BN itself matches (no activation); after, the fused BN does.
    QCOMPARE(applicableMatches(*m, t).size(), size_t(1));
    QVERIFY(applyNow(*m, transforms::ActivationFusion(), labelledMatch(*m, "ActivationFusion", "bn", "producer", "output", "relu", "activation")));
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(1));
    QCOMPARE(matches[0], matchAt(*m, "concat", "bn"));
    QVERIFY(checkTransformation(*m, t, matches[0], 0, /*numeric=*/false)); // exact undo/redo
    LibraryNode* fused = byOp(*m, "ConcatBatchNormalization");
    QVERIFY(fused);
    QCOMPARE(fused->className(), std::string("dcw::ConcatBatchNormalization"));
    QCOMPARE(fused->label(), std::string("concat"));
    QCOMPARE(stringAttr(*fused, "activation"), std::string("Relu"));
    auto* eps = fused->attribute("epsilon");
    QVERIFY(eps && std::get_if<double>(&eps->value) && std::abs(*std::get_if<double>(&eps->value) - 1e-3) < 1e-8);
    QVERIFY(!fused->attribute("axis"));
    QVERIFY(!byOp(*m, "FusedBatchNormalization") && !m->findData("C") && !m->findData("T"));
    QStringList ins;
    State* st = fused->parent();
    for (auto* e : st->inEdges(fused->id()))
      ins << QString::fromStdString(e->dstConnector + "=" + static_cast<AccessNode*>(st->node(e->src))->data());
    ins.sort();
    QCOMPARE(ins, QStringList({"B=o", "input_mean=mu", "input_var=var", "inputs_0=X0", "inputs_1=X1", "inputs_2=G", "scale=s"}));
    auto outs = st->outEdges(fused->id());
    QCOMPARE(outs.size(), size_t(1));
    QCOMPARE(static_cast<AccessNode*>(st->node(outs[0]->dst))->data(), std::string("R"));
    QVERIFY(validate(*m).firstError() == nullptr);
    // Numbers: pure (Concat, then the fused BN again), and oneDNN.
    QVERIFY(outputsClose(ref, runExpanded(*m, 5), 1e-5, "pure"));
    QVERIFY(expansions::canExpand(*fused, "onednn"));
    std::string code;
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 5, {"onednn"}, &code), 1e-4, "onednn"));
    QVERIFY2(code.find("fuse_norm_relu") != std::string::npos && code.find("concatNormRows") != std::string::npos, code.c_str());
  }

  // A normalization without activation; the Concat's axis given as -3 (axis 1 of a rank-4 tensor).
  void fusesWithoutActivation() {
    auto m = loadModel(controlflowDataFile("concat_bn.onnx"), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 3);
    QVERIFY(checkTransformation(*m, t, matchAt(*m, "concat", "bn"), 0, false));
    LibraryNode* fused = byOp(*m, "ConcatBatchNormalization");
    QVERIFY(fused && !fused->attribute("activation"));
    QVERIFY(outputsClose(ref, runExpanded(*m, 3), 1e-5, "pure"));
    std::string code;
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 3, {"onednn"}, &code), 1e-4, "onednn"));
    QVERIFY2(code.find("fuse_norm_relu") == std::string::npos, code.c_str());
  }

  void refusesAnotherAxis() {
    auto m = loadModel(controlflowDataFile("concat_h_bn.onnx"), false);
    QVERIFY(m);
    QVERIFY(applicableMatches(*m, t).empty());
    const QString why = whyNot(t, matchAt(*m, "concat", "bn"), *m);
    QVERIFY2(why.contains("along axis 2, not the channels"), qPrintable(why));
  }

  void refusesAConcatenationTheModelReturns() {
    auto m = loadModel(controlflowDataFile("concat_bn_shared.onnx"), false);
    QVERIFY(m);
    QVERIFY(applicableMatches(*m, t).empty());
    const QString why = whyNot(t, matchAt(*m, "concat", "bn"), *m);
    QVERIFY2(why.contains("is not a float32 transient"), qPrintable(why));
  }

  void refusesWhatIsNoConcat() {
    auto m = loadModel(controlflowDataFile("bn_relu_conv.onnx"), false);
    QVERIFY(m);
    const QString why = whyNot(t, labelledMatch(*m, "ConcatBatchNormFusion", "bn", "producer", "output", "relu", "norm"), *m);
    QVERIFY2(why.contains("not a Concat"), qPrintable(why));
  }

  // A Concat on oneDNN and its normalization on pure disagree: the fused node could take neither.
  void refusesDisagreeingImplementations() {
    auto m = loadModel(controlflowDataFile("concat_bn.onnx"), false);
    QVERIFY(m);
    byOp(*m, "Concat")->implementation = "onednn";
    byOp(*m, "BatchNormalization")->implementation = "pure";
    const QString why = whyNot(t, matchAt(*m, "concat", "bn"), *m);
    QVERIFY2(why.contains("different implementations"), qPrintable(why));
    byOp(*m, "BatchNormalization")->implementation = "onednn";
    QVERIFY(applyNow(*m, t, matchAt(*m, "concat", "bn")));
    QCOMPARE(byOp(*m, "ConcatBatchNormalization")->implementation, std::string("onednn"));
  }

  // Auto-optimize fuses where oneDNN runs the node; with only pure preferred it leaves the ops apart.
  void autoOptimize_data() {
    QTest::addColumn<QString>("prefer");
    QTest::addColumn<bool>("fused");
    QTest::newRow("onednn") << "onednn" << true;
    QTest::newRow("pure") << "pure" << false;
  }
  void autoOptimize() {
    QFETCH(QString, prefer);
    QFETCH(bool, fused);
    auto m = loadModel(controlflowDataFile("concat_bn_relu_conv.onnx"), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 9);
    QVERIFY(autoOptimized(*m, {prefer.toStdString()}));
    QCOMPARE(byOp(*m, "ConcatBatchNormalization") != nullptr, fused);
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 9, {prefer.toStdString()}), 1e-4, "optimized"));
  }
};

QTEST_GUILESS_MAIN(TestConcatBatchNormFusion)
#include "tst_ConcatBatchNormFusion.moc"
