// Tests of the node-by-node difference of two SDFGs (core/analysis/GraphDiff.h) behind the compare
// view: an unchanged copy has no difference; a node removed, one added and one whose implementation
// and attribute changed are reported on their side with what changed, in path order; a change inside a
// nested SDFG is found by its path through it.
#include "core/analysis/GraphDiff.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Tasklet.h"
#include "core/ir/Sdfg.h"

#include <QtTest>

using namespace dcw;
using namespace dcw::ir;

namespace {

std::unique_ptr<Sdfg> model() {
  auto s = std::make_unique<Sdfg>("main");
  for (const char* n : {"X", "Y", "Z"}) s->addArray(n, DType::Float32, {sym::Expr(4)});
  State* st = s->addState("state0");
  auto *x = st->add<AccessNode>("X"), *y = st->add<AccessNode>("Y"), *z = st->add<AccessNode>("Z");
  auto* relu = st->add<LibraryNode>("Relu_0");
  relu->opType = "Relu";
  relu->addIn({"X"});
  relu->addOut({"Y"});
  auto* neg = st->add<LibraryNode>("Neg_0");
  neg->opType = "Neg";
  neg->addIn({"X"});
  neg->addOut({"Y"});
  st->addEdge(*x, "", *relu, "X", Memlet::full("X", {sym::Expr(4)}));
  st->addEdge(*relu, "Y", *y, "", Memlet::full("Y", {sym::Expr(4)}));
  st->addEdge(*y, "", *neg, "X", Memlet::full("Y", {sym::Expr(4)}));
  st->addEdge(*neg, "Y", *z, "", Memlet::full("Z", {sym::Expr(4)}));
  return s;
}

} // namespace

class TestGraphDiff : public QObject {
  Q_OBJECT

private slots:
  void sameModelHasNoDifference() {
    auto a = model();
    auto b = a->clone();
    auto d = analysis::diffGraphs(*a, *b);
    QCOMPARE(d.added + d.removed + d.changed, 0);
    QCOMPARE(d.same, 5);
    QVERIFY(d.lines.empty() && d.left.empty() && d.right.empty());
  }

  void addedRemovedChanged() {
    auto a = model();
    auto b = a->clone();
    State* st = b->allStates().front();
    auto* neg = static_cast<LibraryNode*>(st->nodeByLabel("Neg_0"));
    neg->implementation = "pure";
    neg->attributes.push_back({"alpha", 0.5});
    st->removeNode(st->nodeByLabel("Relu_0")->id());
    auto* extra = st->add<LibraryNode>("Abs_0");
    extra->opType = "Abs";
    auto d = analysis::diffGraphs(*a, *b);
    QCOMPARE(d.added, 1);
    QCOMPARE(d.removed, 1);
    QCOMPARE(d.changed, 1);
    QCOMPARE(d.same, 3);
    QCOMPARE(d.left.at(a->allStates().front()->nodeByLabel("Relu_0")->id()), analysis::DiffMark::Removed);
    QCOMPARE(d.left.at(a->allStates().front()->nodeByLabel("Neg_0")->id()), analysis::DiffMark::Changed);
    QCOMPARE(d.right.at(extra->id()), analysis::DiffMark::Added);
    QCOMPARE(d.right.at(neg->id()), analysis::DiffMark::Changed);
    QCOMPARE(d.lines.size(), size_t(3));
    QCOMPARE(QString::fromStdString(d.lines[0]), QStringLiteral("+ main/state0/Abs_0"));
    QVERIFY2(d.lines[1].rfind("~ main/state0/Neg_0: ", 0) == 0, d.lines[1].c_str());
    QVERIFY2(d.lines[1].find("attribute alpha 0.5 added") != std::string::npos, d.lines[1].c_str());
    QVERIFY2(d.lines[1].find("implementation (default) -> pure") != std::string::npos, d.lines[1].c_str());
    QCOMPARE(QString::fromStdString(d.lines[2]), QStringLiteral("- main/state0/Relu_0"));
  }

  // Nodes inside a nested SDFG are compared too, by their paths through it.
  void insideNestedSdfgs() {
    auto make = [](const std::string& code) {
      auto s = model();
      auto inner = std::make_unique<Sdfg>("body");
      State* body = inner->addState("compute");
      auto* t = body->add<Tasklet>("t", code);
      t->addOut({"y"});
      s->allStates().front()->add<NestedSdfgNode>("nested", std::move(inner));
      return s;
    };
    auto a = make("y = 1"), b = make("y = 2");
    auto d = analysis::diffGraphs(*a, *b);
    QCOMPARE(d.changed, 1);
    QCOMPARE(d.added + d.removed, 0);
    QCOMPARE(d.lines.size(), size_t(1));
    QVERIFY2(d.lines[0].rfind("~ main/state0/nested/compute/t: code y = 1 -> y = 2", 0) == 0, d.lines[0].c_str());
  }
};

QTEST_GUILESS_MAIN(TestGraphDiff)
#include "tst_GraphDiff.moc"
