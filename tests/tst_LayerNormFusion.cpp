// LayerNormFusion: structure (the ops of a layer norm written out, their intermediates and the
// constants only they read are gone; one LayerNormalization reads x, gamma and beta and writes y, with
// the axis and epsilon of the chain and the exporter's name), numbers (pure and oneDNN's
// layer_normalization_forward against the ops), the other ways of writing it (PyTorch's own exports at
// opsets 11 and 13, Mul(d, d), the reciprocal, no beta, two axes), exact undo/redo, auto-optimize, and
// the refusals whose numbers would differ (epsilon after the Sqrt, a mean over a middle axis).
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/ConstantFolding.h"
#include "transforms/catalogue/LayerNormFusion.h"

#include "core/edit/History.h"
#include "core/ir/AccessNode.h"
#include "transforms/AutoOptimize.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

LibraryNode* onlyLayerNorm(const Sdfg& m, int* others) {
  LibraryNode* ln = nullptr;
  *others = 0;
  for (auto* n : allNodes<LibraryNode>(m)) {
    if (n->opType == "LayerNormalization") ln = n;
    else ++*others;
  }
  return ln;
}

} // namespace

class TestLayerNormFusion : public QObject {
  Q_OBJECT
  transforms::LayerNormFusion t;

private slots:
  void fuses_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("first");   // the first ReduceMean's label
    QTest::addColumn<QString>("label");   // the LayerNormalization's label
    QTest::addColumn<int>("opsLeft");
    QTest::addColumn<int>("axis");
    QTest::addColumn<bool>("beta");
    QTest::newRow("PyTorch, opset 13") << "torch_layernorm_opset13.onnx" << "1.ReduceMean" << "1.LayerNormalization" << 2 << 2 << true;
    QTest::newRow("PyTorch, opset 11") << "torch_layernorm_opset11.onnx" << "1.ReduceMean" << "1.LayerNormalization" << 2 << 2 << true;
    QTest::newRow("as ops, eps first in the Add") << "layernorm_decomposed.onnx" << "ln.ReduceMean" << "ln.LayerNormalization" << 0 << 2 << true;
    QTest::newRow("Mul(d, d), reciprocal, no beta") << "layernorm_square_reciprocal.onnx" << "ln.ReduceMean" << "ln.LayerNormalization" << 0 << 2 << false;
    QTest::newRow("over the last two axes") << "layernorm_two_axes.onnx" << "ln.ReduceMean" << "ln.LayerNormalization" << 0 << 1 << true;
  }
  void fuses() {
    QFETCH(QString, file);
    QFETCH(QString, first);
    QFETCH(QString, label);
    QFETCH(int, opsLeft);
    QFETCH(int, axis);
    QFETCH(bool, beta);
    auto m = loadModel(controlflowDataFile(file.toStdString()), /*expand=*/false);
    QVERIFY(m);
    // PyTorch writes the exponent and the epsilon as Constant ops; ConstantFolding makes them constant
    // data first, as dcw optimize does.
    for (auto folds = applicableMatches(*m, transforms::ConstantFolding()); !folds.empty();
         folds = applicableMatches(*m, transforms::ConstantFolding()))
      QVERIFY(applyNow(*m, transforms::ConstantFolding(), folds[0]));
    auto ref = runExpanded(*m, 5);
    QVERIFY(!ref.empty());
    const std::string sub = first.toStdString().substr(0, first.lastIndexOf('.') + 1) + "Sub";
    const auto expected = labelledMatch(*m, "LayerNormFusion", first.toStdString(), "mean_op", "mean", sub, "sub");
    auto matches = applicableMatches(*m, t);
    QVERIFY2(matches.size() == 1, qPrintable(whyNot(t, expected, *m)));
    QCOMPARE(QString::fromStdString(matches[0].str()), QString::fromStdString(expected.str()));
    QVERIFY(checkTransformation(*m, t, matches[0], 0, /*numeric=*/false)); // structure, undo and redo
    int others = 0;
    LibraryNode* ln = onlyLayerNorm(*m, &others);
    QVERIFY(ln);
    QCOMPARE(others, opsLeft);
    QCOMPARE(ln->label(), label.toStdString());
    QCOMPARE(std::get<int64_t>(ln->attribute("axis")->value), int64_t(axis));
    QVERIFY(std::abs(std::get<double>(ln->attribute("epsilon")->value) - 1e-5) < 1e-9);
    const State& st = *ln->parent();
    QCOMPARE(st.inEdges(ln->id()).size(), size_t(beta ? 3 : 2));
    QCOMPARE(static_cast<AccessNode*>(st.node(st.outEdges(ln->id())[0]->dst))->data(), std::string("Y"));
    for (auto& n : st.nodes()) // no access node left without edges: the chain's constants went with it
      QVERIFY2(!st.outEdges(n->id()).empty() || !st.inEdges(n->id()).empty(), n->label().c_str());
    for (const char* gone : {"two", "eps", "ln_mu", "ln_d", "ln_d2", "ln_var", "ln_ve", "ln_s", "ln_r", "ln_n", "ln_g"}) QVERIFY2(!m->findData(gone), gone);
    QVERIFY(validate(*m).firstError() == nullptr);
    QVERIFY(outputsClose(ref, runExpanded(*m, 5), 1e-5, "pure"));
    std::string code;
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 5, {"onednn"}, &code), 1e-4, "onednn"));
    QVERIFY2(code.find("layer_normalization_forward") != std::string::npos, code.c_str());
  }

  // dcw optimize's pipeline applies it: PyTorch's opset-13 export ends with one LayerNormalization
  // and no decomposed norm left.
  void autoOptimizeFusesIt() {
    auto m = loadModel(controlflowDataFile("torch_layernorm_opset13.onnx"), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 3);
    edit::History h(*m);
    transforms::AutoOptimizeOptions o;
    o.expand = false;
    QVERIFY(transforms::autoOptimize(h, o));
    int others = 0;
    QVERIFY(onlyLayerNorm(*m, &others));
    for (auto* n : allNodes<LibraryNode>(*m))
      QVERIFY2(n->opType != "ReduceMean" && n->opType != "Sqrt" && n->opType != "Pow", n->label().c_str());
    QVERIFY(outputsClose(ref, runExpanded(*m, 3), 1e-4, "optimized"));
  }

  void refusesWhatComputesOtherNumbers_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("reason");
    QTest::newRow("epsilon after the Sqrt") << "layernorm_eps_outside.onnx" << "the epsilon is added after the Sqrt";
    QTest::newRow("mean over a middle axis") << "layernorm_middle_axis.onnx" << "the mean is over axes [1] of a rank-3 x, not over its last ones";
  }
  void refusesWhatComputesOtherNumbers() {
    QFETCH(QString, file);
    QFETCH(QString, reason);
    auto m = loadModel(controlflowDataFile(file.toStdString()), false);
    QVERIFY(m);
    QVERIFY(applicableMatches(*m, t).empty());
    const QString why = whyNot(t, labelledMatch(*m, "LayerNormFusion", "ln.ReduceMean", "mean_op", "mean", "ln.Sub", "sub"), *m);
    QVERIFY2(why.contains(reason), qPrintable(why));
  }
};

QTEST_APPLESS_MAIN(TestLayerNormFusion)
#include "tst_LayerNormFusion.moc"
