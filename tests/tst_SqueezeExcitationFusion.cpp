// SqueezeExcitationFusion: structure (the scaled activation is gone; a Mul scales the projection's
// weights by the squeeze path's S; the Conv reads X), numbers before and after (pure, and oneDNN with
// the scaled weights reordered each run), both orders with AddFusion (ONNX Conv and dcw::FusedConv),
// exact undo/redo, auto-optimize applying it only where the weights are the smaller, and the refusals.
#include "support/SdfgFixtures.h"
#include "support/TransformTestSupport.h"
#include "transforms/AutoOptimize.h"
#include "transforms/catalogue/AddFusion.h"
#include "transforms/catalogue/SqueezeExcitationFusion.h"

#include "core/edit/History.h"
#include "core/ir/AccessNode.h"
#include "core/ir/Validate.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

class TestSqueezeExcitationFusion : public QObject {
  Q_OBJECT
  transforms::SqueezeExcitationFusion t;

  static std::string dataAt(const State& st, ElementId node) { return static_cast<const AccessNode*>(st.node(node))->data(); }

  // The node labelled `label` reads `data` at connector `conn`.
  static bool reads(const Sdfg& m, const std::string& label, const std::string& conn, const std::string& data) {
    const State& st = *m.allStates()[0];
    const Node* n = st.nodeByLabel(label);
    if (!n) return false;
    for (auto* e : st.inEdges(n->id()))
      if (e->dstConnector == conn) return dataAt(st, e->src) == data;
    return false;
  }

  // The one match of the fusion at the Mul "scale".
  transforms::Match scaleMatch(const Sdfg& m) { return labelledMatch(m, "SqueezeExcitationFusion", "scale", "mul", "scaled", "project", "conv"); }

private slots:
  void scalesTheWeightsInstead() {
    auto m = loadModel(controlflowDataFile("se_block.onnx"), /*expand=*/false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 7);
    QVERIFY(!ref.empty());
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(1));
    QCOMPARE(matches[0], scaleMatch(*m));
    QVERIFY(transforms::SqueezeExcitationFusion::weightsSmallerThanActivation(matches[0], *m)); // 8*8*9 < 8*12*10
    // Applied, undone and redone exactly (numbers below, through the expansions).
    QVERIFY(checkTransformation(*m, t, matches[0], 0, /*numeric=*/false));
    QVERIFY(!m->findData("T"));
    const DataDescriptor* ws = m->findData("W_scaled");
    QVERIFY(ws);
    QCOMPARE(ws->typeString(), std::string("float32[8, 8, 3, 3]"));
    QVERIFY(ws->transient);
    QVERIFY(reads(*m, "scale", "A", "W"));
    QVERIFY(reads(*m, "scale", "B", "S"));
    QVERIFY(reads(*m, "project", "X", "X"));
    QVERIFY(reads(*m, "project", "W", "W_scaled"));
    QVERIFY(validate(*m).firstError() == nullptr);
    QVERIFY(outputsClose(ref, runExpanded(*m, 7), 1e-5, "pure"));
    std::string code;
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 7, {"onednn"}, &code), 1e-4, "onednn"));
    QVERIFY2(code.find("dnnl::convolution_forward") != std::string::npos, code.c_str());
    // The residual Add still folds into the projection (a FusedConv reading the scaled weights).
    auto add = applicableMatches(*m, transforms::AddFusion());
    QCOMPARE(add.size(), size_t(1));
    QVERIFY(applyNow(*m, transforms::AddFusion(), add[0]));
    QVERIFY(reads(*m, "project", "W", "W_scaled"));
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 7, {"onednn"}), 1e-4, "onednn, residual fused"));
  }

  void appliesToAFusedConv() {
    auto m = loadModel(controlflowDataFile("se_block.onnx"), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 3);
    auto add = applicableMatches(*m, transforms::AddFusion());
    QCOMPARE(add.size(), size_t(1));
    QVERIFY(applyNow(*m, transforms::AddFusion(), add[0]));
    auto* project = dynamic_cast<LibraryNode*>(m->allStates()[0]->nodeByLabel("project"));
    QVERIFY(project);
    QCOMPARE(project->className(), std::string("dcw::FusedConv"));
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(1));
    QVERIFY(checkTransformation(*m, t, matches[0], 0, /*numeric=*/false));
    QVERIFY(reads(*m, "project", "X", "X"));
    QVERIFY(reads(*m, "project", "Z", "X"));
    QVERIFY(outputsClose(ref, runExpanded(*m, 3), 1e-5, "pure"));
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 3, {"onednn"}), 1e-4, "onednn"));
  }

  void refusals_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("why");
    QTest::newRow("another reader") << "se_block_shared.onnx" << "the scaled activation 'T' is used by other nodes than the Conv";
    QTest::newRow("groups") << "se_block_grouped.onnx" << "the Conv has 2 groups";
    QTest::newRow("a scale per image")
        << "se_block_per_image.onnx"
        << "the Mul's operands are not an activation float32[2, 8, 12, 10] and a scale per channel [1, 8, 1, ..] (the other operand is "
           "float32[2, 8, 1, 1])";
  }
  void refusals() {
    QFETCH(QString, file);
    QFETCH(QString, why);
    auto m = loadModel(controlflowDataFile(file.toStdString()), false);
    QVERIFY(m);
    QVERIFY(applicableMatches(*m, t).empty());
    const QString said = whyNot(t, scaleMatch(*m), *m);
    QVERIFY2(said.contains(why), qPrintable(said));
  }

  // Auto-optimize fuses where the weights are fewer than the activation elements, and not elsewhere.
  void autoOptimizeWhereItPays() {
    for (bool pays : {true, false}) {
      auto m = loadModel(controlflowDataFile("se_block.onnx"), false);
      QVERIFY(m);
      if (!pays) { // an activation of 8*12*10 = 960 elements against weights of 8*8*5*5 = 1600
        auto* W = m->findData("W");
        QVERIFY(W && W->constant);
        auto bigger = std::make_shared<Tensor>(*W->constant);
        bigger->dims = {8, 8, 5, 5};
        bigger->bytes = std::make_shared<const std::string>(size_t(8 * 8 * 25 * 4), '\0');
        W->constant = bigger;
        W->shape = {sym::Expr(8), sym::Expr(8), sym::Expr(5), sym::Expr(5)};
        W->strides = DataDescriptor::contiguousStrides(W->shape);
        auto* project = dynamic_cast<LibraryNode*>(m->allStates()[0]->nodeByLabel("project"));
        for (auto& a : project->attributes) {
          if (a.name == "kernel_shape") a.value = std::vector<int64_t>{5, 5};
          if (a.name == "pads") a.value = std::vector<int64_t>{2, 2, 2, 2};
        }
        QVERIFY(t.canApply(scaleMatch(*m), *m, nullptr));
        QVERIFY(!transforms::SqueezeExcitationFusion::weightsSmallerThanActivation(scaleMatch(*m), *m));
      }
      edit::History h(*m);
      transforms::AutoOptimizeOptions o;
      o.expand = false;
      o.prefer = {"onednn"};
      QVERIFY(transforms::autoOptimize(h, o));
      QCOMPARE(m->findData("T") == nullptr, pays);
      QCOMPARE(m->findData("W_scaled") != nullptr, pays);
      QVERIFY(validate(*m).firstError() == nullptr);
    }
  }
};

QTEST_APPLESS_MAIN(TestSqueezeExcitationFusion)
#include "tst_SqueezeExcitationFusion.moc"
