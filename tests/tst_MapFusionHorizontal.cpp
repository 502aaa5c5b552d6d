// MapFusionHorizontal: structure (one map writing every output, the shared input entering once) and
// numbers (same outputs, compiled and run) on real ONNX Split models expanded to pure maps (one map
// per output, all reading the input in one state); refusals for dependent maps and different ranges.
#include "support/SdfgFixtures.h"

#include "core/expansions/SdfgBuilder.h"
#include "core/ir/Tasklet.h"
#include "transforms/catalogue/MapFusionHorizontal.h"
#include "transforms/catalogue/ScopeTools.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

transforms::Match matchOf(const MapEntry& a, const MapEntry& b) {
  const State& st = *a.parent();
  for (auto* e : st.inEdges(a.id()))
    for (auto* f : st.inEdges(b.id()))
      if (e->src == f->src)
        return {"MapFusionHorizontal", {{"input", pathOf(*st.node(e->src))}, {"first", pathOf(a)}, {"second", pathOf(b)}}, {}};
  return {};
}

} // namespace

class TestMapFusionHorizontal : public QObject {
  Q_OBJECT
private slots:
  void fusesTwoSplitOutputs() {
    auto m = loadModel(onnxCase("test_split_equal_parts_2d"));
    QVERIFY(m);
    auto* a = mapNamed(*m, "split_map");
    auto* b = mapNamed(*m, "split_map_1");
    QVERIFY(a && b);
    auto match = matchOf(*a, *b);
    transforms::MapFusionHorizontal t;
    QVERIFY(t.canApply(match, *m, nullptr));
    QVERIFY(checkTransformation(*m, t, match));
    auto maps = allNodes<MapEntry>(*m);
    QCOMPARE(maps.size(), size_t(1));
    State& st = *maps[0]->parent();
    // The input enters once; both outputs leave the one exit; both tasklets are inside.
    QCOMPARE(st.inEdges(maps[0]->id()).size(), size_t(1));
    auto* exit = transforms::scope::exitOf(st, *maps[0]);
    QCOMPARE(st.outEdges(exit->id()).size(), size_t(2));
    QCOMPARE(transforms::scope::nodesInside(st, *maps[0]).size(), size_t(2));
  }

  void fusesThreeMapsInTwoSteps() {
    auto m = loadModel(onnxCase("test_split_equal_parts_1d"));
    QVERIFY(m);
    auto* a = mapNamed(*m, "split_map");
    auto* b = mapNamed(*m, "split_map_1");
    auto* c = mapNamed(*m, "split_map_2");
    QVERIFY(a && b && c);
    transforms::MapFusionHorizontal t;
    std::vector<std::unique_ptr<edit::Command>> steps;
    steps.push_back(std::make_unique<ApplyDirect>(t, matchOf(*a, *b)));
    steps.push_back(std::make_unique<ApplyDirect>(t, matchOf(*a, *c)));
    QVERIFY(checkSteps(*m, std::move(steps)));
    auto maps = allNodes<MapEntry>(*m);
    QCOMPARE(maps.size(), size_t(1));
    QCOMPARE(allNodes<Tasklet>(*m).size(), size_t(3));
  }

  void refusesDependentMapsAndDifferentRanges() {
    // X -> map { a = 2x } -> T -> map { y = t + x } -> Y: the second depends on the first.
    expansions::SdfgBuilder bld("dep", "test");
    Sdfg& s = bld.sdfg();
    s.addArray("X", DType::Float32, {8});
    s.addArray("Y", DType::Float32, {8});
    s.inputs = {"X"};
    s.outputs = {"Y"};
    std::string tr = bld.transient("T", DType::Float32, {8});
    bld.mappedTasklet("produce", expansions::fullRangeParams({8}), {{"x", "X", "i0"}}, "a = x * 2", {{"a", tr, "i0", ""}});
    bld.mappedTasklet("consume", expansions::fullRangeParams({8}), {{"t", tr, "i0"}, {"x", "X", "i0"}}, "y = t + x",
                      {{"y", "Y", "i0", ""}});
    auto m = bld.finish();
    QVERIFY(m);
    (*m)->reassignIds();
    auto* p = mapNamed(**m, "produce_map");
    auto* c = mapNamed(**m, "consume_map");
    QVERIFY(p && c);
    Diagnostics why;
    QVERIFY(!transforms::MapFusionHorizontal().canApply(matchOf(*p, *c), **m, &why));
    QVERIFY2(QString::fromStdString(why.firstError()->message).contains("one map depends on the other"),
             why.firstError()->message.c_str());

    // Split into unequal parts: the maps' ranges differ.
    auto v = loadModel(onnxCase("test_split_variable_parts_1d"));
    QVERIFY(v);
    auto ms = transforms::enumerateMatches(transforms::MapFusionHorizontal(), *v);
    QVERIFY(!ms.empty());
    Diagnostics why2;
    QVERIFY(!transforms::MapFusionHorizontal().canApply(ms[0], *v, &why2));
    QVERIFY(QString::fromStdString(why2.firstError()->message).contains("different iteration spaces"));
  }
};

QTEST_APPLESS_MAIN(TestMapFusionHorizontal)
#include "tst_MapFusionHorizontal.moc"
