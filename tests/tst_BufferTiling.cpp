// BufferTiling on a producer/consumer pair of maps through a transient array (built by hand: expanded
// ONNX models put each op in its own nested SDFG, so no two maps share a state there): the outer tile
// map, the tile-sized buffer on the stack, relative indices, the same outputs with partial tiles,
// exact undo/redo, and the refusals (neighbour reads, arguments, extra accesses).
#include "support/TransformTestSupport.h"
#include "core/ir/Tasklet.h"
#include "transforms/catalogue/BufferTiling.h"
#include "transforms/catalogue/ScopeTools.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

Subset S(const std::string& text) {
  auto s = Subset::parse(text);
  if (!s) qFatal("bad subset %s", text.c_str());
  return *s;
}
Memlet M(const std::string& data, const std::string& subset) { return Memlet::simple(data, S(subset)); }

struct Built {
  std::unique_ptr<Sdfg> sdfg;
  MapExit* firstExit;
  AccessNode* t;
  MapEntry* secondEntry;
};

// X[10,12] → map p { t = x * 2 + 1 } → T[10,12] → map q { y = t * <readT> + x } → Y[10,12].
// `readT` is the consumer's subset of T (in q0, q1).
Built build(const std::string& readT = "q0, q1", bool transientT = true) {
  Built b;
  b.sdfg = std::make_unique<Sdfg>("main");
  Sdfg& s = *b.sdfg;
  s.addArray("X", DType::Float32, {10, 12});
  s.addArray("Y", DType::Float32, {10, 12});
  s.addArray("T", DType::Float32, {10, 12}, transientT);
  s.inputs = {"X"};
  s.outputs = {"Y"};
  if (!transientT) s.outputs.push_back("T");
  State* st = s.addState("state0");
  auto* x = st->add<AccessNode>("X");
  auto* t = st->add<AccessNode>("T");
  auto* y = st->add<AccessNode>("Y");
  auto map = [&](const std::string& label, std::vector<std::string> params) {
    auto* me = st->add<MapEntry>(label);
    auto* mx = st->add<MapExit>(label + "_exit");
    me->params = std::move(params);
    me->range = S("0:10, 0:12");
    me->schedule = Schedule::CpuMulticore;
    me->exitId = mx->id();
    mx->entryId = me->id();
    return std::make_pair(me, mx);
  };
  auto [e1, x1] = map("produce", {"p0", "p1"});
  auto* t1 = st->add<Tasklet>("f", "t = x * 2 + 1");
  t1->addIn({"x"});
  t1->addOut({"t"});
  e1->addIn({"IN_x"});
  e1->addOut({"OUT_x"});
  x1->addIn({"IN_T"});
  x1->addOut({"OUT_T"});
  st->addEdge(*x, "", *e1, "IN_x", M("X", "0:10, 0:12"));
  st->addEdge(*e1, "OUT_x", *t1, "x", M("X", "p0, p1"));
  st->addEdge(*t1, "t", *x1, "IN_T", M("T", "p0, p1"));
  st->addEdge(*x1, "OUT_T", *t, "", M("T", "0:10, 0:12"));
  auto [e2, x2] = map("consume", {"q0", "q1"});
  auto* t2 = st->add<Tasklet>("g", "y = t * t + x");
  t2->addIn({"t"});
  t2->addIn({"x"});
  t2->addOut({"y"});
  e2->addIn({"IN_T"});
  e2->addOut({"OUT_T"});
  e2->addIn({"IN_x"});
  e2->addOut({"OUT_x"});
  x2->addIn({"IN_Y"});
  x2->addOut({"OUT_Y"});
  st->addEdge(*t, "", *e2, "IN_T", M("T", "0:10, 0:12"));
  st->addEdge(*e2, "OUT_T", *t2, "t", M("T", readT));
  st->addEdge(*x, "", *e2, "IN_x", M("X", "0:10, 0:12"));
  st->addEdge(*e2, "OUT_x", *t2, "x", M("X", "q0, q1"));
  st->addEdge(*t2, "y", *x2, "IN_Y", M("Y", "q0, q1"));
  st->addEdge(*x2, "OUT_Y", *y, "", M("Y", "0:10, 0:12"));
  b.firstExit = x1;
  b.t = t;
  b.secondEntry = e2;
  return b;
}

transforms::Match at(const Built& b, const std::string& tile) {
  return {"BufferTiling",
          {{"first_exit", pathOf(*b.firstExit)}, {"array", pathOf(*b.t)}, {"second_entry", pathOf(*b.secondEntry)}},
          {{"tile_size", tile}}};
}

} // namespace

class TestBufferTiling : public QObject {
  Q_OBJECT
  transforms::BufferTiling t;

private slots:
  void shrinksTheIntermediateToATile() {
    Built b = build();
    QCOMPARE(applicableMatches(*b.sdfg, t).size(), size_t(1));
    QVERIFY(checkTransformation(*b.sdfg, t, at(b, "4"))); // 10 = 4 + 4 + 2: a partial last tile
    Sdfg& s = *b.sdfg;
    QVERIFY(!s.findData("T"));
    const DataDescriptor* tile = s.findData("T_tile");
    QVERIFY(tile && tile->transient);
    QCOMPARE(tile->shape, (std::vector<sym::Expr>{4, 4}));
    QCOMPARE(tile->storage, StorageType::CpuStack);
    State& st = *s.allStates()[0];
    auto* outer = dynamic_cast<MapEntry*>(st.nodeByLabel("produce_consume_tiles"));
    QVERIFY(outer);
    QCOMPARE(outer->range.str(), std::string("0:10:4, 0:12:4"));
    QCOMPARE(outer->schedule, Schedule::CpuMulticore);
    auto* produce = dynamic_cast<MapEntry*>(st.nodeByLabel("produce"));
    auto* consume = dynamic_cast<MapEntry*>(st.nodeByLabel("consume"));
    QCOMPARE(transforms::scope::enclosing(st, *produce), outer);
    QCOMPARE(transforms::scope::enclosing(st, *consume), outer);
    QCOMPARE(produce->range[0].end.str(), std::string("min(p0_tile + 4, 10)"));
    QCOMPARE(consume->schedule, Schedule::Sequential);
    bool relative = false;
    for (auto& e : st.edges())
      if (e->memlet.data == "T_tile" && e->memlet.subset.str() == "q0 - p0_tile, q1 - p1_tile") relative = true;
    QVERIFY(relative);
    // The tile buffer's access node lies inside the tile loop.
    AccessNode* tn = nullptr;
    for (auto& n : st.nodes())
      if (auto* a = dynamic_cast<AccessNode*>(n.get()); a && a->data() == "T_tile") tn = a;
    QVERIFY(tn);
    QCOMPARE(transforms::scope::enclosing(st, *tn), outer);
  }

  void largerTilesThanTheArray() {
    Built b = build();
    QVERIFY(checkTransformation(*b.sdfg, t, at(b, "64")));
    QCOMPARE(b.sdfg->findData("T_tile")->shape, (std::vector<sym::Expr>{10, 12}));
  }

  void refusals() {
    {
      Built b = build("q0, min(q1 + 1, 11)"); // a neighbour: it may lie in the next tile
      Diagnostics why;
      QVERIFY(!t.canApply(at(b, "4"), *b.sdfg, &why));
      QVERIFY(QString::fromStdString(why.firstError()->message).contains("not at its own parameters"));
    }
    {
      Built b = build("q0, q1", false); // T is an output of the SDFG
      Diagnostics why;
      QVERIFY(!t.canApply(at(b, "4"), *b.sdfg, &why));
      QVERIFY(QString::fromStdString(why.firstError()->message).contains("'T' is not a transient array"));
    }
    {
      Built b = build();
      Diagnostics why;
      QVERIFY(!t.canApply(at(b, "0"), *b.sdfg, &why));
      QVERIFY(QString::fromStdString(why.firstError()->message).contains("tile_size must be at least 1"));
    }
  }
};

QTEST_APPLESS_MAIN(TestBufferTiling)
#include "tst_BufferTiling.moc"
