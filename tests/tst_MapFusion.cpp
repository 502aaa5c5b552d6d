// MapFusion: structure (one map left, the intermediate array turned into a scalar local to an
// iteration) and numbers (same outputs, compiled and run) on small SDFGs built with the expansion
// builder (two mapped tasklets in one state, as pure expansions write them) . (Expanded ONNX
// models put each op in its own nested SDFG and each expansion map in its own state, so none has a
// producer-consumer pair of maps in one state; a scan of all libonnx-testdata node models found none.)
#include "support/SdfgFixtures.h"

#include "core/expansions/Expansion.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/ir/Tasklet.h"
#include "transforms/catalogue/MapFusion.h"
#include "transforms/catalogue/ScopeTools.h"


using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

// The first structural match (x -> array -> entry) found in the model.
std::vector<transforms::Match> matches(const Sdfg& s) {
  return transforms::enumerateMatches(transforms::MapFusion(), s);
}

// X -> map i { a = x * 2 } -> T[i] -> map j { y = t + 1 (+ x) } -> Y ; the second map renames i to j.
std::unique_ptr<Sdfg> producerConsumer(bool secondReadsX, const std::string& secondSubset = "j0, j1") {
  return buildSdfg([&](expansions::SdfgBuilder& b) {
    Sdfg& s = b.sdfg();
    addArg(s, "X", {4, 6}, true);
    addArg(s, "Y", {4, 6}, false);
    std::string t = b.transient("T", DType::Float32, {4, 6});
    b.mappedTasklet("produce", expansions::fullRangeParams({4, 6}), {{"x", "X", "i0, i1"}}, "a = x * 2 + 1",
                    {{"a", t, "i0, i1", ""}});
    std::vector<expansions::TaskletIn> ins{{"t", t, secondSubset}};
    if (secondReadsX) ins.push_back({"x", "X", "j0, j1"});
    b.mappedTasklet("consume", expansions::fullRangeParams({4, 6}, "j"), ins,
                    secondReadsX ? "y = sigmoid(t) * x + float32(j1)" : "y = sigmoid(t) + float32(j1)", {{"y", "Y", "j0, j1", ""}});
  });
}

} // namespace

class TestMapFusion : public QObject {
  Q_OBJECT
private slots:
  void fusesProducerConsumer() {
    auto m = producerConsumer(false);
    QVERIFY(m);
    QCOMPARE(allNodes<MapEntry>(*m).size(), size_t(2));
    auto ms = matches(*m);
    QCOMPARE(ms.size(), size_t(1));
    transforms::MapFusion t;
    QVERIFY(t.canApply(ms[0], *m, nullptr));
    QVERIFY(checkTransformation(*m, t, ms[0]));
    // One map; T is a scalar written by the producer tasklet and read by the consumer inside it.
    auto maps = allNodes<MapEntry>(*m);
    QCOMPARE(maps.size(), size_t(1));
    QCOMPARE(maps[0]->params, (std::vector<std::string>{"i0", "i1"}));
    const DataDescriptor* d = m->findData("T");
    QVERIFY(d);
    QCOMPARE(d->dataKind, DataKind::Scalar);
    QVERIFY(d->transient);
    State& st = *m->allStates()[0];
    auto* local = dynamic_cast<AccessNode*>(st.nodeByLabel("T"));
    QVERIFY(local);
    auto in = st.inEdges(local->id());
    auto out = st.outEdges(local->id());
    QCOMPARE(in.size(), size_t(1));
    QCOMPARE(out.size(), size_t(1));
    QCOMPARE(st.node(in[0]->src)->label(), std::string("produce"));
    QCOMPARE(st.node(out[0]->dst)->label(), std::string("consume"));
    QCOMPARE(transforms::scope::enclosing(st, *local), static_cast<const MapEntry*>(maps[0]));
    // The consumer's code now uses the first map's parameter.
    auto* consume = dynamic_cast<Tasklet*>(st.nodeByLabel("consume"));
    QVERIFY(consume->code.find("i1") != std::string::npos);
    QVERIFY(consume->code.find("j1") == std::string::npos);
    // The scalar is allocated inside the loop (private to an iteration), after the loop header.
    auto ex = codegen::Executor::create(*m);
    QVERIFY(ex);
    const std::string& src = (*ex)->code().source;
    size_t loop = src.find("for (int64_t i1 = 0; i1 < 6");
    size_t decl = src.find("float T[1]");
    QVERIFY(loop != std::string::npos && decl != std::string::npos && decl > loop);
  }

  void sharesAnInputOfBothMaps() {
    auto m = producerConsumer(true);
    auto ms = matches(*m);
    QCOMPARE(ms.size(), size_t(1));
    transforms::MapFusion t;
    QVERIFY(checkTransformation(*m, t, ms[0]));
    auto maps = allNodes<MapEntry>(*m);
    QCOMPARE(maps.size(), size_t(1));
    // X enters the fused map once: the consumer reuses the producer's connector.
    State& st = *m->allStates()[0];
    QCOMPARE(st.inEdges(maps[0]->id()).size(), size_t(1));
  }

  void refusesShiftedAccess() {
    auto m = producerConsumer(false, "j0, 5 - j1");
    auto ms = matches(*m);
    QCOMPARE(ms.size(), size_t(1));
    Diagnostics why;
    QVERIFY(!transforms::MapFusion().canApply(ms[0], *m, &why));
    QVERIFY2(QString::fromStdString(why.firstError()->message).contains("the same iteration must read what it wrote"),
             why.firstError()->message.c_str());
  }

  void refusesNonTransientAndDifferentRanges() {
    // The intermediate is an output of the model: it must stay.
    auto m = buildSdfg([&](expansions::SdfgBuilder& b) {
      Sdfg& s = b.sdfg();
      addArg(s, "X", {8}, true);
      addArg(s, "T", {8}, false);
      addArg(s, "Y", {8}, false);
      b.mappedTasklet("produce", expansions::fullRangeParams({8}), {{"x", "X", "i0"}}, "a = x * 2", {{"a", "T", "i0", ""}});
      b.mappedTasklet("consume", expansions::fullRangeParams({8}), {{"t", "T", "i0"}}, "y = t + 1", {{"y", "Y", "i0", ""}});
    });
    auto ms = matches(*m);
    QCOMPARE(ms.size(), size_t(1));
    Diagnostics why;
    QVERIFY(!transforms::MapFusion().canApply(ms[0], *m, &why));
    QVERIFY(QString::fromStdString(why.firstError()->message).contains("is not transient"));

    auto m2 = buildSdfg([&](expansions::SdfgBuilder& b) {
      Sdfg& s = b.sdfg();
      addArg(s, "X", {8}, true);
      addArg(s, "Y", {4}, false);
      std::string t = b.transient("T", DType::Float32, {8});
      b.mappedTasklet("produce", expansions::fullRangeParams({8}), {{"x", "X", "i0"}}, "a = x * 2", {{"a", t, "i0", ""}});
      b.mappedTasklet("consume", expansions::fullRangeParams({4}), {{"t", t, "i0"}}, "y = t + 1", {{"y", "Y", "i0", ""}});
    });
    auto ms2 = matches(*m2);
    QCOMPARE(ms2.size(), size_t(1));
    Diagnostics why2;
    QVERIFY(!transforms::MapFusion().canApply(ms2[0], *m2, &why2));
    QVERIFY(QString::fromStdString(why2.firstError()->message).contains("different iteration spaces"));
  }
};

QTEST_APPLESS_MAIN(TestMapFusion)
#include "tst_MapFusion.moc"
