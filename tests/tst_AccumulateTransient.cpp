// AccumulateTransient on real ONNX models whose WCR maps were tiled first (MapTiling): MatMul's and
// ReduceSum's accumulations go through a local, identity-initialised buffer that is added to the
// output once per outer iteration; same outputs (partial tiles included), exact undo/redo, refusals.
#include "support/SdfgFixtures.h"
#include "core/ir/Tasklet.h"
#include "transforms/catalogue/AccumulateTransient.h"
#include "transforms/catalogue/MapTiling.h"
#include "transforms/catalogue/ScopeTools.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

transforms::Match at(const Sdfg& s, const std::string& innerLabel, const std::string& array = "") {
  MapEntry* inner = mapNamed(s, innerLabel);
  MapEntry* outer = mapNamed(s, innerLabel + "_tiles");
  const State& st = *inner->parent();
  return {"AccumulateTransient",
          {{"inner", pathOf(*transforms::scope::exitOf(st, *inner))}, {"outer", pathOf(*transforms::scope::exitOf(st, *outer))}},
          {{"array", array}}};
}

} // namespace

class TestAccumulateTransient : public QObject {
  Q_OBJECT
  transforms::AccumulateTransient t;

private slots:
  void matMulAccumulatesLocally() {
    auto m = loadModel(onnxCase("test_matmul_2d"));
    QVERIFY(m);
    QVERIFY(tile(*m, "matmul_map", "2"));
    QVERIFY(checkTransformation(*m, t, at(*m, "matmul_map")));
    const DataDescriptor* acc = dataIn(*m, "Y_acc");
    QVERIFY(acc && acc->transient);
    QCOMPARE(acc->shape, (std::vector<sym::Expr>{2, 2}));
    QCOMPARE(acc->storage, StorageType::CpuStack);
    MapEntry* inner = mapNamed(*m, "matmul_map");
    const State& st = *inner->parent();
    MapExit* ix = transforms::scope::exitOf(st, *inner);
    auto writes = st.inEdges(ix->id());
    QCOMPARE(writes.size(), size_t(1));
    QCOMPARE(writes[0]->memlet.str(), std::string("Y_acc[i0 - i0_tile, i1 - i1_tile] (CR: sum)"));
    // The initialising map writes the identity and runs before the inner map.
    MapEntry* init = mapNamed(*m, "Y_acc_init_map");
    QVERIFY(init);
    QCOMPARE(transforms::scope::enclosing(st, *init), mapNamed(*m, "matmul_map_tiles"));
    bool initTasklet = false;
    for (auto& n : st.nodes())
      if (auto* tk = dynamic_cast<Tasklet*>(n.get()); tk && tk->code == "o = 0.0") initTasklet = true;
    QVERIFY(initTasklet);
    // One WCR copy from the accumulator into Y.
    int copies = 0;
    for (auto& e : st.edges()) {
      auto* s = dynamic_cast<AccessNode*>(st.node(e->src));
      auto* d = dynamic_cast<AccessNode*>(st.node(e->dst));
      if (s && d && s->data() == "Y_acc" && d->data() == "Y" && e->memlet.wcr == "sum") ++copies;
    }
    QCOMPARE(copies, 1);
  }

  void reduceSumAccumulatesLocally() {
    auto m = loadModel(onnxCase("test_reduce_sum_keepdims_random"));
    QVERIFY(m);
    QVERIFY(tile(*m, "reduce_map", "2"));
    QVERIFY(checkTransformation(*m, t, at(*m, "reduce_map")));
    QVERIFY(dataIn(*m, "reduced_acc"));
  }

  void refusals() {
    auto relu = loadModel(onnxCase("test_relu"));
    QVERIFY(relu);
    const std::string label = allNodes<MapEntry>(*relu)[0]->label();
    QVERIFY(tile(*relu, label, "2"));
    Diagnostics why;
    QVERIFY(!t.canApply(at(*relu, label), *relu, &why));
    QVERIFY(QString::fromStdString(why.firstError()->message).contains("nothing with write-conflict resolution"));
    Diagnostics why2;
    QVERIFY(!t.canApply(at(*relu, label, "Y"), *relu, &why2));
    QVERIFY(QString::fromStdString(why2.firstError()->message).contains("without write-conflict resolution"));
  }
};

QTEST_APPLESS_MAIN(TestAccumulateTransient)
#include "tst_AccumulateTransient.moc"
