// DeadDataflowElimination: a dead branch of a real (generated) ONNX model — U = neg(exp(X)), never
// used — goes away entirely (both nested SDFGs, both transients), the live output stays, outputs are
// unchanged, undo/redo are exact; refusals name their reason.
#include "support/TestPaths.h"
#include "support/TransformTestSupport.h"
#include "core/ir/Tasklet.h"
#include "transforms/catalogue/DeadDataflowElimination.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

std::string dataModel(const char* name) { return testpaths::source("/tests/data/transforms/data/") + name + ".onnx"; }

AccessNode* accessOf(const Sdfg& s, const std::string& data) {
  for (State* st : s.allStates())
    for (auto& n : st->nodes())
      if (auto* a = dynamic_cast<AccessNode*>(n.get()); a && a->data() == data) return a;
  return nullptr;
}

bool hasNode(const Sdfg& s, const std::string& label) {
  for (State* st : s.allStates())
    if (st->nodeByLabel(label)) return true;
  return false;
}

Memlet M(const std::string& data, const char* subset) { return Memlet::simple(data, *Subset::parse(subset)); }

// src → map[i=0:8] { out = in * 2 + 1 } → dst
void mapped(State* st, AccessNode& src, AccessNode& dst, const std::string& label) {
  auto* me = st->add<MapEntry>(label);
  auto* mx = st->add<MapExit>(label + "_exit");
  me->params = {"i"};
  me->range = *Subset::parse("0:8");
  me->exitId = mx->id();
  mx->entryId = me->id();
  auto* t = st->add<Tasklet>(label + "_t", "y = x * 2 + 1");
  t->addIn({"x"});
  t->addOut({"y"});
  me->addIn({"IN_x"});
  me->addOut({"OUT_x"});
  mx->addIn({"IN_y"});
  mx->addOut({"OUT_y"});
  st->addEdge(src, "", *me, "IN_x", M(src.data(), "0:8"));
  st->addEdge(*me, "OUT_x", *t, "x", M(src.data(), "i"));
  st->addEdge(*t, "y", *mx, "IN_y", M(dst.data(), "i"));
  st->addEdge(*mx, "OUT_y", dst, "", M(dst.data(), "0:8"));
}

// X → live map → Y;  X → map → D1 → map → D2, where D2 is never read (and D1 only feeds it).
std::unique_ptr<Sdfg> deadMaps() {
  auto s = std::make_unique<Sdfg>("main");
  s->addArray("X", DType::Float32, {8});
  s->addArray("Y", DType::Float32, {8});
  s->addArray("D1", DType::Float32, {8}, true);
  s->addArray("D2", DType::Float32, {8}, true);
  s->inputs = {"X"};
  s->outputs = {"Y"};
  State* st = s->addState("state0");
  auto* x = st->add<AccessNode>("X");
  auto* y = st->add<AccessNode>("Y");
  auto* d1 = st->add<AccessNode>("D1");
  auto* d2 = st->add<AccessNode>("D2");
  mapped(st, *x, *y, "live");
  mapped(st, *x, *d1, "dead1");
  mapped(st, *d1, *d2, "dead2");
  return s;
}

} // namespace

class TestDeadDataflowElimination : public QObject {
  Q_OBJECT
  transforms::DeadDataflowElimination t;
  transforms::Match at(const Node& n) { return {"DeadDataflowElimination", {{"access", pathOf(n)}}, {}}; }

private slots:
  void removesDeadBranch() {
    auto m = loadModel(dataModel("dead_branch"));
    QVERIFY(m);
    QVERIFY(hasNode(*m, "Exp_dead") && hasNode(*m, "Neg_dead"));
    QVERIFY(m->findData("T") && m->findData("U"));
    AccessNode* u = accessOf(*m, "U");
    QVERIFY(u);
    QVERIFY(checkTransformation(*m, t, at(*u)));
    QVERIFY(!hasNode(*m, "Exp_dead"));
    QVERIFY(!hasNode(*m, "Neg_dead"));
    QVERIFY(!m->findData("T"));
    QVERIFY(!m->findData("U"));
    QVERIFY(hasNode(*m, "Relu_live"));
    QVERIFY(accessOf(*m, "X") && accessOf(*m, "Y"));
    QCOMPARE(allNodes<NestedSdfgNode>(*m).size(), size_t(1));
  }

  void removesDeadMapScopes() {
    auto s = deadMaps();
    QVERIFY(checkTransformation(*s, t, at(*accessOf(*s, "D2"))));
    State* st = s->allStates()[0];
    QVERIFY(st->nodeByLabel("live") && st->nodeByLabel("live_t"));
    for (const char* gone : {"dead1", "dead1_t", "dead1_exit", "dead2", "dead2_t", "dead2_exit"}) QVERIFY2(!st->nodeByLabel(gone), gone);
    QVERIFY(!s->findData("D1") && !s->findData("D2"));
    QCOMPARE(st->nodes().size(), size_t(5)); // X, Y and the live map's entry, tasklet and exit
    QCOMPARE(st->outEdges(accessOf(*s, "X")->id()).size(), size_t(1));
  }

  void removesUnusedOutputsOfAnExpandedFunction() {
    // ONNX's function expansion of LayerNormalization computes values the test graph never uses.
    auto m = loadModel(onnxCase("test_layer_normalization_4d_axis_negative_1_expanded"));
    QVERIFY(m);
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(1));
    const size_t nodesBefore = allNodes<NestedSdfgNode>(*m).size();
    const size_t dataBefore = m->data().size();
    QVERIFY(checkTransformation(*m, t, matches[0], 1e-4));
    QVERIFY(allNodes<NestedSdfgNode>(*m).size() < nodesBefore);
    QVERIFY(m->data().size() < dataBefore);
    QVERIFY(applicableMatches(*m, t).empty());
  }

  void onlyTheDeadEndMatches() {
    auto m = loadModel(dataModel("dead_branch"));
    QVERIFY(m);
    auto matches = applicableMatches(*m, t);
    QCOMPARE(matches.size(), size_t(1));
    QVERIFY(matches[0].elements.at("access").find("/U") != std::string::npos);
  }

  void refusesLiveOrArgumentData() {
    auto m = loadModel(dataModel("dead_branch"));
    QVERIFY(m);
    Diagnostics why;
    QVERIFY(!t.canApply(at(*accessOf(*m, "Y")), *m, &why));
    QVERIFY(QString::fromStdString(why.firstError()->message).contains("is not transient"));
    Diagnostics why2;
    QVERIFY(!t.canApply(at(*accessOf(*m, "T")), *m, &why2));
    QVERIFY(QString::fromStdString(why2.firstError()->message).contains("'T' is read here"));
    auto relu = loadModel(onnxCase("test_relu"));
    QVERIFY(applicableMatches(*relu, t).empty());
  }
};

QTEST_APPLESS_MAIN(TestDeadDataflowElimination)
#include "tst_DeadDataflowElimination.moc"
