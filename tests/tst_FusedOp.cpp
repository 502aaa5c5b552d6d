// FusedOp: DCW's fused library ops (core/expansions/FusedOp.h) as the implementations see them — the
// pure expansion is the unfused subgraph as library nodes (base op, Add, activation, with their
// attributes) that expands on to maps and tasklets; both implementations are listed for every fused
// op; a fused node whose epilogue is malformed is refused by every implementation with a message that
// names the node; autodiff goes through a fused op as through the ops it replaced.
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/ActivationFusion.h"
#include "transforms/catalogue/AddFusion.h"

#include "core/expansions/FusedOp.h"
#include "core/expansions/Implementations.h"
#include "core/ir/AccessNode.h"
#include "transforms/autodiff/Autodiff.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

// conv_add_relu.onnx with the Conv, the Add and the Relu fused into one dcw::FusedConv.
std::unique_ptr<Sdfg> fusedConvModel() {
  auto m = loadModel(controlflowDataFile("conv_add_relu.onnx"), /*expand=*/false);
  if (!m) return nullptr;
  if (!applyNow(*m, transforms::AddFusion(), labelledMatch(*m, "AddFusion", "conv", "producer", "output", "add", "add"))) return nullptr;
  if (!applyNow(*m, transforms::ActivationFusion(), labelledMatch(*m, "ActivationFusion", "conv", "producer", "output", "relu", "activation")))
    return nullptr;
  return m;
}

LibraryNode* onlyLibraryNode(const Sdfg& s) {
  auto libs = allNodes<LibraryNode>(s);
  return libs.size() == 1 ? libs[0] : nullptr;
}

void setAttribute(LibraryNode& n, const std::string& name, AttributeValue v) {
  for (auto& a : n.attributes)
    if (a.name == name) {
      a.value = std::move(v);
      return;
    }
  n.attributes.push_back(Attribute{name, std::move(v)});
}

} // namespace

class TestFusedOp : public QObject {
  Q_OBJECT

private slots:
  void everyFusedOpHasPureAndOnednn() {
    for (auto& base : expansions::fused::bases()) {
      auto impls = expansions::registry().implementations("dcw", base.fused);
      // FusedConv also runs as oneDNN's Winograd convolution (the user's opt-in) and as cuDNN's fused
      // convolution on the CUDA target; FusedBatchNormalization as cuDNN's (then its ReLU).
      const std::vector<std::string> want = base.fused == "FusedConv" ? std::vector<std::string>{"pure", "onednn", "onednn_winograd", "cudnn"}
                                            : base.fused == "FusedBatchNormalization" ? std::vector<std::string>{"pure", "onednn", "cudnn"}
                                                                                      : std::vector<std::string>{"pure", "onednn"};
      QVERIFY2(impls == want, base.fused.c_str());
      QVERIFY(expansions::registry().find("", base.op, "pure"));
    }
    for (const char* op : {"Gelu", "Silu"})
      QCOMPARE(expansions::registry().implementations("dcw", op), (std::vector<std::string>{"pure", "onednn"}));
    QVERIFY(QString::fromStdString(expansions::alternativesText("dcw", "FusedConv")).contains("onednn (cpu, not differentiable)"));
    QVERIFY(QString::fromStdString(expansions::alternativesText("dcw", "FusedConv")).contains("cudnn (cuda, not differentiable)"));
  }

  // The pure expansion: Conv -> Add(., Z) -> Relu as library nodes in one state, then maps and tasklets.
  void pureExpansionIsTheUnfusedSubgraph() {
    auto m = fusedConvModel();
    QVERIFY(m);
    LibraryNode* fused = onlyLibraryNode(*m);
    QVERIFY(fused);
    QCOMPARE(fused->className(), std::string("dcw::FusedConv"));
    QVERIFY(expansions::expandNode(*m, fused->id(), "pure"));
    auto inner = allNodes<LibraryNode>(*m);
    std::map<std::string, const LibraryNode*> byOp;
    for (auto* n : inner) byOp[n->className()] = n;
    QCOMPARE(byOp.size(), size_t(3));
    QVERIFY(byOp.count("Conv") && byOp.count("Add") && byOp.count("Relu"));
    const LibraryNode& conv = *byOp["Conv"];
    QVERIFY(conv.attribute("kernel_shape"));
    QVERIFY(!conv.attribute("activation"));
    QCOMPARE(conv.opsetVersion, int64_t(11));
    // The Add reads the conv's result and Z; the Relu writes Y.
    const State& st = *conv.parent();
    const LibraryNode& add = *byOp["Add"];
    std::set<std::string> addIn;
    for (auto* e : st.inEdges(add.id())) addIn.insert(static_cast<AccessNode*>(st.node(e->src))->data());
    QVERIFY2(addIn.count("Z") && addIn.count("conv_out"), qPrintable(QString::number(addIn.size())));
    const LibraryNode& relu = *byOp["Relu"];
    QCOMPARE(static_cast<AccessNode*>(st.node(st.outEdges(relu.id())[0]->dst))->data(), std::string("Y"));
    QVERIFY(validate(*m).firstError() == nullptr);
    QVERIFY(expansions::expandAll(*m));
    QVERIFY(allNodes<LibraryNode>(*m).empty());
  }

  void activationParametersReachThePureActivation() {
    auto m = loadModel(controlflowDataFile("conv_activations.onnx"), false);
    QVERIFY(m);
    for (auto& match : applicableMatches(*m, transforms::ActivationFusion())) QVERIFY(applyNow(*m, transforms::ActivationFusion(), match));
    for (auto* n : allNodes<LibraryNode>(*m)) QVERIFY(expansions::expandNode(*m, n->id(), "pure"));
    std::map<std::string, std::vector<Attribute>> attrs;
    for (auto* n : allNodes<LibraryNode>(*m))
      if (n->opType != "Conv") attrs[n->opType] = n->attributes;
    QCOMPARE(attrs.size(), size_t(9));
    QCOMPARE(attrs["Clip"], (std::vector<Attribute>{{"min", 0.0}, {"max", 6.0}}));
    QCOMPARE(attrs["HardSigmoid"], (std::vector<Attribute>{{"alpha", double(0.3f)}, {"beta", double(0.4f)}}));
    QCOMPARE(attrs["LeakyRelu"], (std::vector<Attribute>{{"alpha", double(0.2f)}}));
    QVERIFY(attrs["Relu"].empty());
  }

  // The gradients of the fused model (through the pure expansion) equal the unfused model's.
  void differentiatesLikeTheUnfusedModel() {
    auto fused = fusedConvModel();
    auto plain = loadModel(controlflowDataFile("conv_add_relu.onnx"), false);
    QVERIFY(fused && plain);
    autodiff::Request req;
    req.of = {"Y"};
    req.wrt = {"X", "S", "W"};
    for (Sdfg* m : {fused.get(), plain.get()}) {
      edit::Editor ed(*m);
      auto r = autodiff::differentiate(ed, req);
      QVERIFY2(r, r ? "" : r.error().str().c_str());
      QCOMPARE(r->gradients, (std::vector<std::string>{"X_grad", "S_grad", "W_grad"}));
    }
    auto inputs = randomInputsFor(*plain, 3);
    auto a = runModel(*plain, inputs);
    auto b = runModel(*fused, inputs);
    QVERIFY(!a.empty() && a.size() == b.size());
    auto d = codegen::compareOutputs(a, b);
    QVERIFY2(d.mismatch.empty() && d.maxAbs < 1e-5, qPrintable(QString("%1 max abs diff %2").arg(d.mismatch.c_str()).arg(d.maxAbs)));
  }

  // oneDNN's post-ops add a broadcast Z only as a scalar or per channel; another broadcast is refused
  // naming the node and pointing to pure, which computes it.
  void onednnRefusesAZItCannotBroadcast() {
    auto m = loadModel(controlflowDataFile("conv_add_spatial.onnx"), false);
    QVERIFY(m);
    QVERIFY(applyNow(*m, transforms::AddFusion(), labelledMatch(*m, "AddFusion", "conv", "producer", "output", "add", "add")));
    LibraryNode* fused = nullptr;
    for (auto* n : allNodes<LibraryNode>(*m))
      if (n->opType == "FusedConv") fused = n;
    QVERIFY(fused);
    auto r = expansions::canExpand(*fused, "onednn");
    QVERIFY(!r);
    QVERIFY2(QString::fromStdString(r.error().str()).contains("main/state0/conv (dcw::FusedConv): onednn FusedConv adds a Z broadcast to Y only as "
                                                              "one value or one value per channel; Z is 1x1x4x5 for Y 1x2x4x5"),
             r.error().str().c_str());
    QVERIFY(QString::fromStdString(r.error().hint).contains("implementation=pure"));
    QVERIFY(expansions::canExpand(*fused, "pure"));
  }

  void malformedEpilogueIsRefusedNamingTheNode_data() {
    QTest::addColumn<QString>("activation");
    QTest::addColumn<QString>("params");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown activation") << "Swish" << "" << "unknown activation 'Swish'";
    QTest::newRow("too many parameters") << "LeakyRelu" << "0.1,0.2" << "LeakyRelu takes 1 activation_params, not 2";
    QTest::newRow("parameters without activation") << "" << "0.5" << "activation_params without an activation";
  }
  void malformedEpilogueIsRefusedNamingTheNode() {
    QFETCH(QString, activation);
    QFETCH(QString, params);
    QFETCH(QString, message);
    auto m = fusedConvModel();
    QVERIFY(m);
    LibraryNode* fused = onlyLibraryNode(*m);
    setAttribute(*fused, "activation", activation.toStdString());
    std::vector<double> p;
    for (auto& s : params.split(',', Qt::SkipEmptyParts)) p.push_back(s.toDouble());
    setAttribute(*fused, "activation_params", p);
    for (const char* impl : {"pure", "onednn"}) {
      auto r = expansions::canExpand(*fused, impl);
      QVERIFY(!r);
      const QString text = QString::fromStdString(r.error().str());
      QVERIFY2(text.contains(message) && text.contains("main/state0/conv (dcw::FusedConv)"), qPrintable(text));
    }
  }
};

QTEST_APPLESS_MAIN(TestFusedOp)
#include "tst_FusedOp.moc"
