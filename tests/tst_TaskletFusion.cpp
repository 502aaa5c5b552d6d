// TaskletFusion: structure (one tasklet, the scalar intermediate gone and become a `let` local,
// clashing names renamed) and numbers (same outputs, compiled and run) on the producer -> scalar ->
// consumer pair MapFusion leaves inside a fused map, and on a top-level pair; refusals for an
// intermediate array and for a scalar read elsewhere.
#include "support/SdfgFixtures.h"

#include "core/expansions/Expansion.h"
#include "core/expansions/SdfgBuilder.h"
#include "core/ir/Tasklet.h"
#include "transforms/catalogue/MapFusion.h"
#include "transforms/catalogue/TaskletFusion.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

// X -> map { a = 2x + 1 } -> T[i] -> map { y = sigmoid(t) * x + j1 } -> Y, then MapFusion (no history).
std::unique_ptr<Sdfg> fusedMap() {
  auto m = buildSdfg([&](expansions::SdfgBuilder& b) {
    Sdfg& s = b.sdfg();
    addArg(s, "X", {4, 6}, true);
    addArg(s, "Y", {4, 6}, false);
    std::string t = b.transient("T", DType::Float32, {4, 6});
    b.mappedTasklet("produce", expansions::fullRangeParams({4, 6}), {{"x", "X", "i0, i1"}}, "a = x * 2 + 1",
                    {{"a", t, "i0, i1", ""}});
    b.mappedTasklet("consume", expansions::fullRangeParams({4, 6}, "j"), {{"t", t, "j0, j1"}, {"x", "X", "j0, j1"}},
                    "y = sigmoid(t) * x + float32(j1)", {{"y", "Y", "j0, j1", ""}});
  });
  auto ms = transforms::enumerateMatches(transforms::MapFusion(), *m);
  if (ms.size() != 1) return nullptr;
  edit::Editor ed(*m);
  if (!transforms::MapFusion().apply(ms[0], ed)) return nullptr;
  return m;
}

transforms::Match matchOf(const Sdfg& s) {
  auto ms = transforms::enumerateMatches(transforms::TaskletFusion(), s);
  return ms.size() == 1 ? ms[0] : transforms::Match{};
}

} // namespace

class TestTaskletFusion : public QObject {
  Q_OBJECT
private slots:
  void mergesTheTaskletsOfAFusedMap() {
    auto m = fusedMap();
    QVERIFY(m);
    QCOMPARE(allNodes<Tasklet>(*m).size(), size_t(2));
    auto match = matchOf(*m);
    QVERIFY(!match.transformation.empty());
    transforms::TaskletFusion t;
    QVERIFY(t.canApply(match, *m, nullptr));
    QVERIFY(checkTransformation(*m, t, match));
    auto ts = allNodes<Tasklet>(*m);
    QCOMPARE(ts.size(), size_t(1));
    QVERIFY(!m->findData("T"));
    // The first's output is a local; the second's x (clashing with the first's x) is renamed.
    QVERIFY2(ts[0]->code.find("let a_value = x * 2 + 1") != std::string::npos, ts[0]->code.c_str());
    QVERIFY2(ts[0]->code.find("y = sigmoid(a_value) * x_2 + float32(i1)") != std::string::npos, ts[0]->code.c_str());
    QVERIFY(ts[0]->findIn("x") && ts[0]->findIn("x_2") && ts[0]->findOut("y") && !ts[0]->findOut("a"));
    State& st = *ts[0]->parent();
    QCOMPARE(st.inEdges(ts[0]->id()).size(), size_t(2));
    QCOMPARE(st.outEdges(ts[0]->id()).size(), size_t(1));
  }

  void mergesTopLevelTasklets() {
    auto m = buildSdfg([&](expansions::SdfgBuilder& b) {
      Sdfg& s = b.sdfg();
      addArg(s, "X", {3}, true);
      addArg(s, "Y", {1}, false);
      std::string t = b.transient("T", DType::Float32, {});
      b.mappedTasklet("produce", {}, {{"x", "X", "1"}}, "let u = x * x\na = u - 1", {{"a", t, "", ""}});
      b.mappedTasklet("consume", {}, {{"u", t, ""}, {"v", "X", "2"}}, "y = exp(u) + v", {{"y", "Y", "0", ""}});
    });
    QVERIFY(m);
    auto match = matchOf(*m);
    QVERIFY(!match.transformation.empty());
    QVERIFY(checkTransformation(*m, transforms::TaskletFusion(), match));
    auto ts = allNodes<Tasklet>(*m);
    QCOMPARE(ts.size(), size_t(1));
    // The second's connector u clashes with the first's local u: it reads the first's value instead.
    QVERIFY2(ts[0]->code.find("y = exp(a_value) + v") != std::string::npos, ts[0]->code.c_str());
  }

  void refusesArraysAndSharedScalars() {
    auto m = buildSdfg([&](expansions::SdfgBuilder& b) {
      Sdfg& s = b.sdfg();
      addArg(s, "X", {3}, true);
      addArg(s, "Y", {1}, false);
      std::string t = b.transient("T", DType::Float32, {3});
      b.mappedTasklet("produce", {}, {{"x", "X", "1"}}, "a = x * 2", {{"a", t, "0", ""}});
      b.mappedTasklet("consume", {}, {{"u", t, "0"}}, "y = u + 1", {{"y", "Y", "0", ""}});
    });
    Diagnostics why;
    QVERIFY(!transforms::TaskletFusion().canApply(matchOf(*m), *m, &why));
    QVERIFY2(QString::fromStdString(why.firstError()->message).contains("holds more than one element"),
             why.firstError()->message.c_str());

    auto m2 = buildSdfg([&](expansions::SdfgBuilder& b) {
      Sdfg& s = b.sdfg();
      addArg(s, "X", {3}, true);
      addArg(s, "Y", {1}, false);
      addArg(s, "Z", {1}, false);
      std::string t = b.transient("T", DType::Float32, {});
      b.mappedTasklet("produce", {}, {{"x", "X", "1"}}, "a = x * 2", {{"a", t, "", ""}});
      b.mappedTasklet("consume", {}, {{"u", t, ""}}, "y = u + 1", {{"y", "Y", "0", ""}});
      b.mappedTasklet("other", {}, {{"u", t, ""}}, "z = u - 1", {{"z", "Z", "0", ""}});
    });
    auto ms = transforms::enumerateMatches(transforms::TaskletFusion(), *m2);
    QCOMPARE(ms.size(), size_t(2));
    Diagnostics why2;
    QVERIFY(!transforms::TaskletFusion().canApply(ms[0], *m2, &why2));
    QVERIFY2(QString::fromStdString(why2.firstError()->message).contains("is also read by"), why2.firstError()->message.c_str());
  }
};

QTEST_APPLESS_MAIN(TestTaskletFusion)
#include "tst_TaskletFusion.moc"
