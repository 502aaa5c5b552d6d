// Tests of the IR: building SDFGs, stable ids, readable paths, scopes, control flow, deep copies
// (clone: compared through the JSON serializer) and validation (each rejection checked by its message).
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/ir/StateScopes.h"
#include "core/ir/Tasklet.h"
#include "core/ir/Validate.h"
#include "core/serialize/JsonFormat.h"

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

// Scale, plus everything a deep copy must carry: a constant, metadata, a loop whose body holds a
// nested SDFG (itself with a loop and a map), a conditional, interstate assignments and a library
// node with a subgraph.
struct Rich : Scale {
  NestedSdfgNode* nested = nullptr;
  LibraryNode* lib = nullptr;

  static std::unique_ptr<Sdfg> inner() {
    Scale in;
    auto* loop = static_cast<LoopRegion*>(in.sdfg->addBlock(std::make_unique<LoopRegion>("repeat")));
    loop->loopVariable = "r";
    loop->condition = sym::lt(Expr::symbol("r"), 3);
    loop->update = Expr::symbol("r") + 1;
    loop->addState("again");
    in.sdfg->addEdge(in.st->id(), loop->id());
    return std::move(in.sdfg);
  }

  Rich() {
    sdfg->metadata["producer"] = "tst_Ir";
    auto* w = sdfg->addArray("W", DType::Float32, {2}, true);
    Tensor t;
    t.dtype = DType::Float32;
    t.dims = {2};
    t.bytes = std::make_shared<const std::string>(std::string(8, '\x01'));
    w->constant = std::make_shared<const Tensor>(t);
    auto loopOwned = std::make_unique<LoopRegion>("outer");
    loopOwned->loopVariable = "k";
    loopOwned->condition = sym::lt(Expr::symbol("k"), Expr::symbol("N"));
    loopOwned->update = Expr::symbol("k") + 2;
    auto* loop = static_cast<LoopRegion*>(sdfg->addBlock(std::move(loopOwned)));
    State* body = loop->addState("body");
    nested = body->add<NestedSdfgNode>("inner", inner());
    nested->symbolMapping["N"] = Expr::symbol("N") + 1;
    nested->addIn({"A"});
    nested->addOut({"B"});
    auto* e = sdfg->addEdge(st->id(), loop->id());
    e->assignments.push_back({"M", Expr::symbol("N") * 2});
    auto cond = std::make_unique<ConditionalRegion>("cond0");
    auto br = std::make_unique<BranchRegion>("then");
    br->condition = sym::gt(Expr::symbol("N"), 4);
    State* big = br->addState("big");
    lib = big->add<LibraryNode>("If_0");
    lib->opType = "If";
    lib->attributes.push_back({"then_branch", GraphRef{"then_branch"}});
    lib->addSubgraph("then_branch", inner());
    cond->addBranch(std::move(br));
    auto el = std::make_unique<BranchRegion>("else");
    el->addState("small");
    cond->addBranch(std::move(el));
    auto* c = sdfg->addBlock(std::move(cond));
    sdfg->addEdge(loop->id(), c->id(), sym::ge(Expr::symbol("M"), 0));
  }
};

std::vector<const Element*> elementsOf(const Sdfg& s) {
  std::vector<const Element*> out;
  s.forEachElement([&](const Element& e) { out.push_back(&e); });
  return out;
}

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

  // The scope tree is kept between queries and follows every structural change: a map put around
  // the tasklet, a node removed.
  void scopesFollowEdits() {
    Scale s;
    auto before = s.st->scopes();
    QVERIFY(before);
    QCOMPARE(s.st->scopes()->get(), before->get()); // kept while nothing changes
    QCOMPARE((*before)->children.at(s.me).size(), size_t(1));
    // map_i -> inner -> scale -> inner_exit -> map_i_exit
    auto* ie = s.st->add<MapEntry>("inner");
    auto* ix = s.st->add<MapExit>("inner_exit");
    ie->params = {"j"};
    ie->range = Subset({Range::full(Expr(1))});
    ie->exitId = ix->id();
    ix->entryId = ie->id();
    for (auto& e : s.st->edges())
      if (e->dst == s.t->id() || e->src == s.t->id()) {
        s.st->removeEdge(e->id());
        break;
      }
    for (auto& e : s.st->edges())
      if (e->dst == s.t->id() || e->src == s.t->id()) {
        s.st->removeEdge(e->id());
        break;
      }
    auto i = Expr::symbol("i");
    s.st->addEdge(*s.me, "OUT_A", *ie, "IN_A", Memlet::simple("A", Subset({Range::index(i)})));
    s.st->addEdge(*ie, "OUT_A", *s.t, "a", Memlet::simple("A", Subset({Range::index(i)})));
    s.st->addEdge(*s.t, "b", *ix, "IN_B", Memlet::simple("B", Subset({Range::index(i)})));
    s.st->addEdge(*ix, "OUT_B", *s.mx, "IN_B", Memlet::simple("B", Subset({Range::index(i)})));
    auto after = s.st->scopeOf();
    QVERIFY(after);
    QCOMPARE(after->at(s.t->id()), static_cast<const MapEntry*>(ie));
    QCOMPARE(after->at(ie->id()), static_cast<const MapEntry*>(s.me));
    QCOMPARE(after->at(ix->id()), static_cast<const MapEntry*>(ie));
    QCOMPARE((*s.st->scopes())->children.at(ie).size(), size_t(1));
    // A removed node leaves the tree.
    const ElementId b = s.b->id();
    s.st->removeNode(b);
    auto last = s.st->scopeOf();
    QVERIFY(last);
    QCOMPARE(last->count(b), size_t(0));
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

  void cloneIsExact() {
    Rich r;
    auto copy = r.sdfg->clone();
    QCOMPARE(serialize::toJson(*copy), serialize::toJson(*r.sdfg));
    QCOMPARE(copy->peekNextId(), r.sdfg->peekNextId());
    // A nested SDFG copies to a standalone root that serializes like the original (ids kept, the
    // allocator continuing after its root's).
    auto innerCopy = r.nested->sdfg().clone();
    QCOMPARE(innerCopy->parentNode(), static_cast<Node*>(nullptr));
    QCOMPARE(innerCopy->root(), innerCopy.get());
    QCOMPARE(serialize::toJson(*innerCopy), serialize::toJson(r.nested->sdfg()));
  }

  void cloneIsIndependent() {
    Rich r;
    const std::string before = serialize::toJson(*r.sdfg);
    auto copy = r.sdfg->clone();
    // No element is shared: every element of the copy is a new object.
    auto a = elementsOf(*r.sdfg), b = elementsOf(*copy);
    QCOMPARE(a.size(), b.size());
    std::set<const Element*> originals(a.begin(), a.end());
    for (auto* e : b) QVERIFY(!originals.count(e));
    // Edit the copy everywhere: the original does not change.
    auto& cst = static_cast<State&>(*copy->block(r.st->id()));
    static_cast<Tasklet*>(cst.node(r.t->id()))->code = "b = a * 3";
    static_cast<MapEntry*>(cst.node(r.me->id()))->range = Subset({Range::full(Expr(4))});
    cst.removeEdge(cst.edges().front()->id());
    copy->findData("A")->shape = {Expr(8)};
    copy->metadata["producer"] = "changed";
    auto* cn = static_cast<NestedSdfgNode*>(copy->findElement(r.nested->id()));
    QVERIFY(cn && cn != r.nested);
    QCOMPARE(cn->sdfg().parentNode(), static_cast<Node*>(cn));
    QCOMPARE(cn->sdfg().root(), copy.get());
    cn->sdfg().addState("extra");
    cn->symbolMapping["N"] = Expr(3);
    auto* cl = static_cast<LibraryNode*>(copy->findElement(r.lib->id()));
    QVERIFY(cl && cl != r.lib);
    QVERIFY(cl->subgraph("then_branch") != r.lib->subgraph("then_branch"));
    cl->subgraph("then_branch")->addArray("Z", DType::Float32, {Expr(1)});
    QCOMPARE(serialize::toJson(*r.sdfg), before);
    // What is added to the copy takes ids after every copied one.
    ElementId maxCopied = 0;
    for (auto* e : a) maxCopied = std::max(maxCopied, e->id());
    QVERIFY(copy->addState("later")->id() > maxCopied);
  }

  void cloneAttachedGetsFreshIds() {
    // A copy of the model nested into the model itself: adoption renumbers the copy, ids stay unique.
    Rich r;
    auto* ns = r.st->add<NestedSdfgNode>("self", r.sdfg->clone());
    std::set<ElementId> ids;
    size_t n = 0;
    r.sdfg->forEachElement([&](Element& e) { ids.insert(e.id()), ++n; });
    QCOMPARE(ids.size(), n);
    QCOMPARE(ns->sdfg().root(), r.sdfg.get());
    // Its loops keep their headers and start blocks (now under fresh ids).
    auto* loop = dynamic_cast<LoopRegion*>(ns->sdfg().blockByLabel("outer"));
    QVERIFY(loop);
    QCOMPARE(loop->update, Expr::symbol("k") + 2);
    QCOMPARE(loop->startBlock(), loop->blocks().front()->id());
    QCOMPARE(ns->sdfg().startBlock(), ns->sdfg().blockByLabel("state0")->id());
  }

  void nodeCloneIntoAnotherState() {
    // Copy a state's nodes into another SDFG's state, link the map copies, re-create the edges.
    Scale from, to;
    State* dst = to.sdfg->addState("copy");
    to.sdfg->addEdge(to.st->id(), dst->id());
    std::map<ElementId, Node*> copies;
    for (auto& n : from.st->nodes()) copies[n->id()] = dst->addNode(n->clone());
    relinkMapCopies(copies);
    for (auto& e : from.st->edges())
      dst->addEdge(*copies.at(e->src), e->srcConnector, *copies.at(e->dst), e->dstConnector, e->memlet);
    auto* me = static_cast<MapEntry*>(copies.at(from.me->id()));
    auto* mx = static_cast<MapExit*>(copies.at(from.mx->id()));
    QCOMPARE(me->exitId, mx->id());
    QCOMPARE(mx->entryId, me->id());
    QCOMPARE(me->params, from.me->params);
    QCOMPARE(static_cast<Tasklet*>(copies.at(from.t->id()))->code, from.t->code);
    QCOMPARE(copies.at(from.t->id())->inConnectors(), from.t->inConnectors());
    QCOMPARE(copies.at(from.a->id())->label(), std::string("A"));
    auto d = validate(*to.sdfg);
    QVERIFY2(!d.hasErrors(), qPrintable(dump(d)));
    // A node holding SDFGs copies them deeply.
    Rich r;
    auto c = r.nested->clone();
    auto& cs = static_cast<NestedSdfgNode&>(*c);
    QVERIFY(&cs.sdfg() != &r.nested->sdfg());
    QCOMPARE(cs.sdfg().parentNode(), c.get());
    QCOMPARE(serialize::toJson(cs.sdfg()), serialize::toJson(r.nested->sdfg()));
    QCOMPARE(cs.symbolMapping.at("N"), Expr::symbol("N") + 1);
    auto lc = r.lib->clone();
    auto& lcs = static_cast<LibraryNode&>(*lc);
    QCOMPARE(lcs.attributes, r.lib->attributes);
    QCOMPARE(serialize::toJson(*lcs.subgraph("then_branch")), serialize::toJson(*r.lib->subgraph("then_branch")));
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
    (*std::next(s.st->edges().begin(), 1))->memlet.subset = Subset({Range::index(Expr::symbol("i")), Range::index(0)}); // the second edge
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
