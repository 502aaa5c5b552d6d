// StateFusion: structure (one state less, reads of the first state's results hang off its write
// nodes, write-after-write ordered by an empty memlet, nested SDFGs moved whole) and numbers (same
// outputs) on hand-built two-state SDFGs and on the multi-state expansions of real ONNX node models;
// refusals name their reason.
#include "support/SdfgFixtures.h"
#include "support/TransformTestSupport.h"
#include "transforms/catalogue/StateFusion.h"

#include "core/ir/AccessNode.h"
#include "core/ir/Tasklet.h"

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::testsupport;

namespace {

transforms::Match fuse(const ControlFlowBlock& a, const ControlFlowBlock& b) {
  return {"StateFusion", {{"first", pathOf(a)}, {"second", pathOf(b)}}, {}};
}

std::unique_ptr<Sdfg> twoStates(bool conflicting) { return twoStateModel(conflicting); }

// twoStates(false) whose second state computes Y = T + 1 inside a nested SDFG (x -> map -> y).
std::unique_ptr<Sdfg> secondNested() {
  auto s = twoStates(false);
  auto* s2 = static_cast<State*>(s->blocks()[1].get());
  while (!s2->nodes().empty()) s2->removeNode(s2->nodes().front()->id());
  auto inner = std::make_unique<Sdfg>("plus_one");
  inner->addArray("x", DType::Float32, {4, 5});
  inner->addArray("y", DType::Float32, {4, 5});
  inner->inputs = {"x"};
  inner->outputs = {"y"};
  elementwise(inner->addState("compute"), "x", "y", "y = x + 1.0");
  auto* t = s2->add<AccessNode>("T");
  auto* y = s2->add<AccessNode>("Y");
  auto* ns = s2->add<NestedSdfgNode>("plus_one", std::move(inner));
  ns->addIn({"x"});
  ns->addOut({"y"});
  s2->addEdge(*t, "", *ns, "x", Memlet::simple("T", *Subset::parse("0:4, 0:5")));
  s2->addEdge(*ns, "y", *y, "", Memlet::simple("Y", *Subset::parse("0:4, 0:5")));
  return s;
}

NestedSdfgNode* firstNested(const Sdfg& s) {
  for (State* st : s.allStates())
    for (auto& n : st->nodes())
      if (auto* ns = dynamic_cast<NestedSdfgNode*>(n.get())) return ns;
  return nullptr;
}

// Matches fusing every state of a linear chain of states into the first one.
std::vector<transforms::Match> chainFusions(const Sdfg& s) {
  std::vector<transforms::Match> out;
  const ControlFlowBlock* first = s.block(s.startBlock());
  const ControlFlowBlock* cur = first;
  while (true) {
    auto outs = s.outEdges(cur->id());
    if (outs.size() != 1) break;
    cur = s.block(outs[0]->dst);
    out.push_back(fuse(*first, *cur));
  }
  return out;
}

} // namespace

class TestStateFusion : public QObject {
  Q_OBJECT
  transforms::StateFusion t;

private slots:
  void mergesReadAfterWrite() {
    auto m = twoStates(false);
    auto* s1 = static_cast<State*>(m->blocks()[0].get());
    auto* s2 = m->blocks()[1].get();
    QVERIFY(checkTransformation(*m, t, fuse(*s1, *s2)));
    QCOMPARE(m->blocks().size(), size_t(1));
    QCOMPARE(m->blocks()[0].get(), static_cast<ControlFlowBlock*>(s1));
    // One access node of T: written by the first map, read by the second.
    AccessNode* tNode = nullptr;
    int tNodes = 0;
    for (auto& n : s1->nodes())
      if (auto* an = dynamic_cast<AccessNode*>(n.get()); an && an->data() == "T") {
        tNode = an;
        ++tNodes;
      }
    QCOMPARE(tNodes, 1);
    QCOMPARE(s1->inEdges(tNode->id()).size(), size_t(1));
    QCOMPARE(s1->outEdges(tNode->id()).size(), size_t(1));
    QCOMPARE(s1->node(s1->outEdges(tNode->id())[0]->dst)->kind(), ElementKind::MapEntry);
  }

  void ordersWriteAfterWriteInMatMul() {
    // MatMul expands into a zero fill of Y, then a WCR accumulation into Y.
    auto m = loadModel(onnxCase("test_matmul_2d"));
    QVERIFY(m);
    auto* ns = firstNested(*m);
    Sdfg& in = ns->sdfg();
    QCOMPARE(in.blocks().size(), size_t(2));
    auto matches = chainFusions(in);
    QCOMPARE(matches.size(), size_t(1));
    QVERIFY(checkTransformation(*m, t, matches[0], 1e-4));
    QCOMPARE(in.blocks().size(), size_t(1));
    auto* st = static_cast<State*>(in.blocks()[0].get());
    int ordering = 0, yNodes = 0;
    for (auto& e : st->edges())
      if (e->memlet.isEmpty() && st->node(e->src)->kind() == ElementKind::AccessNode) {
        ++ordering;
        QCOMPARE(static_cast<AccessNode*>(st->node(e->src))->data(), std::string("Y"));
        QCOMPARE(st->node(e->dst)->kind(), ElementKind::MapEntry);
      }
    for (auto& n : st->nodes())
      if (auto* an = dynamic_cast<AccessNode*>(n.get()); an && an->data() == "Y") ++yNodes;
    QCOMPARE(ordering, 1);
    QCOMPARE(yNodes, 2);
  }

  void fusesExpandedStates_data() {
    QTest::addColumn<QString>("name");
    for (const char* c : {"test_softmax_axis_1", "test_conv_with_strides_padding", "test_gemm_default_matrix_bias",
                          "test_reduce_sum_default_axes_keepdims_example"})
      QTest::newRow(c) << c;
  }
  void fusesExpandedStates() {
    QFETCH(QString, name);
    auto m = loadModel(onnxCase(name.toStdString()));
    QVERIFY(m);
    auto* ns = firstNested(*m);
    QVERIFY(ns);
    auto matches = chainFusions(ns->sdfg());
    QVERIFY(!matches.empty());
    // Each match is valid once the previous one applied; each step is checked (numbers, undo, redo).
    for (auto& mt : matches) {
      Diagnostics why;
      if (!t.canApply(mt, *m, &why)) QFAIL(why.firstError()->str().c_str());
      QVERIFY(checkTransformation(*m, t, mt, 1e-4));
    }
    QCOMPARE(ns->sdfg().blocks().size(), size_t(1));
  }

  void refusesWriteAfterRead() {
    auto m = twoStates(true);
    Diagnostics why;
    QVERIFY(!t.canApply(fuse(*m->blocks()[0], *m->blocks()[1]), *m, &why));
    QVERIFY2(QString::fromStdString(why.firstError()->message).contains("overwrites 'T', which the first state reads"),
             why.firstError()->message.c_str());
  }

  void refusesConditionalEdge() {
    auto m = twoStates(false);
    m->addSymbol("N");
    edit::Editor ed(*m);
    ed.set(*m->edges()[0], &InterstateEdge::condition, sym::lt(sym::Expr::symbol("N"), sym::Expr(5)));
    Diagnostics why;
    QVERIFY(!t.canApply(fuse(*m->blocks()[0], *m->blocks()[1]), *m, &why));
    QVERIFY(QString::fromStdString(why.firstError()->message).contains("has a condition"));
    QCOMPARE(applicableMatches(*m, t).size(), size_t(0));
  }

  void movesNestedSdfg() {
    // The second state's computation is a nested SDFG: it moves (a deep copy) and reads the first's T.
    auto m = secondNested();
    auto* s1 = static_cast<State*>(m->blocks()[0].get());
    auto* s2 = static_cast<State*>(m->blocks()[1].get());
    const std::string innerBefore = serialize::toJson(firstNested(*m)->sdfg());
    QVERIFY(checkTransformation(*m, t, fuse(*s1, *s2)));
    QCOMPARE(m->blocks().size(), size_t(1));
    NestedSdfgNode* ns = firstNested(*m);
    QVERIFY(ns);
    QCOMPARE(ns->parent(), s1);
    QCOMPARE(ns->sdfg().parentNode(), static_cast<Node*>(ns));
    QCOMPARE(ns->sdfg().root(), m.get());
    // The nested SDFG's structure came over whole (its ids are fresh in the model).
    QCOMPARE(ns->sdfg().allStates().size(), size_t(1));
    QCOMPARE(ns->sdfg().allStates()[0]->nodes().size(), size_t(5));
    QCOMPARE(ns->sdfg().allStates()[0]->edges().size(), size_t(4));
    QVERIFY(serialize::toJson(ns->sdfg()) != innerBefore);
    // Its input hangs off the first state's (only) write of T.
    auto in = s1->inEdges(ns->id());
    QCOMPARE(in.size(), size_t(1));
    auto* tNode = dynamic_cast<AccessNode*>(s1->node(in[0]->src));
    QVERIFY(tNode);
    QCOMPARE(tNode->data(), std::string("T"));
    QCOMPARE(s1->inEdges(tNode->id()).size(), size_t(1));
    std::set<ElementId> ids;
    size_t n = 0;
    m->forEachElement([&](Element& e) { ids.insert(e.id()), ++n; });
    QCOMPARE(ids.size(), n);
  }

  void movesExpandedOperator() {
    // An expanded model's state holds the op's nested SDFG (with states and maps inside): a state
    // before it takes it over.
    auto m = loadModel(onnxCase("test_relu"));
    QVERIFY(m);
    State* s0 = m->allStates()[0];
    const size_t nodes = s0->nodes().size();
    edit::Editor ed(*m);
    State* pre = ed.addState(*m, "pre");
    ed.addInterstateEdge(*m, pre->id(), s0->id());
    ed.setStartBlock(*m, pre->id());
    (void)ed.takeJournal(); // part of the model the check starts from
    QVERIFY(checkTransformation(*m, t, fuse(*pre, *s0)));
    QCOMPARE(m->blocks().size(), size_t(1));
    QCOMPARE(pre->nodes().size(), nodes);
    QVERIFY(firstNested(*m));
    QCOMPARE(firstNested(*m)->parent(), pre);
  }
};

QTEST_APPLESS_MAIN(TestStateFusion)
#include "tst_StateFusion.moc"
