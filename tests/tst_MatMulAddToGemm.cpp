// MatMulAddToGemm: structure (one Gemm node with A, B, C and alpha = beta = 1 in place of MatMul,
// the product and Add) and numbers (the expanded model computes the same before and after) on
// generated ONNX models; refusals name their reason.
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/MatMulAddToGemm.h"

#include "core/ir/AccessNode.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

transforms::Match matchIn(const Sdfg& m) {
  return labelledMatch(m, "MatMulAddToGemm", "mm", "matmul", "product", "add", "add");
}

} // namespace

class TestMatMulAddToGemm : public QObject {
  Q_OBJECT
  transforms::MatMulAddToGemm t;

  void check(const std::string& file, const std::string& biasData) {
    auto m = loadModel(controlflowDataFile(file), /*expand=*/false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 11);
    QVERIFY(!ref.empty());
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(1));
    QCOMPARE(matches[0], matchIn(*m));
    const size_t dataBefore = m->data().size();
    QVERIFY(checkTransformation(*m, t, matches[0], 0, /*numeric=*/false));
    // Structure: one Gemm, no MatMul/Add, the product's data gone.
    auto libs = allNodes<LibraryNode>(*m);
    QCOMPARE(libs.size(), size_t(1));
    LibraryNode* g = libs[0];
    QCOMPARE(g->opType, std::string("Gemm"));
    QCOMPARE(g->opsetVersion, int64_t(13));
    QCOMPARE(g->attribute("alpha")->value, AttributeValue(1.0));
    QCOMPARE(g->attribute("beta")->value, AttributeValue(1.0));
    QCOMPARE(m->data().size(), dataBefore - 1);
    State* st = g->parent();
    std::map<std::string, std::string> in;
    for (auto* e : st->inEdges(g->id())) in[e->dstConnector] = static_cast<AccessNode*>(st->node(e->src))->data();
    QCOMPARE(in.size(), size_t(3));
    QCOMPARE(in["C"], biasData);
    QCOMPARE(st->outEdges(g->id()).size(), size_t(1));
    QCOMPARE(st->outEdges(g->id())[0]->srcConnector, std::string("Y"));
    // Numbers: the expanded Gemm computes what MatMul + Add computed.
    auto out = runExpanded(*m, 11);
    QVERIFY(!out.empty());
    auto d = codegen::compareOutputs(ref, out);
    QVERIFY2(d.mismatch.empty() && d.maxAbs < 1e-4, d.mismatch.c_str());
  }

private slots:
  void constantBias() { check("matmul_add.onnx", "bias"); }
  void inputBiasAsFirstOperand() { check("matmul_add_input_bias.onnx", "C"); }

  void refusesSharedProduct() {
    auto m = loadModel(controlflowDataFile("matmul_add_shared.onnx"), false);
    QVERIFY(m);
    Diagnostics why;
    QVERIFY(!t.canApply(matchIn(*m), *m, &why));
    QVERIFY2(QString::fromStdString(why.firstError()->message).contains("is an output of the model"),
             why.firstError()->message.c_str());
    QVERIFY(applicableMatches(*m, t).empty());
  }

  void refusesBatchedMatMul() {
    auto m = loadModel(controlflowDataFile("matmul3d_add.onnx"), false);
    QVERIFY(m);
    Diagnostics why3;
    QVERIFY(!t.canApply(matchIn(*m), *m, &why3));
    QVERIFY2(QString::fromStdString(why3.firstError()->message).contains("the MatMul is not 2-D"),
             why3.firstError()->message.c_str());
    QVERIFY(applicableMatches(*m, t).empty());
    auto add = loadModel(onnxCase("test_add"), false);
    Node* a = allNodes<LibraryNode>(*add)[0];
    State* st = a->parent();
    Node* x = st->node(st->inEdges(a->id())[0]->src);
    transforms::Match wrong{"MatMulAddToGemm", {{"matmul", pathOf(*a)}, {"product", pathOf(*x)}, {"add", pathOf(*a)}}, {}};
    Diagnostics why;
    QVERIFY(!t.canApply(wrong, *add, &why));
    QVERIFY(QString::fromStdString(why.firstError()->message).contains("is not an ONNX MatMul node"));
  }
};

QTEST_APPLESS_MAIN(TestMatMulAddToGemm)
#include "tst_MatMulAddToGemm.moc"
