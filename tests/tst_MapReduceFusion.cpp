// MapReduceFusion: structure (one map whose tasklets compute the value and accumulate it with the
// reduction's write-conflict resolution, the intermediate array gone) and numbers (same outputs,
// compiled and run) for sum and max reductions over rows, built as pure expansions write them (an
// initialising state, then producer and reduction maps in one state); refusals for an element-wise
// consumer and for a reduction reading a different element.
#include "support/SdfgFixtures.h"

#include "core/expansions/Expansion.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/ir/Tasklet.h"
#include "transforms/catalogue/MapReduceFusion.h"
#include "transforms/catalogue/ScopeTools.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

// S[i] = reduce_j f(X[i, j]) with the reduction `wcr` ("sum" or "max"); `readSubset` is what the
// reduction reads of the intermediate T (the same element: "i0, i1").
std::unique_ptr<Sdfg> rowReduction(const std::string& wcr, const std::string& readSubset = "i0, i1",
                                   const std::string& wcrOut = "") {
  return buildSdfg([&](expansions::SdfgBuilder& b) {
    Sdfg& s = b.sdfg();
    s.addArray("X", DType::Float32, {5, 7});
    s.addArray("S", DType::Float32, {5});
    s.inputs = {"X"};
    s.outputs = {"S"};
    std::string t = b.transient("T", DType::Float32, {5, 7});
    b.mappedTasklet("init", expansions::fullRangeParams({5}), {}, wcr == "max" ? "s = -inf" : "s = float32(0)",
                    {{"s", "S", "i0", ""}});
    b.nextState("reduce");
    b.mappedTasklet("square", expansions::fullRangeParams({5, 7}), {{"x", "X", "i0, i1"}},
                    wcr == "max" ? "a = sin(x) * float32(i1)" : "a = x * x", {{"a", t, "i0, i1", ""}});
    b.mappedTasklet("reduce", expansions::fullRangeParams({5, 7}), {{"v", t, readSubset}}, "r = v",
                    {{"r", "S", "i0", wcrOut.empty() ? wcr : wcrOut}});
  });
}

transforms::Match onlyMatch(const Sdfg& s) {
  auto ms = transforms::enumerateMatches(transforms::MapReduceFusion(), s);
  return ms.size() == 1 ? ms[0] : transforms::Match{};
}

} // namespace

class TestMapReduceFusion : public QObject {
  Q_OBJECT
private slots:
  void fusesASumOfSquares() {
    auto m = rowReduction("sum");
    QVERIFY(m);
    auto match = onlyMatch(*m);
    QVERIFY(!match.transformation.empty());
    transforms::MapReduceFusion t;
    QVERIFY(checkTransformation(*m, t, match, 1e-4));
    // The reduce state holds one map; T is a scalar; the accumulation keeps its WCR.
    State* reduce = nullptr;
    for (State* s : m->allStates())
      if (s->label() == "reduce") reduce = s;
    QVERIFY(reduce);
    std::vector<MapEntry*> maps;
    for (auto& n : reduce->nodes())
      if (auto* me = dynamic_cast<MapEntry*>(n.get())) maps.push_back(me);
    QCOMPARE(maps.size(), size_t(1));
    QCOMPARE(m->findData("T")->dataKind, DataKind::Scalar);
    auto* exit = transforms::scope::exitOf(*reduce, *maps[0]);
    auto outs = reduce->outEdges(exit->id());
    QCOMPARE(outs.size(), size_t(1));
    QCOMPARE(outs[0]->memlet.wcr, std::string("sum"));
    QCOMPARE(transforms::scope::nodesInside(*reduce, *maps[0]).size(), size_t(3)); // square, T, reduce
  }

  void fusesAMaxReduction() {
    auto m = rowReduction("max");
    QVERIFY(m);
    auto match = onlyMatch(*m);
    QVERIFY(!match.transformation.empty());
    QVERIFY(checkTransformation(*m, transforms::MapReduceFusion(), match));
    QCOMPARE(allNodes<MapEntry>(*m).size(), size_t(2)); // init + fused
  }

  void refusesNonReductionsAndOtherElements() {
    // An element-wise consumer (no WCR) is MapFusion's business.
    auto m = buildSdfg([&](expansions::SdfgBuilder& b) {
      Sdfg& s = b.sdfg();
      s.addArray("X", DType::Float32, {5});
      s.addArray("Y", DType::Float32, {5});
      s.inputs = {"X"};
      s.outputs = {"Y"};
      std::string t = b.transient("T", DType::Float32, {5});
      b.mappedTasklet("p", expansions::fullRangeParams({5}), {{"x", "X", "i0"}}, "a = x * x", {{"a", t, "i0", ""}});
      b.mappedTasklet("c", expansions::fullRangeParams({5}), {{"v", t, "i0"}}, "y = v + 1", {{"y", "Y", "i0", ""}});
    });
    Diagnostics why;
    QVERIFY(!transforms::MapReduceFusion().canApply(onlyMatch(*m), *m, &why));
    QVERIFY2(QString::fromStdString(why.firstError()->message).contains("is not a reduction"), why.firstError()->message.c_str());

    // The reduction reads a mirrored element: fusing would read a value not computed yet.
    auto m2 = rowReduction("sum", "i0, 6 - i1");
    Diagnostics why2;
    QVERIFY(!transforms::MapReduceFusion().canApply(onlyMatch(*m2), *m2, &why2));
    QVERIFY2(QString::fromStdString(why2.firstError()->message).contains("the same iteration must read what it wrote"),
             why2.firstError()->message.c_str());
  }
};

QTEST_APPLESS_MAIN(TestMapReduceFusion)
#include "tst_MapReduceFusion.moc"
