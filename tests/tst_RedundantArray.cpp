// RedundantArray and RedundantSecondArray: structure and numbers on SDFGs with copies between
// access nodes (whole arrays, regions with an offset, nested SDFG readers/writers from a real expanded
// ONNX model), exact undo/redo, and the refusals (non-transient, partial writes, reshaping copies,
// other readers).
#include "support/TransformTestSupport.h"
#include "core/ir/Tasklet.h"
#include "transforms/catalogue/RedundantArray.h"
#include "transforms/catalogue/RedundantSecondArray.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;
using sym::Expr;

namespace {

Subset S(const char* text) {
  auto s = Subset::parse(text);
  if (!s) qFatal("bad subset %s", text);
  return *s;
}
Memlet M(const std::string& data, const char* subset) { return Memlet::simple(data, S(subset)); }
Memlet copyM(const std::string& data, const char* subset, const char* other) {
  Memlet m = M(data, subset);
  m.otherSubset = S(other);
  return m;
}

// src -> map[i, j in ranges] { out = in * 2 + 1 } -> dst, reading src[in] and writing dst[out].
void mapped(State* st, AccessNode& src, const char* inner, const char* outerIn, AccessNode& dst, const char* innerOut,
            const char* outerOut, const char* ranges) {
  auto* me = st->add<MapEntry>("map");
  auto* mx = st->add<MapExit>("map_exit");
  me->params = {"i", "j"};
  me->range = S(ranges);
  me->exitId = mx->id();
  mx->entryId = me->id();
  auto* t = st->add<Tasklet>("affine", "y = x * 2 + 1");
  t->addIn({"x"});
  t->addOut({"y"});
  me->addIn({"IN_x"});
  me->addOut({"OUT_x"});
  mx->addIn({"IN_y"});
  mx->addOut({"OUT_y"});
  st->addEdge(src, "", *me, "IN_x", M(src.data(), outerIn));
  st->addEdge(*me, "OUT_x", *t, "x", M(src.data(), inner));
  st->addEdge(*t, "y", *mx, "IN_y", M(dst.data(), innerOut));
  st->addEdge(*mx, "OUT_y", dst, "", M(dst.data(), outerOut));
}

// X[4,6] -> map -> T[4,6] (transient) -> copy -> Y[yShape] (into `region` of Y).
std::unique_ptr<Sdfg> producerThenCopy(std::vector<Expr> yShape, const char* region) {
  auto s = std::make_unique<Sdfg>("main");
  s->addArray("X", DType::Float32, {4, 6});
  s->addArray("Y", DType::Float32, yShape);
  s->addArray("T", DType::Float32, {4, 6}, true);
  s->inputs = {"X"};
  s->outputs = {"Y"};
  State* st = s->addState("state0");
  auto* x = st->add<AccessNode>("X");
  auto* t = st->add<AccessNode>("T");
  auto* y = st->add<AccessNode>("Y");
  mapped(st, *x, "i, j", "0:4, 0:6", *t, "i, j", "0:4, 0:6", "0:4, 0:6");
  st->addEdge(*t, "", *y, "", copyM("T", "0:4, 0:6", region));
  return s;
}

// X[xShape] -> copy of `region` -> T[4,6] (transient) -> map -> Y[4,6].
std::unique_ptr<Sdfg> copyThenReader(std::vector<Expr> xShape, const char* region) {
  auto s = std::make_unique<Sdfg>("main");
  s->addArray("X", DType::Float32, xShape);
  s->addArray("Y", DType::Float32, {4, 6});
  s->addArray("T", DType::Float32, {4, 6}, true);
  s->inputs = {"X"};
  s->outputs = {"Y"};
  State* st = s->addState("state0");
  auto* x = st->add<AccessNode>("X");
  auto* t = st->add<AccessNode>("T");
  auto* y = st->add<AccessNode>("Y");
  st->addEdge(*x, "", *t, "", copyM("X", region, "0:4, 0:6"));
  mapped(st, *t, "i, j", "0:4, 0:6", *y, "i, j", "0:4, 0:6", "0:4, 0:6");
  return s;
}

AccessNode* accessOf(const Sdfg& s, const std::string& data) {
  for (State* st : s.allStates())
    for (auto& n : st->nodes())
      if (auto* a = dynamic_cast<AccessNode*>(n.get()); a && a->data() == data) return a;
  return nullptr;
}

transforms::Match pair(const char* name, const Node& in, const Node& out) {
  return {name, {{"in", pathOf(in)}, {"out", pathOf(out)}}, {}};
}

const DataflowEdge* edgeInto(const Sdfg& s, const Node& n) {
  auto e = s.allStates()[0]->inEdges(n.id());
  return e.size() == 1 ? e[0] : nullptr;
}

// The expanded test_relu model with the input copied into a transient first: X -> T -> Relu -> Y.
std::unique_ptr<Sdfg> reluAfterCopy() {
  auto m = loadModel(onnxCase("test_relu"));
  if (!m) return nullptr;
  State* st = m->allStates()[0];
  auto* relu = allNodes<NestedSdfgNode>(*m)[0];
  AccessNode* x = accessOf(*m, m->inputs[0]);
  DataDescriptor* xd = m->findData(m->inputs[0]);
  auto* t = m->addArray("T", xd->dtype, xd->shape, true);
  DataflowEdge* e = st->outEdges(x->id())[0];
  std::string conn = e->dstConnector;
  st->removeEdge(e->id());
  auto* tn = st->add<AccessNode>("T");
  Memlet c = Memlet::full(xd->name(), xd->shape);
  c.otherSubset = Subset::fullOf(t->shape);
  st->addEdge(*x, "", *tn, "", c);
  st->addEdge(*tn, "", *relu, conn, Memlet::full("T", t->shape));
  return m;
}

} // namespace

class TestRedundantArray : public QObject {
  Q_OBJECT
  transforms::RedundantArray first;
  transforms::RedundantSecondArray second;

private slots:
  void producerWritesDestination() {
    auto s = producerThenCopy({4, 6}, "0:4, 0:6");
    AccessNode* t = accessOf(*s, "T");
    QVERIFY(checkTransformation(*s, first, pair("RedundantArray", *t, *accessOf(*s, "Y"))));
    QVERIFY(!s->findData("T"));
    QVERIFY(!accessOf(*s, "T"));
    const DataflowEdge* into = edgeInto(*s, *accessOf(*s, "Y"));
    QVERIFY(into);
    QCOMPARE(s->allStates()[0]->node(into->src)->kind(), ElementKind::MapExit);
    QCOMPARE(into->memlet.str(), std::string("Y[0:4, 0:6]"));
    for (auto& e : s->allStates()[0]->edges()) QVERIFY(e->memlet.data != "T");
  }

  void producerWritesRegionWithOffset() {
    auto s = producerThenCopy({6, 8}, "1:5, 2:8");
    QVERIFY(checkTransformation(*s, first, pair("RedundantArray", *accessOf(*s, "T"), *accessOf(*s, "Y"))));
    State* st = s->allStates()[0];
    const DataflowEdge* into = edgeInto(*s, *accessOf(*s, "Y"));
    QCOMPARE(into->memlet.subset.str(), std::string("1:5, 2:8"));
    auto* mx = st->node(into->src);
    auto inner = st->inEdges(mx->id());
    QCOMPARE(inner.size(), size_t(1));
    QCOMPARE(inner[0]->memlet.subset.str(), std::string("i + 1, j + 2"));
  }

  void readersReadOriginal() {
    auto s = copyThenReader({4, 6}, "0:4, 0:6");
    QVERIFY(checkTransformation(*s, second, pair("RedundantSecondArray", *accessOf(*s, "X"), *accessOf(*s, "T"))));
    QVERIFY(!s->findData("T"));
    State* st = s->allStates()[0];
    auto outs = st->outEdges(accessOf(*s, "X")->id());
    QCOMPARE(outs.size(), size_t(1));
    QCOMPARE(st->node(outs[0]->dst)->kind(), ElementKind::MapEntry);
    QCOMPARE(outs[0]->memlet.str(), std::string("X[0:4, 0:6]"));
  }

  void readersReadRegionWithOffset() {
    auto s = copyThenReader({6, 8}, "2:6, 1:7");
    QVERIFY(checkTransformation(*s, second, pair("RedundantSecondArray", *accessOf(*s, "X"), *accessOf(*s, "T"))));
    State* st = s->allStates()[0];
    auto outs = st->outEdges(accessOf(*s, "X")->id());
    QCOMPARE(outs[0]->memlet.subset.str(), std::string("2:6, 1:7"));
    auto inner = st->outEdges(outs[0]->dst);
    QCOMPARE(inner.size(), size_t(1));
    QCOMPARE(inner[0]->memlet.subset.str(), std::string("i + 2, j + 1"));
  }

  void nestedSdfgReaderOfRealModel() {
    auto m = reluAfterCopy();
    QVERIFY(m);
    const std::string X = m->inputs[0]; // "x" in the ONNX test case
    // Both directions see the copy: T is transient and only copied from X (second), but T is not
    // written by a producer whose memlet could be moved onto X (first: X is not transient anyway).
    Diagnostics why;
    QVERIFY(!first.canApply(pair("RedundantArray", *accessOf(*m, X), *accessOf(*m, "T")), *m, &why));
    QVERIFY(QString::fromStdString(why.firstError()->message).contains(QString::fromStdString("'" + X + "' is not transient")));
    QCOMPARE(applicableMatches(*m, second).size(), size_t(1));
    QVERIFY(checkTransformation(*m, second, pair("RedundantSecondArray", *accessOf(*m, X), *accessOf(*m, "T"))));
    auto* relu = allNodes<NestedSdfgNode>(*m)[0];
    const DataflowEdge* into = edgeInto(*m, *relu);
    QVERIFY(into);
    QCOMPARE(into->memlet.data, X);
    QVERIFY(!m->findData("T"));
  }

  void refusals() {
    {
      // The copy moves only part of T.
      auto s = producerThenCopy({4, 6}, "0:4, 0:6");
      State* st = s->allStates()[0];
      auto* e = st->inEdges(accessOf(*s, "Y")->id())[0];
      e->memlet = copyM("T", "0:2, 0:6", "0:2, 0:6");
      Diagnostics why;
      QVERIFY(!first.canApply(pair("RedundantArray", *accessOf(*s, "T"), *accessOf(*s, "Y")), *s, &why));
      QVERIFY(QString::fromStdString(why.firstError()->message).contains("moves only part of 'T'"));
    }
    {
      // Y is not transient: the second array cannot go.
      auto s = producerThenCopy({4, 6}, "0:4, 0:6");
      Diagnostics why;
      QVERIFY(!second.canApply(pair("RedundantSecondArray", *accessOf(*s, "T"), *accessOf(*s, "Y")), *s, &why));
      QVERIFY(QString::fromStdString(why.firstError()->message).contains("'Y' is not transient"));
    }
    {
      // A reshaping copy (T[4,6] into Y[24]) is not redundant in this sense.
      auto s = producerThenCopy({24}, "0:24");
      Diagnostics why;
      QVERIFY(!first.canApply(pair("RedundantArray", *accessOf(*s, "T"), *accessOf(*s, "Y")), *s, &why));
      QVERIFY(QString::fromStdString(why.firstError()->message).contains("reshapes"));
    }
    {
      // T is read by a second reader besides the copy.
      auto s = producerThenCopy({4, 6}, "0:4, 0:6");
      s->addArray("Z", DType::Float32, {4, 6});
      s->outputs.push_back("Z");
      State* st = s->allStates()[0];
      auto* z = st->add<AccessNode>("Z");
      st->addEdge(*accessOf(*s, "T"), "", *z, "", copyM("T", "0:4, 0:6", "0:4, 0:6"));
      Diagnostics why;
      QVERIFY(!first.canApply(pair("RedundantArray", *accessOf(*s, "T"), *accessOf(*s, "Y")), *s, &why));
      QVERIFY(QString::fromStdString(why.firstError()->message).contains("read by more than the copy"));
    }
    {
      // A copy between host and GPU memory (GpuTransform's) is a transfer: neither array is redundant.
      auto s = producerThenCopy({4, 6}, "0:4, 0:6");
      s->findData("T")->storage = StorageType::GpuGlobal;
      Diagnostics why;
      QVERIFY(!first.canApply(pair("RedundantArray", *accessOf(*s, "T"), *accessOf(*s, "Y")), *s, &why));
      QVERIFY2(QString::fromStdString(why.firstError()->message).contains("from GPU memory to 'Y' in host memory: a transfer"),
               why.firstError()->message.c_str());
      auto r = copyThenReader({4, 6}, "0:4, 0:6");
      r->findData("T")->storage = StorageType::GpuGlobal;
      Diagnostics why2;
      QVERIFY(!second.canApply(pair("RedundantSecondArray", *accessOf(*r, "X"), *accessOf(*r, "T")), *r, &why2));
      QVERIFY2(QString::fromStdString(why2.firstError()->message).contains("memory: a transfer"), why2.firstError()->message.c_str());
    }
    {
      // The expanded ONNX models have no copies between access nodes at the top level.
      auto m = loadModel(onnxCase("test_reshape_reduced_dims"));
      QVERIFY(m);
      QVERIFY(applicableMatches(*m, first).empty());
    }
  }
};

QTEST_APPLESS_MAIN(TestRedundantArray)
#include "tst_RedundantArray.moc"
