// SubgraphFusion: structure (the selected maps become one, connecting arrays become scalars) and
// numbers (same outputs, compiled and run) on a chain of three maps and on a diamond (two maps, one
// independent of the other, feeding a third), built as pure expansions write maps; refusals for a
// selection of one map, for unequal ranges and for a dependency outside the selection.
#include "support/SdfgFixtures.h"

#include "core/expansions/Expansion.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/ir/Tasklet.h"
#include "transforms/catalogue/ScopeTools.h"
#include "transforms/catalogue/SubgraphFusion.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

void args(Sdfg& s) {
  s.addArray("X", DType::Float32, {6, 5});
  s.addArray("Y", DType::Float32, {6, 5});
  s.inputs = {"X"};
  s.outputs = {"Y"};
}

// The selection of every map entry of the model (in state order), as the GUI would send it.
transforms::Match selectMaps(const Sdfg& s, const std::vector<std::string>& labels = {}) {
  transforms::Match m{"SubgraphFusion", {}, {}};
  int k = 0;
  for (auto* me : allNodes<MapEntry>(s))
    if (labels.empty() || std::find(labels.begin(), labels.end(), me->label()) != labels.end())
      m.elements["node" + std::to_string(k++)] = pathOf(*me);
  return m;
}

std::unique_ptr<Sdfg> chain3() {
  return buildSdfg([&](expansions::SdfgBuilder& b) {
    args(b.sdfg());
    std::string t1 = b.transient("T1", DType::Float32, {6, 5});
    std::string t2 = b.transient("T2", DType::Float32, {6, 5});
    auto p = expansions::fullRangeParams({6, 5});
    b.mappedTasklet("m0", p, {{"x", "X", "i0, i1"}}, "a = x * 3", {{"a", t1, "i0, i1", ""}});
    b.mappedTasklet("m1", expansions::fullRangeParams({6, 5}, "k"), {{"t", t1, "k0, k1"}, {"x", "X", "k0, k1"}},
                    "b = t - x * x", {{"b", t2, "k0, k1", ""}});
    b.mappedTasklet("m2", p, {{"t", t2, "i0, i1"}}, "y = tanh(t)", {{"y", "Y", "i0, i1", ""}});
  });
}

} // namespace

class TestSubgraphFusion : public QObject {
  Q_OBJECT
private slots:
  void fusesAChainOfThree() {
    auto m = chain3();
    QVERIFY(m);
    QCOMPARE(allNodes<MapEntry>(*m).size(), size_t(3));
    auto sel = selectMaps(*m);
    QCOMPARE(sel.elements.size(), size_t(3));
    transforms::SubgraphFusion t;
    QVERIFY(t.canApply(sel, *m, nullptr));
    QVERIFY(checkTransformation(*m, t, sel));
    auto maps = allNodes<MapEntry>(*m);
    QCOMPARE(maps.size(), size_t(1));
    QCOMPARE(m->findData("T1")->dataKind, DataKind::Scalar);
    QCOMPARE(m->findData("T2")->dataKind, DataKind::Scalar);
    State& st = *maps[0]->parent();
    QCOMPARE(transforms::scope::nodesInside(st, *maps[0]).size(), size_t(5)); // 3 tasklets, 2 scalars
    QCOMPARE(st.inEdges(maps[0]->id()).size(), size_t(1));                   // X enters once
    auto* m1 = dynamic_cast<Tasklet*>(st.nodeByLabel("m1"));
    QVERIFY(m1);
  }

  void fusesADiamond() {
    // m0: X -> T1, m1: X -> T2 (independent), m2: T1, T2 -> Y.
    auto m = buildSdfg([&](expansions::SdfgBuilder& b) {
      args(b.sdfg());
      std::string t1 = b.transient("T1", DType::Float32, {6, 5});
      std::string t2 = b.transient("T2", DType::Float32, {6, 5});
      auto p = expansions::fullRangeParams({6, 5});
      b.mappedTasklet("m0", p, {{"x", "X", "i0, i1"}}, "a = exp(x)", {{"a", t1, "i0, i1", ""}});
      b.mappedTasklet("m1", p, {{"x", "X", "i0, i1"}}, "a = x + float32(i0)", {{"a", t2, "i0, i1", ""}});
      b.mappedTasklet("m2", p, {{"u", t1, "i0, i1"}, {"v", t2, "i0, i1"}}, "y = u / (v + 10)", {{"y", "Y", "i0, i1", ""}});
    });
    QVERIFY(m);
    auto sel = selectMaps(*m);
    QVERIFY(checkTransformation(*m, transforms::SubgraphFusion(), sel));
    QCOMPARE(allNodes<MapEntry>(*m).size(), size_t(1));
    QCOMPARE(allNodes<Tasklet>(*m).size(), size_t(3));
  }

  void refusesBadSelections() {
    auto m = chain3();
    transforms::SubgraphFusion t;
    Diagnostics why;
    QVERIFY(!t.canApply(selectMaps(*m, {"m0_map"}), *m, &why));
    QVERIFY(QString::fromStdString(why.firstError()->message).contains("holds 1 map(s)"));
    // m0 and m2 without m1: m2 depends on m0 through m1, outside the selection.
    Diagnostics why2;
    QVERIFY(!t.canApply(selectMaps(*m, {"m0_map", "m2_map"}), *m, &why2));
    QVERIFY2(QString::fromStdString(why2.firstError()->message).contains("through a path outside the selection"),
             why2.firstError()->message.c_str());
    // Unequal ranges.
    auto u = buildSdfg([&](expansions::SdfgBuilder& b) {
      args(b.sdfg());
      std::string t1 = b.transient("T1", DType::Float32, {6, 5});
      b.mappedTasklet("m0", expansions::fullRangeParams({6, 5}), {{"x", "X", "i0, i1"}}, "a = x", {{"a", t1, "i0, i1", ""}});
      b.mappedTasklet("m1", expansions::fullRangeParams({6, 4}), {{"t", t1, "i0, i1"}}, "y = t", {{"y", "Y", "i0, i1", ""}});
    });
    Diagnostics why3;
    QVERIFY(!t.canApply(selectMaps(*u), *u, &why3));
    QVERIFY2(QString::fromStdString(why3.firstError()->message).contains("iteration space"), why3.firstError()->message.c_str());
  }
};

QTEST_APPLESS_MAIN(TestSubgraphFusion)
#include "tst_SubgraphFusion.moc"
