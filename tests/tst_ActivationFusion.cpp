// ActivationFusion: structure (the activation and the producer's intermediate are gone; the producer
// is the dcw fused op with `activation` and `activation_params`, keeping its label), numbers (the fused
// model computes what the unfused one did, through the fused op's pure expansion and through oneDNN
// with post-ops), exact undo/redo, and the reason of each refusal, on generated ONNX models.
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/ActivationFusion.h"
#include "transforms/catalogue/AddFusion.h"

#include "core/expansions/ExpandPass.h"
#include "core/ir/AccessNode.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

transforms::Match matchAt(const Sdfg& m, const std::string& producer, const std::string& activation) {
  return labelledMatch(m, "ActivationFusion", producer, "producer", "output", activation, "activation");
}

std::string stringAttr(const LibraryNode& n, const char* name) {
  auto* a = n.attribute(name);
  auto* s = a ? std::get_if<std::string>(&a->value) : nullptr;
  return s ? *s : std::string();
}

std::vector<double> floatsAttr(const LibraryNode& n, const char* name) {
  auto* a = n.attribute(name);
  auto* v = a ? std::get_if<std::vector<double>>(&a->value) : nullptr;
  return v ? *v : std::vector<double>{};
}

// The fused model against the unfused reference: pure, then with oneDNN (whose code must hold every
// expected post-op algorithm).
bool sameNumbers(const Sdfg& fused, const std::vector<Tensor>& ref, const std::vector<std::string>& algorithms) {
  auto pure = runExpanded(fused, 5);
  if (pure.empty()) return false;
  auto d = codegen::compareOutputs(ref, pure);
  if (!d.mismatch.empty() || d.maxAbs > 1e-5) {
    qWarning("pure: %s max abs diff %g", d.mismatch.c_str(), d.maxAbs);
    return false;
  }
  std::string code;
  auto onednn = runExpandedPreferring(fused, 5, {"onednn"}, &code);
  if (onednn.empty()) return false;
  for (auto& a : algorithms)
    if (code.find("dnnl::algorithm::" + a) == std::string::npos || code.find("post-op") == std::string::npos) {
      qWarning("the oneDNN code has no %s post-op:\n%s", a.c_str(), code.c_str());
      return false;
    }
  d = codegen::compareOutputs(ref, onednn);
  if (!d.mismatch.empty() || d.maxAbs > 1e-4) {
    qWarning("onednn: %s max abs diff %g", d.mismatch.c_str(), d.maxAbs);
    return false;
  }
  return true;
}

} // namespace

class TestActivationFusion : public QObject {
  Q_OBJECT
  transforms::ActivationFusion t;

private slots:
  void fusesConvRelu() {
    auto m = loadModel(controlflowDataFile("conv_relu.onnx"), /*expand=*/false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    QVERIFY(!ref.empty());
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(1));
    QCOMPARE(matches[0], matchAt(*m, "conv", "relu"));
    QVERIFY(checkTransformation(*m, t, matches[0], 0, /*numeric=*/false));
    auto libs = allNodes<LibraryNode>(*m);
    QCOMPARE(libs.size(), size_t(1));
    LibraryNode* conv = libs[0];
    QCOMPARE(conv->domain, std::string("dcw"));
    QCOMPARE(conv->opType, std::string("FusedConv"));
    QCOMPARE(conv->label(), std::string("conv"));
    QCOMPARE(stringAttr(*conv, "activation"), std::string("Relu"));
    QVERIFY(!conv->attribute("activation_params"));
    QVERIFY(conv->attribute("pads")); // the Conv's own attributes stay
    QVERIFY(!m->findData("T"));
    State* st = conv->parent();
    auto outs = st->outEdges(conv->id());
    QCOMPARE(outs.size(), size_t(1));
    QCOMPARE(static_cast<AccessNode*>(st->node(outs[0]->dst))->data(), std::string("Y"));
    QVERIFY(sameNumbers(*m, ref, {"eltwise_relu"}));
  }

  // Every activation of the table on a depthwise, strided Conv; parameters from attributes and from
  // Clip's constant inputs (whose data goes away with the Clip).
  void fusesEveryActivation() {
    auto m = loadModel(controlflowDataFile("conv_activations.onnx"), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    QVERIFY(!ref.empty());
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(9));
    std::vector<std::unique_ptr<edit::Command>> steps;
    for (auto& match : matches) steps.push_back(std::make_unique<ApplyDirect>(t, match));
    QVERIFY(checkSteps(*m, std::move(steps), 0, /*numeric=*/false));
    std::map<std::string, std::vector<double>> params;
    for (auto* n : allNodes<LibraryNode>(*m)) {
      QCOMPARE(n->opType, std::string("FusedConv"));
      params[stringAttr(*n, "activation")] = floatsAttr(*n, "activation_params");
    }
    QCOMPARE(params.size(), size_t(9));
    QCOMPARE(params["LeakyRelu"], (std::vector<double>{0.2f}));
    QCOMPARE(params["Elu"], (std::vector<double>{0.7f}));
    QCOMPARE(params["HardSigmoid"], (std::vector<double>{0.3f, 0.4f}));
    QCOMPARE(params["Clip"], (std::vector<double>{0.0, 6.0}));
    QVERIFY(params["Relu"].empty() && params["Sigmoid"].empty() && params["HardSwish"].empty());
    QVERIFY(!m->findData("lo") && !m->findData("hi"));
    QVERIFY(sameNumbers(*m, ref,
                        {"eltwise_relu", "eltwise_elu", "eltwise_logistic", "eltwise_tanh", "eltwise_linear", "eltwise_clip_v2",
                         "eltwise_hardswish", "eltwise_soft_relu"}));
  }

  void fusesGemm() {
    auto m = loadModel(controlflowDataFile("gemm_hardswish.onnx"), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(1));
    QVERIFY(checkTransformation(*m, t, matches[0], 0, false));
    auto libs = allNodes<LibraryNode>(*m);
    QCOMPARE(libs.size(), size_t(1));
    QCOMPARE(libs[0]->className(), std::string("dcw::FusedGemm"));
    QVERIFY(libs[0]->attribute("transB"));
    QVERIFY(sameNumbers(*m, ref, {"eltwise_hardswish"}));
  }

  // A Gemm's own alpha and beta stay Gemm's in the fused op: its expansions scale as Gemm does (pure
  // with any values; oneDNN takes 1 and names the node otherwise).
  void fusedGemmKeepsGemmsAlphaAndBeta() {
    auto m = loadModel(controlflowDataFile("gemm_hardswish.onnx"), false);
    QVERIFY(m);
    auto* gemm = allNodes<LibraryNode>(*m).at(0);
    for (auto& a : gemm->attributes)
      if (a.name == "alpha") a.value = 0.5;
      else if (a.name == "beta") a.value = 2.0;
    auto ref = runExpanded(*m, 5);
    QVERIFY(!ref.empty());
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(1));
    QVERIFY(checkTransformation(*m, t, matches[0], 0, false));
    auto pure = runExpanded(*m, 5);
    QVERIFY(!pure.empty());
    auto d = codegen::compareOutputs(ref, pure);
    QVERIFY2(d.mismatch.empty() && d.maxAbs <= 1e-5, d.mismatch.c_str());
    allNodes<LibraryNode>(*m).at(0)->implementation = "onednn";
    auto onednn = expansions::expandAll(*m);
    QVERIFY(!onednn);
    QVERIFY2(onednn.error().message.find("onednn Gemm supports alpha = beta = 1; this node has alpha 0.500000, beta 2.000000") !=
                 std::string::npos,
             onednn.error().message.c_str());
  }

  // After AddFusion the fused op keeps Z and gets the activation after the sum: act(conv + Z).
  void fusesAfterTheSum() {
    auto m = loadModel(controlflowDataFile("conv_add_relu.onnx"), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    QVERIFY(applyNow(*m, transforms::AddFusion(), labelledMatch(*m, "AddFusion", "conv", "producer", "output", "add", "add")));
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(1));
    QCOMPARE(matches[0], matchAt(*m, "conv", "relu"));
    QVERIFY(checkTransformation(*m, t, matches[0], 0, false));
    auto libs = allNodes<LibraryNode>(*m);
    QCOMPARE(libs.size(), size_t(1));
    QCOMPARE(stringAttr(*libs[0], "activation"), std::string("Relu"));
    QVERIFY(graphHasZ(*libs[0]));
    QVERIFY(sameNumbers(*m, ref, {"eltwise_relu"}));
  }

  // DenseNet's BN -> Relu before a convolution: one FusedBatchNormalization, which oneDNN runs as one
  // batch normalization with fuse_norm_relu (no second pass over the tensor for the Relu).
  void fusesBatchNormRelu() {
    auto m = loadModel(controlflowDataFile("bn_relu_conv.onnx"), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    QVERIFY(!ref.empty());
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(1));
    QCOMPARE(matches[0], matchAt(*m, "bn", "relu"));
    QVERIFY(checkTransformation(*m, t, matches[0], 0, false));
    auto libs = allNodes<LibraryNode>(*m);
    QCOMPARE(libs.size(), size_t(2));
    LibraryNode* bn = libs[0]->opType == "Conv" ? libs[1] : libs[0];
    QCOMPARE(bn->className(), std::string("dcw::FusedBatchNormalization"));
    QCOMPARE(bn->label(), std::string("bn"));
    QCOMPARE(stringAttr(*bn, "activation"), std::string("Relu"));
    QVERIFY(bn->attribute("epsilon")); // the BN's own attributes stay
    QVERIFY(!m->findData("T"));
    QVERIFY(expansions::canExpand(*bn, "onednn"));
    auto pure = runExpanded(*m, 5);
    auto d = codegen::compareOutputs(ref, pure);
    QVERIFY2(d.mismatch.empty() && d.maxAbs <= 1e-5, qPrintable(QString::fromStdString(d.mismatch) + " " + QString::number(d.maxAbs)));
    std::string code;
    auto onednn = runExpandedPreferring(*m, 5, {"onednn"}, &code);
    QVERIFY(!onednn.empty());
    QVERIFY2(code.find("fuse_norm_relu") != std::string::npos, code.c_str());
    d = codegen::compareOutputs(ref, onednn);
    QVERIFY2(d.mismatch.empty() && d.maxAbs <= 1e-4, qPrintable(QString::fromStdString(d.mismatch) + " " + QString::number(d.maxAbs)));
  }

  // A BN ending in LeakyRelu fuses (pure computes it), but oneDNN's fused batch normalization takes
  // Relu alone and says so, naming the node.
  void batchNormLeakyReluIsPureOnly() {
    auto m = loadModel(controlflowDataFile("bn_leakyrelu.onnx"), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    QVERIFY(applyNow(*m, t, matchAt(*m, "bn", "leaky")));
    auto libs = allNodes<LibraryNode>(*m);
    QCOMPARE(libs.size(), size_t(1));
    QCOMPARE(stringAttr(*libs[0], "activation"), std::string("LeakyRelu"));
    auto refused = expansions::canExpand(*libs[0], "onednn");
    QVERIFY(!refused);
    const QString why = QString::fromStdString(refused.error().str());
    QVERIFY2(why.contains("bn") && why.contains("fuses Relu alone"), qPrintable(why));
    auto d = codegen::compareOutputs(ref, runExpanded(*m, 5));
    QVERIFY2(d.mismatch.empty() && d.maxAbs <= 1e-5, qPrintable(QString::fromStdString(d.mismatch)));
  }

  void refusesAResultTheModelReturns() {
    auto m = loadModel(controlflowDataFile("conv_relu_shared.onnx"), false);
    QVERIFY(m);
    QVERIFY(applicableMatches(*m, t).empty());
    QVERIFY2(whyNot(t, matchAt(*m, "conv", "relu"), *m).contains("is an output of the model"),
             qPrintable(whyNot(t, matchAt(*m, "conv", "relu"), *m)));
  }

  void refusesWhatIsNoActivation() {
    auto m = loadModel(controlflowDataFile("conv_add_relu.onnx"), false);
    QVERIFY(m);
    QVERIFY(applicableMatches(*m, t).empty());
    const QString why = whyNot(t, matchAt(*m, "conv", "add"), *m);
    QVERIFY2(why.contains("goes to Add, which is not an activation a fused op takes"), qPrintable(why));
  }

  void refusesASecondActivation() {
    auto m = loadModel(controlflowDataFile("conv_relu_add.onnx"), false);
    QVERIFY(m);
    QVERIFY(applyNow(*m, t, matchAt(*m, "conv", "relu")));
    // The fused conv now feeds the Add; AddFusion must refuse the sum after the activation.
    const QString why = whyNot(transforms::AddFusion(), labelledMatch(*m, "AddFusion", "conv", "producer", "output", "add", "add"), *m);
    QVERIFY2(why.contains("already ends with Relu"), qPrintable(why));
  }

  void refusesNonOnnxProducer() {
    auto m = loadModel(controlflowDataFile("relu_add.onnx"), false);
    QVERIFY(m);
    const QString why = whyNot(t, labelledMatch(*m, "ActivationFusion", "relu", "producer", "output", "add", "activation"), *m);
    QVERIFY2(why.contains("Relu has no fused form"), qPrintable(why));
  }

private:
  static bool graphHasZ(const LibraryNode& n) {
    for (auto* e : n.parent()->inEdges(n.id()))
      if (e->dstConnector == "Z") return true;
    return false;
  }
};

QTEST_APPLESS_MAIN(TestActivationFusion)
#include "tst_ActivationFusion.moc"
