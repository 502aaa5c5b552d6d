// LoopToMap: structure (the loop region becomes one state with a map over the loop variable around
// the body) and numbers (same outputs) on hand-built SDFGs with a LoopRegion (they compile and run
// through the CPU code generator); refusals name their reason.
#include "support/SdfgFixtures.h"
#include "transforms/catalogue/LoopToMap.h"
#include "transforms/catalogue/ScopeTools.h"

#include "core/ir/AccessNode.h"
#include "core/ir/Tasklet.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

transforms::Match at(const ControlFlowBlock& b) { return {"LoopToMap", {{"loop", pathOf(b)}}, {}}; }

} // namespace

class TestLoopToMap : public QObject {
  Q_OBJECT
  transforms::LoopToMap t;

private slots:
  void independentRowsBecomeAMap() {
    auto m = loopModel("i, j", "i, j", "i, 0:5", "i, 0:5");
    auto* loop = m->blocks()[0].get();
    QCOMPARE(applicableMatches(*m, t).size(), size_t(1));
    QVERIFY(checkTransformation(*m, t, at(*loop)));
    // The loop is gone: a state named like it, start block, leading to "done", with a map over i.
    QCOMPARE(m->blocks().size(), size_t(2));
    auto* st = dynamic_cast<State*>(m->block(m->startBlock()));
    QVERIFY(st);
    QCOMPARE(st->label(), std::string("rows"));
    QCOMPARE(m->outEdges(st->id()).size(), size_t(1));
    MapEntry* outer = nullptr;
    for (auto& n : st->nodes())
      if (auto* me = dynamic_cast<MapEntry*>(n.get()); me && me->params == std::vector<std::string>{"i"}) outer = me;
    QVERIFY(outer);
    QCOMPARE(outer->range.str(), std::string("0:4"));
    // The body's row map is nested inside the new map; X and Y stay outside it.
    auto inner = dynamic_cast<MapEntry*>(st->nodeByLabel("row"));
    QVERIFY(inner);
    QCOMPARE(transforms::scope::enclosing(*st, *inner), static_cast<const MapEntry*>(outer));
    QCOMPARE(transforms::scope::enclosing(*st, *st->nodeByLabel("X")), static_cast<const MapEntry*>(nullptr));
  }

  void refusesCrossIterationAccess() {
    // Every iteration writes row 0: the iterations are not independent.
    auto m = loopModel("i, j", "0, j", "i, 0:5", "0, 0:5");
    Diagnostics why;
    QVERIFY(!t.canApply(at(*m->blocks()[0]), *m, &why));
    QVERIFY2(QString::fromStdString(why.firstError()->message).contains("not at index i in any dimension"),
             why.firstError()->message.c_str());
  }

  void refusesNonUnitStep() {
    auto m = loopModel("i, j", "i, j", "i, 0:5", "i, 0:5", 2);
    Diagnostics why;
    QVERIFY(!t.canApply(at(*m->blocks()[0]), *m, &why));
    QVERIFY(QString::fromStdString(why.firstError()->message).contains("not i + 1"));
    QVERIFY(applicableMatches(*m, t).empty());
  }
};

QTEST_APPLESS_MAIN(TestLoopToMap)
#include "tst_LoopToMap.moc"
