// Tests of the IR: building SDFGs, stable ids, readable paths, scopes, control flow and validation
// (each rejection checked by its message).
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"
#include "core/ir/Validate.h"

#include <QtTest>

using namespace dcw;
using namespace dcw::ir;
using sym::Expr;

namespace {

// B[i] = A[i] * 2 over a map of N points.
struct Scale {
  std::unique_ptr<Sdfg> sdfg = std::make_unique<Sdfg>("main");
  State* st = nullptr;
  AccessNode *a = nullptr, *b = nullptr;
  MapEntry* me = nullptr;
  MapExit* mx = nullptr;
  Tasklet* t = nullptr;

  Scale() {
    sdfg->addSymbol("N");
    sdfg->addArray("A", DType::Float32, {Expr::symbol("N")});
    sdfg->addArray("B", DType::Float32, {Expr::symbol("N")});
    sdfg->inputs = {"A"};
    sdfg->outputs = {"B"};
    st = sdfg->addState("state0");
    a = st->add<AccessNode>("A");
    b = st->add<AccessNode>("B");
    me = st->add<MapEntry>("map_i");
    mx = st->add<MapExit>("map_i_exit");
    me->params = {"i"};
    me->range = Subset({Range::full(Expr::symbol("N"))});
    me->exitId = mx->id();
    mx->entryId = me->id();
    me->addIn({"IN_A"});
    me->addOut({"OUT_A"});
    mx->addIn({"IN_B"});
    mx->addOut({"OUT_B"});
    t = st->add<Tasklet>("scale", "b = a * 2");
    t->addIn({"a", DType::Float32});
    t->addOut({"b", DType::Float32});
    auto i = Expr::symbol("i");
    st->addEdge(*a, "", *me, "IN_A", Memlet::full("A", {Expr::symbol("N")}));
    st->addEdge(*me, "OUT_A", *t, "a", Memlet::simple("A", Subset({Range::index(i)})));
    st->addEdge(*t, "b", *mx, "IN_B", Memlet::simple("B", Subset({Range::index(i)})));
    st->addEdge(*mx, "OUT_B", *b, "", Memlet::full("B", {Expr::symbol("N")}));
  }
};

bool hasError(const Diagnostics& d, const QString& needle) {
  for (auto& x : d.items())
    if (x.severity == Severity::Error && QString::fromStdString(x.str()).contains(needle)) return true;
  return false;
}

QString dump(const Diagnostics& d) {
  QString s;
  for (auto& x : d.items()) s += QString::fromStdString(x.str()) + "\n";
  return s;
}

} // namespace

class TestIr : public QObject {
  Q_OBJECT
private slots:
  void validScaleValidates() {
    Scale s;
    auto d = validate(*s.sdfg);
    QVERIFY2(!d.hasErrors(), qPrintable(dump(d)));
  }

  void idsAreUniqueAndStable() {
    Scale s;
    std::set<ElementId> ids;
    size_t n = 0;
    s.sdfg->forEachElement([&](Element& e) {
      ids.insert(e.id());
      ++n;
      QVERIFY(e.id() != kNoId);
    });
    QCOMPARE(ids.size(), n);
    ElementId tid = s.t->id(), bid = s.b->id();
    // Removing a node does not renumber others; new elements never reuse an id.
    auto removed = s.st->removeNode(s.a->id());
    QVERIFY(removed);
    QCOMPARE(s.t->id(), tid);
    QCOMPARE(s.b->id(), bid);
    auto* c = s.st->add<AccessNode>("A");
    QVERIFY(c->id() > bid && c->id() != removed->id());
    QCOMPARE(s.sdfg->findElement(tid), static_cast<Element*>(s.t));
  }

  void paths() {
    Scale s;
    QCOMPARE(QString::fromStdString(pathOf(*s.sdfg, s.t->id())), QString("main/state0/scale"));
    QCOMPARE(QString::fromStdString(pathOf(*s.sdfg, s.sdfg->findData("A")->id())), QString("main/@A"));
    auto r = resolvePath(*s.sdfg, "main/state0/map_i");
    QVERIFY(r);
    QCOMPARE(*r, static_cast<Element*>(s.me));
    auto e = resolvePath(*s.sdfg, "main/state0/A->map_i:IN_A");
    QVERIFY(e);
    QCOMPARE((*e)->kind(), ElementKind::DataflowEdge);
    auto bad = resolvePath(*s.sdfg, "main/state0/nope");
    QVERIFY(!bad);
    QVERIFY(QString::fromStdString(bad.error().str()).contains("after 'main/state0'"));
    PathIndex idx(*s.sdfg);
    s.sdfg->forEachElement([&](Element& el) { QCOMPARE(idx.idOf(idx.pathOf(el.id())), el.id()); });
  }

  void scopes() {
    Scale s;
    auto sc = s.st->scopeOf();
    QVERIFY(sc);
    QCOMPARE(sc->at(s.t->id()), static_cast<const MapEntry*>(s.me));
    QCOMPARE(sc->at(s.me->id()), static_cast<const MapEntry*>(nullptr));
    QCOMPARE(sc->at(s.mx->id()), static_cast<const MapEntry*>(s.me));
    QCOMPARE(sc->at(s.b->id()), static_cast<const MapEntry*>(nullptr));
  }

  void subgraphsGetFreshIdsFromRoot() {
    Scale s;
    auto inner = std::make_unique<Sdfg>("body");
    inner->addState("state0");
    auto* lib = s.st->add<LibraryNode>("If_0");
    lib->opType = "If";
    Sdfg* g = lib->addSubgraph("then_branch", std::move(inner));
    lib->attributes.push_back({"then_branch", GraphRef{"then_branch"}});
    std::set<ElementId> ids;
    size_t n = 0;
    s.sdfg->forEachElement([&](Element& e) { ids.insert(e.id()), ++n; });
    QCOMPARE(ids.size(), n);
    QCOMPARE(QString::fromStdString(pathOf(*s.sdfg, g->blocks().front()->id())), QString("main/state0/If_0/then_branch/state0"));
    QCOMPARE(g->root(), s.sdfg.get());
  }

  void controlFlow() {
    Sdfg s("main");
    s.addSymbol("N");
    auto* init = s.addState("init");
    auto loop = std::make_unique<LoopRegion>("loop0");
    loop->loopVariable = "k";
    loop->init = 0;
    loop->condition = sym::lt(Expr::symbol("k"), Expr::symbol("N"));
    loop->update = Expr::symbol("k") + 1;
    loop->addState("body");
    auto* l = s.addBlock(std::move(loop));
    auto cond = std::make_unique<ConditionalRegion>("cond0");
    auto br = std::make_unique<BranchRegion>("then");
    br->condition = sym::gt(Expr::symbol("N"), 4);
    br->addState("big");
    auto el = std::make_unique<BranchRegion>("else");
    el->addState("small");
    cond->addBranch(std::move(br));
    cond->addBranch(std::move(el));
    auto* c = s.addBlock(std::move(cond));
    auto* e = s.addEdge(init->id(), l->id());
    e->assignments.push_back({"M", Expr::symbol("N") * 2});
    s.addEdge(l->id(), c->id(), sym::ge(Expr::symbol("M"), 0));
    auto d = validate(s);
    QVERIFY2(!d.hasErrors(), qPrintable(dump(d)));
    QCOMPARE(s.allStates().size(), size_t(4));
    QCOMPARE(QString::fromStdString(pathOf(s, s.allStates()[3]->id())), QString("main/cond0/else/small"));
    QCOMPARE(s.startBlock(), init->id());
  }

  void rejectsCycle() {
    Scale s;
    s.st->addEdge(*s.b, "", *s.a, "", Memlet::full("B", {Expr::symbol("N")}));
    auto d = validate(*s.sdfg);
    QVERIFY2(hasError(d, "has a cycle"), qPrintable(dump(d)));
  }

  void rejectsUndeclaredSymbol() {
    Scale s;
    s.sdfg->addArray("C", DType::Float32, {Expr::symbol("M")});
    auto d = validate(*s.sdfg);
    QVERIFY2(hasError(d, "main/@C: the shape of 'C' uses symbol 'M'"), qPrintable(dump(d)));
  }

  void rejectsUnknownData() {
    Scale s;
    s.st->add<AccessNode>("ghost");
    auto d = validate(*s.sdfg);
    QVERIFY2(hasError(d, "main/state0/ghost: access node refers to data 'ghost'"), qPrintable(dump(d)));
  }

  void rejectsMissingConnector() {
    Scale s;
    s.st->addEdge(*s.a, "", *s.t, "nope", Memlet::full("A", {Expr::symbol("N")}));
    auto d = validate(*s.sdfg);
    QVERIFY2(hasError(d, "input connector 'nope' does not exist on 'scale'"), qPrintable(dump(d)));
  }

  void rejectsSubsetRank() {
    Scale s;
    s.st->edges()[1]->memlet.subset = Subset({Range::index(Expr::symbol("i")), Range::index(0)});
    auto d = validate(*s.sdfg);
    QVERIFY2(hasError(d, "has 2 dimensions but 'A' has 1"), qPrintable(dump(d)));
  }

  void rejectsMapWithoutExit() {
    Scale s;
    auto* m2 = s.st->add<MapEntry>("lonely");
    m2->params = {"j"};
    m2->range = Subset({Range::full(4)});
    auto d = validate(*s.sdfg);
    QVERIFY2(hasError(d, "map entry 'lonely' has no matching map exit"), qPrintable(dump(d)));
  }

  void rejectsDuplicateAndBadLabels() {
    Scale s;
    s.t->setLabel("map_i");
    auto d = validate(*s.sdfg);
    QVERIFY2(hasError(d, "two nodes of state 'state0' are labelled 'map_i'"), qPrintable(dump(d)));
    s.t->setLabel("a/b");
    d = validate(*s.sdfg);
    QVERIFY2(hasError(d, "label 'a/b' cannot be used in a path"), qPrintable(dump(d)));
  }

  void rejectsUnconnectedInput() {
    Scale s;
    auto* l = s.st->add<LibraryNode>("Relu_0");
    l->opType = "Relu";
    l->addIn({"X", DType::Float32, false});
    auto d = validate(*s.sdfg);
    QVERIFY2(hasError(d, "input 'X' of 'Relu_0' is not connected"), qPrintable(dump(d)));
  }

  void rejectsBadConstant() {
    Scale s;
    auto* c = s.sdfg->addArray("W", DType::Float32, {Expr(4)});
    Tensor t;
    t.dtype = DType::Float32;
    t.dims = {4};
    t.bytes = std::make_shared<const std::string>(std::string(12, '\0'));
    c->constant = std::make_shared<const Tensor>(t);
    auto d = validate(*s.sdfg);
    QVERIFY2(hasError(d, "constant value holds 12 bytes, expected 16"), qPrintable(dump(d)));
  }

  void rejectsElseNotLast() {
    Sdfg s("main");
    auto cond = std::make_unique<ConditionalRegion>("c");
    cond->addBranch(std::make_unique<BranchRegion>("else"));
    auto b = std::make_unique<BranchRegion>("then");
    b->condition = Expr(1);
    cond->addBranch(std::move(b));
    s.addBlock(std::move(cond));
    auto d = validate(s);
    QVERIFY2(hasError(d, "an else branch must be the last branch"), qPrintable(dump(d)));
  }

  void nestedSdfgSymbolMapping() {
    Scale s;
    auto inner = std::make_unique<Sdfg>("inner");
    inner->addSymbol("K");
    inner->addArray("x", DType::Float32, {Expr::symbol("K")});
    inner->addState("s");
    auto* n = s.st->add<NestedSdfgNode>("nest", std::move(inner));
    n->addIn({"x", DType::Float32});
    s.st->addEdge(*s.b, "", *n, "x", Memlet::full("B", {Expr::symbol("N")}));
    auto d = validate(*s.sdfg);
    QVERIFY2(hasError(d, "nested symbol 'K' is not mapped"), qPrintable(dump(d)));
    n->symbolMapping["K"] = Expr::symbol("N");
    d = validate(*s.sdfg);
    QVERIFY2(!d.hasErrors(), qPrintable(dump(d)));
  }

  void subsetsAndMemlets() {
    auto s = Subset::parse("i, 0:N, 2:M:2");
    QVERIFY(s);
    QCOMPARE(QString::fromStdString(s->str()), QString("i, 0:N, 2:M:2"));
    QCOMPARE(s->rank(), size_t(3));
    QCOMPARE(s->volume(), Expr::symbol("N") * sym::ceilDiv(Expr::symbol("M") - 2, 2));
    auto m = Memlet::simple("A", *s);
    m.wcr = "sum";
    QCOMPARE(QString::fromStdString(m.str()), QString("A[i, 0:N, 2:M:2] (CR: sum)"));
    QVERIFY(!Subset::parse("0:1:2:3"));
  }
};

QTEST_APPLESS_MAIN(TestIr)
#include "tst_Ir.moc"
