// TrivialMapElimination: map dimensions with one iteration disappear (parameter replaced by the
// range begin in memlets and tasklet code); a map with no dimension left disappears entirely.
// Structure, numbers (same outputs, exact undo/redo) on real ONNX models, an ordering edge into a map
// that disappears, and refusals.
#include "support/SdfgFixtures.h"
#include "core/ir/Tasklet.h"
#include "transforms/catalogue/MapExpansion.h"
#include "transforms/catalogue/TrivialMapElimination.h"

#include <regex>

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

// Whether a memlet on an edge out of the map's entry or into its exit names the symbol.
bool mentions(const State& st, const MapEntry& me, const std::string& symbol) {
  std::vector<DataflowEdge*> edges = st.outEdges(me.id());
  for (auto* e : st.inEdges(me.exitId)) edges.push_back(e);
  for (auto* e : edges)
    if (e->memlet.subset.freeSymbols().count(symbol)) return true;
  return false;
}


} // namespace

class TestTrivialMapElimination : public QObject {
  Q_OBJECT
private slots:
  void removesOneDimension() {
    auto m = loadModel(onnxCase("test_softmax_axis_1"));
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "init_max_map");
    QVERIFY(me);
    QCOMPARE(me->params.size(), size_t(3));
    QCOMPARE(me->range[1].size(), sym::Expr(1));
    const auto params = me->params;
    transforms::TrivialMapElimination t;
    QVERIFY(checkTransformation(*m, t, {"TrivialMapElimination", {{"entry", pathOf(*me)}}, {}}));
    QCOMPARE(me->params, (std::vector<std::string>{params[0], params[2]}));
    QCOMPARE(me->range[0], (Range{0, 3, 1}));
    QCOMPARE(me->range[1], (Range{0, 5, 1}));
    QVERIFY(!mentions(*me->parent(), *me, params[1]));
  }

  void removesTheWholeMap() {
    auto m = loadModel(onnxCase("test_reduce_sum_default_axes_keepdims_example"));
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "init_map");
    QVERIFY(me);
    State* st = me->parent();
    const size_t mapsBefore = allNodes<MapEntry>(*m).size();
    transforms::TrivialMapElimination t;
    QVERIFY(checkTransformation(*m, t, {"TrivialMapElimination", {{"entry", pathOf(*me)}}, {}}));
    QCOMPARE(allNodes<MapEntry>(*m).size(), mapsBefore - 1);
    QVERIFY(!mapNamed(*m, "init_map"));
    // The tasklet now writes the output access node directly, at index 0.
    auto* init = dynamic_cast<Tasklet*>(st->nodeByLabel("init"));
    QVERIFY(init);
    auto outs = st->outEdges(init->id());
    QCOMPARE(outs.size(), size_t(1));
    QCOMPARE(st->node(outs[0]->dst)->kind(), ElementKind::AccessNode);
    for (auto& r : outs[0]->memlet.subset.ranges()) QCOMPARE(r.begin, sym::Expr(0));
    for (auto& n : st->nodes()) QVERIFY(n->kind() != ElementKind::MapExit || mapNamed(*m, n->label()));
  }

  // A map of one iteration that an ordering edge (an empty memlet) enters: the edge then orders the
  // body node on no connector, and each data connector keeps its one edge (Silero VAD's mean over one
  // value: the sum's map waits for the accumulator's initialisation).
  void orderingEdgeIntoTheMapOrdersItsBody() {
    // As dcw optimize has it: the mean's states fused (the ordering edge), then inlined.
    auto m = optimizedThrough(mapsDataPath("reduce_mean_1x1.onnx"), {"StateFusion", "InlineNestedSDFG"}, {"pure"});
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "reduce_map");
    QVERIFY(me);
    State* st = me->parent();
    bool ordering = false;
    for (auto* e : st->inEdges(me->id())) ordering = ordering || (e->memlet.isEmpty() && e->dstConnector.empty());
    QVERIFY(ordering);
    transforms::TrivialMapElimination t;
    QVERIFY(checkTransformation(*m, t, {"TrivialMapElimination", {{"entry", pathOf(*me)}}, {}}));
    auto* reduce = dynamic_cast<Tasklet*>(st->nodeByLabel("reduce"));
    QVERIFY(reduce);
    std::map<std::string, int> edgesOn;
    for (auto* e : st->inEdges(reduce->id())) ++edgesOn[e->dstConnector];
    QCOMPARE(edgesOn["x"], 1);
    QCOMPARE(edgesOn[""], 1); // the ordering edge from the accumulator
  }

  void substitutesInTaskletCode() {
    // EyeLike on 1x4: the row parameter iterates once and the tasklet reads it (select(i1 - i0 == 1, ...)).
    auto m = loadModel(mapsDataPath("eyelike_1x4.onnx"));
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "eye_map");
    QVERIFY(me);
    const std::string row = me->params[0];
    auto* eye = dynamic_cast<Tasklet*>(me->parent()->nodeByLabel("eye"));
    QVERIFY(eye);
    const std::regex word("\\b" + row + "\\b");
    QVERIFY(std::regex_search(eye->code, word));
    transforms::TrivialMapElimination t;
    QVERIFY(checkTransformation(*m, t, {"TrivialMapElimination", {{"entry", pathOf(*me)}}, {}}));
    QCOMPARE(me->params.size(), size_t(1));
    QVERIFY2(!std::regex_search(eye->code, word), eye->code.c_str());
    QVERIFY(!mentions(*me->parent(), *me, row));
  }

  void removesAnInnerMapOfANest() {
    // After MapExpansion of the 1x4 map, the outer map iterates once; removing it leaves the inner
    // map at top level with the row fixed to 0.
    auto m = loadModel(mapsDataPath("eyelike_1x4.onnx"));
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "eye_map");
    const std::string row = me->params[0];
    {
      transforms::MapExpansion x;
      transforms::Match mx{"MapExpansion", {{"entry", pathOf(*me)}}, {}};
      QVERIFY(x.canApply(mx, *m, nullptr));
      edit::Editor ed(*m);
      QVERIFY(bool(x.apply(mx, ed)));
    }
    MapEntry* outer = mapNamed(*m, "eye_map_" + row);
    QVERIFY(outer);
    transforms::TrivialMapElimination t;
    QVERIFY(checkTransformation(*m, t, {"TrivialMapElimination", {{"entry", pathOf(*outer)}}, {}}));
    QCOMPARE(allNodes<MapEntry>(*m).size(), size_t(1));
    QVERIFY(!mentions(*me->parent(), *me, row));
  }

  void refusals() {
    auto m = loadModel(onnxCase("test_relu"));
    QVERIFY(m);
    transforms::TrivialMapElimination t;
    Diagnostics why;
    QVERIFY(!t.canApply({"TrivialMapElimination", {{"entry", pathOf(*allNodes<MapEntry>(*m)[0])}}, {}}, *m, &why));
    QVERIFY(QString::fromStdString(why.firstError()->message).contains("no dimension of the map has exactly one iteration"));
    Diagnostics why2;
    QVERIFY(!t.canApply({"TrivialMapElimination", {{"entry", pathOf(*allNodes<NestedSdfgNode>(*m)[0])}}, {}}, *m, &why2));
    QVERIFY(QString::fromStdString(why2.firstError()->message).contains("is not a map entry"));
  }
};

QTEST_APPLESS_MAIN(TestTrivialMapElimination)
#include "tst_TrivialMapElimination.moc"
