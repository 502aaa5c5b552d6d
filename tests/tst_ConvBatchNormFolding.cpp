// ConvBatchNormFolding: structure (the BatchNormalization and the Conv's output are gone; the Conv
// reads new constant weights and a bias) and numbers (the expanded model computes the same before
// and after, within float32 rounding) on generated ONNX Conv + BatchNormalization models; refusals
// name their reason.
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/ConvBatchNormFolding.h"

#include "core/ir/AccessNode.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

transforms::Match matchIn(const Sdfg& m) {
  return labelledMatch(m, "ConvBatchNormFolding", "conv", "conv", "output", "bn", "bn");
}

} // namespace

class TestConvBatchNormFolding : public QObject {
  Q_OBJECT
  transforms::ConvBatchNormFolding t;

private slots:
  void folds_data() {
    QTest::addColumn<QString>("file");
    QTest::newRow("with bias") << "conv_bn.onnx";
    QTest::newRow("without bias, strided") << "conv_bn_nobias.onnx";
  }
  void folds() {
    QFETCH(QString, file);
    auto m = loadModel(controlflowDataFile(file.toStdString()), /*expand=*/false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    QVERIFY(!ref.empty());
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(1));
    QCOMPARE(matches[0], matchIn(*m));
    QVERIFY(checkTransformation(*m, t, matches[0], 0, /*numeric=*/false));
    auto libs = allNodes<LibraryNode>(*m);
    QCOMPARE(libs.size(), size_t(1));
    LibraryNode* conv = libs[0];
    QCOMPARE(conv->opType, std::string("Conv"));
    State* st = conv->parent();
    std::map<std::string, const DataDescriptor*> in;
    for (auto* e : st->inEdges(conv->id())) in[e->dstConnector] = m->findData(static_cast<AccessNode*>(st->node(e->src))->data());
    QCOMPARE(in.size(), size_t(3));
    QVERIFY(in["W"]->constant && in["W"]->name() == "W_folded");
    QVERIFY(in["B"]->constant);
    QCOMPARE(in["B"]->constant->dims, std::vector<int64_t>{4});
    // The BN parameters and the old weights are gone; the Conv writes the model output directly.
    for (const char* gone : {"scale", "beta", "mean", "var", "W", "C", "cb"}) QVERIFY2(!m->findData(gone), gone);
    auto outs = st->outEdges(conv->id());
    QCOMPARE(outs.size(), size_t(1));
    QCOMPARE(static_cast<AccessNode*>(st->node(outs[0]->dst))->data(), std::string("Y"));
    auto out = runExpanded(*m, 5);
    QVERIFY(!out.empty());
    auto d = codegen::compareOutputs(ref, out);
    QVERIFY2(d.mismatch.empty() && d.maxAbs < 1e-4, qPrintable(QString("max abs diff %1").arg(d.maxAbs)));
  }

  void refusesNonConstantScale() {
    auto m = loadModel(controlflowDataFile("conv_bn_input_scale.onnx"), false);
    QVERIFY(m);
    Diagnostics why;
    QVERIFY(!t.canApply(matchIn(*m), *m, &why));
    QVERIFY2(QString::fromStdString(why.firstError()->message).contains("the BatchNormalization's scale is not a constant"),
             why.firstError()->message.c_str());
  }

  void refusesTrainingMode() {
    auto m = loadModel(controlflowDataFile("conv_bn_training.onnx"), false);
    QVERIFY(m);
    Diagnostics why;
    QVERIFY(!t.canApply(matchIn(*m), *m, &why));
    QVERIFY2(QString::fromStdString(why.firstError()->message).contains("training mode"), why.firstError()->message.c_str());
    QVERIFY(applicableMatches(*m, t).empty());
  }
};

QTEST_APPLESS_MAIN(TestConvBatchNormFolding)
#include "tst_ConvBatchNormFolding.moc"
