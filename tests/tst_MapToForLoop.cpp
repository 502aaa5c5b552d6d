// MapToForLoop: structure (the map becomes a nested SDFG holding a loop region over the map
// parameter, with the body in one state) and numbers (same outputs) on an expanded ONNX node model
// with a one-dimensional map and on a map produced by LoopToMap (round trip); refusals name their
// reason.
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/LoopToMap.h"
#include "transforms/catalogue/MapToForLoop.h"

#include "core/ir/AccessNode.h"
#include "core/ir/Tasklet.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

transforms::Match at(const MapEntry& me) { return {"MapToForLoop", {{"entry", pathOf(me)}}, {}}; }

} // namespace

class TestMapToForLoop : public QObject {
  Q_OBJECT
  transforms::MapToForLoop t;

private slots:
  void oneDimensionalOnnxMap() {
    auto m = loadModel(onnxCase("test_sigmoid_example"));
    QVERIFY(m);
    auto maps = allNodes<MapEntry>(*m);
    QCOMPARE(maps.size(), size_t(1));
    QCOMPARE(maps[0]->params.size(), size_t(1));
    const std::string param = maps[0]->params[0];
    const size_t nested = allNodes<NestedSdfgNode>(*m).size();
    QVERIFY(checkTransformation(*m, t, at(*maps[0])));
    QCOMPARE(allNodes<MapEntry>(*m).size(), size_t(0));
    auto ns = allNodes<NestedSdfgNode>(*m);
    QCOMPARE(ns.size(), nested + 1);
    // The new nested SDFG: one loop region over the parameter, its body one state with the tasklet.
    NestedSdfgNode* loopNode = nullptr;
    for (auto* n : ns)
      if (n->label().find("_loop") != std::string::npos) loopNode = n;
    QVERIFY(loopNode);
    Sdfg& in = loopNode->sdfg();
    QCOMPARE(in.blocks().size(), size_t(1));
    auto* loop = dynamic_cast<LoopRegion*>(in.blocks()[0].get());
    QVERIFY(loop);
    QCOMPARE(loop->loopVariable, param);
    QCOMPARE(loop->update, sym::Expr::symbol(param) + sym::Expr(1));
    QCOMPARE(loop->blocks().size(), size_t(1));
    auto* body = dynamic_cast<State*>(loop->blocks()[0].get());
    QVERIFY(body);
    size_t tasklets = 0;
    for (auto& n : body->nodes()) tasklets += n->kind() == ElementKind::Tasklet;
    QCOMPARE(tasklets, size_t(1));
  }

  void roundTripWithLoopToMap() {
    auto m = loopModel("i, j", "i, j", "i, 0:5", "i, 0:5");
    auto ref = runModel(*m, randomInputsFor(*m, 3));
    QVERIFY(!ref.empty());
    transforms::LoopToMap l2m;
    {
      edit::Editor ed(*m);
      QVERIFY(l2m.apply({"LoopToMap", {{"loop", pathOf(*m->blocks()[0])}}, {}}, ed));
    }
    MapEntry* outer = nullptr;
    for (auto* me : allNodes<MapEntry>(*m))
      if (me->params == std::vector<std::string>{"i"}) outer = me;
    QVERIFY(outer);
    // The outer map holds the row map: the nested map moves into the loop body.
    QVERIFY(checkTransformation(*m, t, at(*outer)));
    auto ns = allNodes<NestedSdfgNode>(*m);
    QCOMPARE(ns.size(), size_t(1));
    auto* loop = dynamic_cast<LoopRegion*>(ns[0]->sdfg().blocks()[0].get());
    QVERIFY(loop);
    QCOMPARE(loop->loopVariable, std::string("i"));
    auto* body = static_cast<State*>(loop->blocks()[0].get());
    QVERIFY(dynamic_cast<MapEntry*>(body->nodeByLabel("row")));
    auto out = runModel(*m, randomInputsFor(*m, 3));
    auto d = codegen::compareOutputs(ref, out);
    QVERIFY(d.mismatch.empty() && d.maxAbs < 1e-6);
  }

  void refusesMultiDimensionalMap() {
    auto m = loadModel(onnxCase("test_relu"));
    QVERIFY(m);
    auto* me = allNodes<MapEntry>(*m)[0];
    QVERIFY(me->params.size() > 1);
    Diagnostics why;
    QVERIFY(!t.canApply(at(*me), *m, &why));
    QVERIFY(QString::fromStdString(why.firstError()->message).contains("only one-dimensional maps become loops"));
    QVERIFY(applicableMatches(*m, t).empty());
  }
};

QTEST_APPLESS_MAIN(TestMapToForLoop)
#include "tst_MapToForLoop.moc"
