// InlineNestedSDFG: structure (the nested SDFG node is gone, its maps and tasklets live in the outer
// state, its transients became outer transients) and numbers (same outputs) on expanded ONNX node
// models and on a generated two-op chain; refusals name their reason.
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/InlineNestedSDFG.h"
#include "transforms/catalogue/StateFusion.h"

#include "core/ir/AccessNode.h"
#include "core/ir/Tasklet.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

transforms::Match at(const Node& n) { return {"InlineNestedSDFG", {{"node", pathOf(n)}}, {}}; }

// Nested SDFG nodes directly in the root's states.
std::vector<NestedSdfgNode*> topNested(const Sdfg& s) {
  std::vector<NestedSdfgNode*> out;
  for (State* st : s.allStates())
    for (auto& n : st->nodes())
      if (auto* ns = dynamic_cast<NestedSdfgNode*>(n.get())) out.push_back(ns);
  return out;
}

size_t countKind(const State& st, ElementKind k) {
  size_t c = 0;
  for (auto& n : st.nodes()) c += n->kind() == k;
  return c;
}

} // namespace

class TestInlineNestedSDFG : public QObject {
  Q_OBJECT
  transforms::InlineNestedSDFG t;
  transforms::StateFusion fusion;

private slots:
  void inlinesRelu() {
    auto m = loadModel(onnxCase("test_relu"));
    QVERIFY(m);
    auto ns = topNested(*m);
    QCOMPARE(ns.size(), size_t(1));
    State* st = ns[0]->parent();
    QVERIFY(checkTransformation(*m, t, at(*ns[0])));
    QCOMPARE(topNested(*m).size(), size_t(0));
    QCOMPARE(countKind(*st, ElementKind::MapEntry), size_t(1));
    QCOMPARE(countKind(*st, ElementKind::Tasklet), size_t(1));
    // The map reads the model input x and writes the model output y directly.
    auto* me = allNodes<MapEntry>(*m)[0];
    auto in = st->inEdges(me->id());
    QCOMPARE(in.size(), size_t(1));
    auto* src = dynamic_cast<AccessNode*>(st->node(in[0]->src));
    QVERIFY(src);
    QCOMPARE(in[0]->memlet.data, src->data());
    QVERIFY(!m->findData(src->data())->transient);
  }

  void inlinesExpandedOps_data() {
    QTest::addColumn<QString>("name");
    for (const char* c : {"test_add_bcast", "test_matmul_2d", "test_softmax_axis_1", "test_conv_with_strides_padding"})
      QTest::newRow(c) << c;
  }
  void inlinesExpandedOps() {
    QFETCH(QString, name);
    auto m = loadModel(onnxCase(name.toStdString()));
    QVERIFY(m);
    auto ns = topNested(*m);
    QVERIFY(!ns.empty());
    // Multi-state expansions (MatMul, Conv: zero fill then accumulate; Softmax: four passes) are
    // first fused into one state.
    Sdfg& inner = ns[0]->sdfg();
    while (inner.blocks().size() > 1) {
      const ControlFlowBlock* first = inner.block(inner.startBlock());
      auto outs = inner.outEdges(first->id());
      QCOMPARE(outs.size(), size_t(1));
      transforms::Match f{"StateFusion", {{"first", pathOf(*first)}, {"second", pathOf(*inner.block(outs[0]->dst))}}, {}};
      Diagnostics whyF;
      if (!fusion.canApply(f, *m, &whyF)) QFAIL(whyF.firstError()->str().c_str());
      edit::Editor ed(*m);
      QVERIFY(fusion.apply(f, ed));
    }
    Diagnostics why;
    transforms::Match match = at(*ns[0]);
    if (!t.canApply(match, *m, &why)) QFAIL(why.firstError()->str().c_str());
    const size_t dataBefore = m->data().size();
    const size_t innerTransients = [&] {
      size_t k = 0;
      for (auto& d : ns[0]->sdfg().data()) k += d->transient;
      return k;
    }();
    const size_t innerMaps = allNodes<MapEntry>(ns[0]->sdfg()).size();
    QVERIFY(innerMaps >= 1);
    QVERIFY(checkTransformation(*m, t, match, 1e-4));
    QCOMPARE(m->data().size(), dataBefore + innerTransients);
    QCOMPARE(allNodes<MapEntry>(*m).size(), innerMaps);
    QCOMPARE(topNested(*m).size(), ns.size() - 1);
  }

  void inlinesTwoOpChain() {
    auto m = loadModel(controlflowDataFile("relu_add.onnx"));
    QVERIFY(m);
    auto ns = topNested(*m);
    QCOMPARE(ns.size(), size_t(2));
    std::vector<std::unique_ptr<edit::Command>> steps;
    for (auto* n : ns) steps.push_back(std::make_unique<ApplyDirect>(t, at(*n)));
    QVERIFY(checkSteps(*m, std::move(steps)));
    QCOMPARE(topNested(*m).size(), size_t(0));
    // Both maps now share the intermediate access node R: relu's map writes it, add's map reads it.
    State* st = m->allStates()[0];
    QCOMPARE(countKind(*st, ElementKind::MapEntry), size_t(2));
    AccessNode* r = nullptr;
    for (auto& n : st->nodes())
      if (auto* an = dynamic_cast<AccessNode*>(n.get()); an && m->findData(an->data())->transient) r = an;
    QVERIFY(r);
    QCOMPARE(st->inEdges(r->id()).size(), size_t(1));
    QCOMPARE(st->outEdges(r->id()).size(), size_t(1));
    QCOMPARE(st->node(st->inEdges(r->id())[0]->src)->kind(), ElementKind::MapExit);
    QCOMPARE(st->node(st->outEdges(r->id())[0]->dst)->kind(), ElementKind::MapEntry);
  }

  // A sweep of node models: fuse each expansion's states, then inline it; all steps together must
  // apply, keep the outputs, and undo/redo exactly.
  void sweep_data() {
    QTest::addColumn<QString>("name");
    for (const char* c : {"test_sigmoid", "test_gemm_default_matrix_bias", "test_reduce_mean_default_axes_keepdims_example",
                          "test_transpose_default", "test_concat_2d_axis_0", "test_maxpool_2d_default",
                          "test_batchnorm_example", "test_layer_normalization_2d_axis0", "test_where_example",
                          "test_gather_0", "test_averagepool_2d_default", "test_flatten_axis0",
                          "test_reshape_reordered_all_dims", "test_logsoftmax_axis_1", "test_instancenorm_example",
                          "test_lrn", "test_cast_FLOAT_to_DOUBLE", "test_clip", "test_expand_dim_changed",
                          "test_argmax_default_axis_example", "test_pow", "test_tile", "test_split_equal_parts_1d"})
      QTest::newRow(c) << c;
  }
  void sweep() {
    QFETCH(QString, name);
    auto m = loadModel(onnxCase(name.toStdString()));
    QVERIFY(m);
    std::vector<std::unique_ptr<edit::Command>> steps;
    for (auto* ns : topNested(*m)) {
      // Fusions into the first state (its path survives each fusion), then the inlining.
      Sdfg& inner = ns->sdfg();
      const ControlFlowBlock* first = inner.block(inner.startBlock());
      const ControlFlowBlock* cur = first;
      bool linear = true;
      while (true) {
        auto outs = inner.outEdges(cur->id());
        if (outs.empty()) break;
        if (outs.size() != 1 || !dynamic_cast<const State*>(inner.block(outs[0]->dst))) {
          linear = false;
          break;
        }
        cur = inner.block(outs[0]->dst);
        steps.push_back(std::make_unique<ApplyDirect>(
            fusion, transforms::Match{"StateFusion", {{"first", pathOf(*first)}, {"second", pathOf(*cur)}}, {}}));
      }
      QVERIFY2(linear, "the expansion's states are not a linear chain");
      steps.push_back(std::make_unique<ApplyDirect>(t, at(*ns)));
    }
    QVERIFY(!steps.empty());
    QVERIFY(checkSteps(*m, std::move(steps), 1e-4));
    QCOMPARE(topNested(*m).size(), size_t(0));
  }

  void refusesMultiStateAndNonNested() {
    // MatMul expands into two states (zero fill, then the accumulation).
    auto m = loadModel(onnxCase("test_matmul_2d"));
    QVERIFY(m);
    auto ns = topNested(*m);
    Diagnostics why;
    transforms::Match match = at(*ns[0]);
    QCOMPARE(ns[0]->sdfg().blocks().size(), size_t(2));
    QVERIFY(!t.canApply(match, *m, &why));
    QVERIFY(QString::fromStdString(why.firstError()->message).contains("only a single state can be inlined"));
    auto r = loadModel(onnxCase("test_relu"));
    auto* me = allNodes<MapEntry>(*r)[0];
    Diagnostics why2;
    QVERIFY(!t.canApply(at(*me), *r, &why2));
    QVERIFY(QString::fromStdString(why2.firstError()->message).contains("is not a nested SDFG node"));
  }

  void refusesPartialOuterMemlet() {
    auto m = loadModel(onnxCase("test_relu"));
    QVERIFY(m);
    auto* ns = topNested(*m)[0];
    State* st = ns->parent();
    auto* e = st->inEdges(ns->id())[0];
    // Narrow the outer memlet to half of the first dimension: the shapes no longer agree.
    edit::Editor ed(*m);
    Memlet narrowed = e->memlet;
    narrowed.subset.ranges()[0].end = sym::Expr(1);
    ed.set(*e, &DataflowEdge::memlet, narrowed);
    Diagnostics why;
    QVERIFY(!t.canApply(at(*ns), *m, &why));
    QVERIFY2(QString::fromStdString(why.firstError()->message).contains("does not have the shape of"),
             why.firstError()->message.c_str());
  }
};

QTEST_APPLESS_MAIN(TestInlineNestedSDFG)
#include "tst_InlineNestedSDFG.moc"
