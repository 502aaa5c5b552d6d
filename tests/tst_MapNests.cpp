// Map nest transformations of the "maps" group: StripMining, MapExpansion, MapCollapse and
// MapInterchange. Structure after each, numbers (same outputs before/after, undo/redo exact) on real
// ONNX node models expanded to pure maps, and the reasons given for refusals.
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/MapCollapse.h"
#include "transforms/catalogue/MapExpansion.h"
#include "transforms/catalogue/MapInterchange.h"
#include "transforms/catalogue/ScopeTools.h"
#include "transforms/catalogue/StripMining.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

} // namespace

class TestMapNests : public QObject {
  Q_OBJECT
private slots:
  void stripMinesTheLastDimension() {
    auto m = loadModel(onnxCase("test_add_bcast"));
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "add_map");
    QVERIFY(me);
    const auto params = me->params;
    transforms::StripMining t;
    QVERIFY(checkTransformation(*m, t, {"StripMining", {{"entry", pathOf(*me)}}, {{"size", "2"}}}));
    MapEntry* outer = mapNamed(*m, "add_map_strips");
    MapEntry* inner = mapNamed(*m, "add_map");
    QVERIFY(outer && inner);
    QCOMPARE(outer->params, std::vector<std::string>{params.back() + "_strip"});
    QCOMPARE(outer->range[0].step, sym::Expr(2));
    QCOMPARE(outer->range[0].end, sym::Expr(5));
    QCOMPARE(inner->params, params);
    QCOMPARE(inner->range[2].begin, sym::Expr::symbol(params.back() + "_strip"));
    QVERIFY(inner->range[2].end.str().find("min") != std::string::npos);
    QCOMPARE(inner->range[0], (Range{0, 3, 1})); // the other dimensions are untouched
    QCOMPARE(inner->schedule, Schedule::Sequential);
    QCOMPARE(allNodes<MapEntry>(*m).size(), size_t(2));
  }

  void stripMinesAReductionDimension() {
    auto m = loadModel(onnxCase("test_matmul_2d"));
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "matmul_map");
    QVERIFY(me);
    QCOMPARE(me->params.size(), size_t(3));
    transforms::StripMining t;
    // k runs 0:4; strips of 3 leave an uneven last strip, and the WCR sums cross strips.
    QVERIFY(checkTransformation(*m, t, {"StripMining", {{"entry", pathOf(*me)}}, {{"dim", "2"}, {"size", "3"}}}));
    MapEntry* outer = mapNamed(*m, "matmul_map_strips");
    QVERIFY(outer);
    QCOMPARE(outer->params, std::vector<std::string>{"k_strip"});
    QCOMPARE(outer->range[0], (Range{0, 4, 3}));
  }

  void stripMiningRefusals() {
    auto m = loadModel(onnxCase("test_add_bcast"));
    QVERIFY(m);
    const std::string p = pathOf(*mapNamed(*m, "add_map"));
    transforms::StripMining t;
    QVERIFY(whyNot(t, {"StripMining", {{"entry", p}}, {}}, *m).contains("already fits in one strip"));
    QVERIFY(whyNot(t, {"StripMining", {{"entry", p}}, {{"dim", "5"}, {"size", "2"}}}, *m).contains("is outside the map's 3 dimensions"));
    QVERIFY(whyNot(t, {"StripMining", {{"entry", p}}, {{"size", "1"}}}, *m).contains("at least 2"));
    QCOMPARE(whyNot(t, {"StripMining", {{"entry", p}}, {{"dim", "0"}, {"size", "2"}}}, *m), QString("applies"));
  }

  void expandsIntoANest() {
    auto m = loadModel(onnxCase("test_add_bcast"));
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "add_map");
    const auto params = me->params;
    const Schedule schedule = me->schedule;
    transforms::MapExpansion t;
    QVERIFY(checkTransformation(*m, t, {"MapExpansion", {{"entry", pathOf(*me)}}, {}}));
    MapEntry* a = mapNamed(*m, "add_map_" + params[0]);
    MapEntry* b = mapNamed(*m, "add_map_" + params[1]);
    MapEntry* c = mapNamed(*m, "add_map");
    QVERIFY(a && b && c);
    QCOMPARE(a->params, std::vector<std::string>{params[0]});
    QCOMPARE(b->params, std::vector<std::string>{params[1]});
    QCOMPARE(c->params, std::vector<std::string>{params[2]});
    QCOMPARE(a->schedule, schedule);
    QCOMPARE(b->schedule, Schedule::Sequential);
    QCOMPARE(c->schedule, Schedule::Sequential);
    const State& st = *a->parent();
    const MapEntry* found = nullptr;
    QVERIFY(transforms::scope::isPerfectNest(st, *a, &found) && found == b);
    QVERIFY(transforms::scope::isPerfectNest(st, *b, &found) && found == c);
    // A one-dimensional map cannot be expanded further.
    QVERIFY(whyNot(t, {"MapExpansion", {{"entry", pathOf(*c)}}, {}}, *m).contains("only one dimension"));
  }

  void collapsesWhatExpansionSplit() {
    auto m = loadModel(onnxCase("test_matmul_2d"));
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "matmul_map");
    const auto params = me->params; // i, j, k
    QVERIFY(applyNow(*m, transforms::MapExpansion{}, {"MapExpansion", {{"entry", pathOf(*me)}}, {}}));
    MapEntry* a = mapNamed(*m, "matmul_map_" + params[0]);
    MapEntry* b = mapNamed(*m, "matmul_map_" + params[1]);
    QVERIFY(a && b);
    transforms::MapCollapse t;
    // The outermost pair (i, j) of the nest i { j { k } } (k is a WCR reduction).
    QVERIFY(checkTransformation(*m, t, {"MapCollapse", {{"outer", pathOf(*a)}, {"inner", pathOf(*b)}}, {}}));
    QCOMPARE(a->params.size(), size_t(2));
    QCOMPARE(a->params, (std::vector<std::string>{params[0], params[1]}));
    QVERIFY(!mapNamed(*m, "matmul_map_" + params[1]));
    MapEntry* k = mapNamed(*m, "matmul_map");
    QVERIFY(k);
    QCOMPARE(k->params, std::vector<std::string>{"k"});
    const MapEntry* found = nullptr;
    QVERIFY(transforms::scope::isPerfectNest(*a->parent(), *a, &found) && found == k);
    QCOMPARE(allNodes<MapEntry>(*m).size(), size_t(3)); // Y_init_map, the collapsed map, k
    // The collapsed pair and k merge once more into the original three-dimensional map.
    QVERIFY(checkTransformation(*m, t, {"MapCollapse", {{"outer", pathOf(*a)}, {"inner", pathOf(*k)}}, {}}));
    QCOMPARE(a->params, params);
    QCOMPARE(allNodes<MapEntry>(*m).size(), size_t(2));
  }

  void interchangesTwoMaps() {
    auto m = loadModel(onnxCase("test_matmul_2d"));
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "matmul_map");
    const auto params = me->params; // i, j, k
    QVERIFY(applyNow(*m, transforms::MapExpansion{}, {"MapExpansion", {{"entry", pathOf(*me)}}, {}}));
    MapEntry* j = mapNamed(*m, "matmul_map_" + params[1]);
    MapEntry* k = mapNamed(*m, "matmul_map");
    QVERIFY(j && k);
    transforms::MapInterchange t;
    // j { k { ... } } becomes k { j { ... } }: the reduction loop moves outward.
    QVERIFY(checkTransformation(*m, t, {"MapInterchange", {{"outer", pathOf(*j)}, {"inner", pathOf(*k)}}, {}}));
    QCOMPARE(j->params, std::vector<std::string>{params[2]});
    QCOMPARE(k->params, std::vector<std::string>{params[1]});
    QCOMPARE(j->range[0], (Range{0, 4, 1}));
    QCOMPARE(k->range[0], (Range{0, 3, 1}));
    // The memlets between the two entries no longer name the old outer parameter.
    for (auto* e : j->parent()->outEdges(j->id())) QVERIFY(!e->memlet.subset.freeSymbols().count(params[1]));
  }

  void interchangeOnAnElementwiseNest() {
    auto m = loadModel(onnxCase("test_add_bcast"));
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "add_map");
    const auto params = me->params;
    QVERIFY(applyNow(*m, transforms::MapExpansion{}, {"MapExpansion", {{"entry", pathOf(*me)}}, {}}));
    MapEntry* a = mapNamed(*m, "add_map_" + params[0]);
    MapEntry* b = mapNamed(*m, "add_map_" + params[1]);
    transforms::MapInterchange t;
    QVERIFY(checkTransformation(*m, t, {"MapInterchange", {{"outer", pathOf(*a)}, {"inner", pathOf(*b)}}, {}}));
    QCOMPARE(a->params, std::vector<std::string>{params[1]});
    QCOMPARE(b->params, std::vector<std::string>{params[0]});
  }

  void nestRefusals() {
    auto m = loadModel(onnxCase("test_add_bcast"));
    QVERIFY(m);
    MapEntry* me = mapNamed(*m, "add_map");
    const auto params = me->params;
    QVERIFY(applyNow(*m, transforms::MapExpansion{}, {"MapExpansion", {{"entry", pathOf(*me)}}, {}}));
    MapEntry* a = mapNamed(*m, "add_map_" + params[0]);
    MapEntry* b = mapNamed(*m, "add_map_" + params[1]);
    MapEntry* c = mapNamed(*m, "add_map");
    transforms::MapInterchange xi;
    transforms::MapCollapse xc;
    // Not directly nested: a's body is b, not c.
    transforms::Match skip{"MapInterchange", {{"outer", pathOf(*a)}, {"inner", pathOf(*c)}}, {}};
    QVERIFY(whyNot(xi, skip, *m).contains("not a perfect nest"));
    skip.transformation = "MapCollapse";
    QVERIFY(whyNot(xc, skip, *m).contains("not a perfect nest"));
    // A triangular nest: the inner range depends on the outer parameter.
    {
      edit::Editor ed(*m);
      ed.set(*b, &MapEntry::range, Subset({Range{0, sym::Expr::symbol(params[0]) + 1, 1}}));
    }
    transforms::Match tri{"MapInterchange", {{"outer", pathOf(*a)}, {"inner", pathOf(*b)}}, {}};
    QVERIFY(whyNot(xi, tri, *m).contains("depends on the outer parameter " + QString::fromStdString(params[0])));
    tri.transformation = "MapCollapse";
    QVERIFY(whyNot(xc, tri, *m).contains("depends on the outer parameter"));
  }
};

QTEST_APPLESS_MAIN(TestMapNests)
#include "tst_MapNests.moc"
