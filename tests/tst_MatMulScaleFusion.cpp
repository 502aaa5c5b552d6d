// MatMulScaleFusion: structure (the Div or Mul and the scaled operand are gone; the matmul is a FusedMatMul
// reading the unscaled operand, its alpha the scale), numbers (the unfused model's, through the pure
// expansion and through oneDNN's linear post-op, also with a bias-shaped Z added after the scale), exact
// undo/redo, the reason of each refusal, and auto-optimize's use of it (only where oneDNN runs the fused node).
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/AddFusion.h"
#include "transforms/catalogue/MatMulScaleFusion.h"

#include "core/ir/AccessNode.h"
#include "transforms/AutoOptimize.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

const std::string kModel = "scaled_matmuls.onnx";

transforms::Match matchAt(const Sdfg& m, const std::string& scale, const std::string& matmul) {
  return labelledMatch(m, "MatMulScaleFusion", scale, "scale", "scaled", matmul, "producer");
}

// The data read at the node's connector `conn`, or "".
std::string inputAt(const LibraryNode& n, const std::string& conn) {
  const State& st = *n.parent();
  for (auto* e : st.inEdges(n.id()))
    if (e->dstConnector == conn) return static_cast<AccessNode*>(st.node(e->src))->data();
  return {};
}

LibraryNode* node(const Sdfg& m, const std::string& label) { return static_cast<LibraryNode*>(m.allStates()[0]->nodeByLabel(label)); }

double alphaOf(const LibraryNode& n) {
  const Attribute* a = n.attribute("alpha");
  return a ? std::get<double>(a->value) : 1.0;
}

} // namespace

class TestMatMulScaleFusion : public QObject {
  Q_OBJECT
  transforms::MatMulScaleFusion t;

private slots:
  // Div(Q, 2.5) x K and S x Mul(0.5, V): each scale becomes the matmul's alpha.
  void foldsTheScales() {
    auto m = loadModel(controlflowDataFile(kModel), false);
    QVERIFY(m);
    auto ref = runExpanded(*m, 5);
    QVERIFY(!ref.empty());
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(2));
    std::vector<std::unique_ptr<edit::Command>> steps;
    steps.push_back(std::make_unique<ApplyDirect>(t, matchAt(*m, "div", "mm")));
    steps.push_back(std::make_unique<ApplyDirect>(t, matchAt(*m, "mul", "mm2")));
    QVERIFY(checkSteps(*m, std::move(steps), 0, /*numeric=*/false));
    LibraryNode* mm = node(*m, "mm");
    LibraryNode* mm2 = node(*m, "mm2");
    QVERIFY(mm && mm2);
    QCOMPARE(mm->className(), std::string("dcw::FusedMatMul"));
    QCOMPARE(mm2->className(), std::string("dcw::FusedMatMul"));
    QVERIFY(std::abs(alphaOf(*mm) - 0.4) < 1e-7);
    QCOMPARE(alphaOf(*mm2), 0.5);
    QCOMPARE(inputAt(*mm, "A"), std::string("Q"));
    QCOMPARE(inputAt(*mm2, "B"), std::string("V"));
    for (const char* gone : {"Qs", "Vs", "c25", "half"}) QVERIFY2(!m->findData(gone), gone);
    QVERIFY(!node(*m, "div") && !node(*m, "mul"));
    QVERIFY(outputsClose(ref, runExpanded(*m, 5), 1e-5, "pure"));
    std::string code;
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 5, {"onednn"}, &code), 1e-4, "onednn"));
    QVERIFY2(code.find("eltwise_linear, 0.4f, 0.0f") != std::string::npos && code.find("eltwise_linear, 0.5f, 0.0f") != std::string::npos,
             code.c_str());
    // The mask [4] after the scaled product: a post-op after the linear one (index 1), not the matmul's bias.
    auto add = applicableMatches(*m, transforms::AddFusion());
    QCOMPARE(add.size(), size_t(1));
    QVERIFY(applyNow(*m, transforms::AddFusion(), add[0]));
    QCOMPARE(inputAt(*node(*m, "mm"), "Z"), std::string("mask"));
    QVERIFY(outputsClose(ref, runExpanded(*m, 5), 1e-5, "pure, with the mask"));
    code.clear();
    QVERIFY(outputsClose(ref, runExpandedPreferring(*m, 5, {"onednn"}, &code), 1e-4, "onednn, with the mask"));
    QVERIFY2(code.find("DNNL_ARG_ATTR_MULTIPLE_POST_OP(1) | DNNL_ARG_SRC_1") != std::string::npos, code.c_str());
    QVERIFY2(code.find("DNNL_ARG_BIAS") == std::string::npos, code.c_str());
    // An alpha that is no float is named when the node is expanded.
    for (auto& a : node(*m, "mm")->attributes)
      if (a.name == "alpha") a.value = std::string("half");
    auto bad = expansions::expandAll(*m);
    QVERIFY(!bad);
    QVERIFY2(bad.error().message.find("attribute 'alpha' is not a float") != std::string::npos, bad.error().message.c_str());
  }

  void refusals() {
    auto m = loadModel(controlflowDataFile(kModel), false);
    QVERIFY(m);
    auto why = [&](const std::string& scale, const std::string& mm) { return whyNot(t, matchAt(*m, scale, mm), *m); };
    QVERIFY2(why("rdiv", "mm3").contains("the Div's divisor is not a float32 constant of one element"), qPrintable(why("rdiv", "mm3")));
    QVERIFY2(why("rowmul", "mm4").contains("the Mul is not a float32 constant of one element"), qPrintable(why("rowmul", "mm4")));
    QVERIFY2(why("shared", "mm5").contains("'R3' is read by more than the matmul's A or B"), qPrintable(why("shared", "mm5")));
  }

  // Auto-optimize folds both scales where oneDNN takes the fused matmuls, none under --prefer pure.
  void autoOptimizeFoldsWhereOnednnRunsIt() {
    for (bool pure : {false, true}) {
      auto m = loadModel(controlflowDataFile(kModel), false);
      QVERIFY(m);
      auto steps = autoOptimizedSteps(*m, {pure ? "pure" : "onednn"}, "MatMulScaleFusion");
      QVERIFY(steps);
      QCOMPARE(*steps, pure ? size_t(0) : size_t(2));
      QVERIFY(sameNumbersAsImported(controlflowDataFile(kModel), *m, 1e-4));
    }
  }
};

QTEST_GUILESS_MAIN(TestMatMulScaleFusion)
#include "tst_MatMulScaleFusion.moc"
