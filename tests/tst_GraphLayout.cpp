// tst_GraphLayout: views::layoutGraph (Graphviz dot) and the layered fallback — every node gets a
// position inside the content box, a chain runs top to bottom, edges are paths from source to target;
// VisualGraph construction (containers, hidden map bodies, folded constants, edges lifted to the
// lowest common container); layoutVisualGraph's per-container cache: a second layout is all cache
// hits and opening one node recomputes only that node and its ancestors.
#include "views/GraphLayout.h"
#include "views/VisualGraph.h"
#include "views/ModuleGroups.h"
#include "views/Theme.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"

#include <QApplication>

#include <set>
#include <QTest>

using namespace dcw;
using namespace dcw::ir;
using namespace dcw::views;

namespace {

// X -> map_i { t } -> Y -> Relu (W folded) -> Z, in one state.
std::unique_ptr<Sdfg> sample() {
  auto s = std::make_unique<Sdfg>("main");
  for (const char* n : {"X", "Y", "Z"}) s->addArray(n, DType::Float32, {sym::Expr(4)});
  auto w = std::make_shared<Tensor>();
  w->dtype = DType::Float32;
  w->dims = {4};
  w->bytes = std::make_shared<const std::string>(16, '\0');
  s->addArray("W", DType::Float32, {sym::Expr(4)})->constant = w;
  State* st = s->addState("state0");
  auto *x = st->add<AccessNode>("X"), *y = st->add<AccessNode>("Y"), *z = st->add<AccessNode>("Z"), *wa = st->add<AccessNode>("W");
  auto* me = st->add<MapEntry>("map_i");
  me->params = {"i"};
  me->range = Subset({Range::full(4)});
  auto* t = st->add<Tasklet>("t", "y = x + 1");
  auto* mx = st->add<MapExit>("map_i_exit");
  me->exitId = mx->id();
  mx->entryId = me->id();
  Subset one({Range::index(sym::Expr::symbol("i"))});
  st->addEdge(*x, "", *me, "IN_X", Memlet::full("X", {sym::Expr(4)}));
  st->addEdge(*me, "OUT_X", *t, "x", Memlet::simple("X", one));
  st->addEdge(*t, "y", *mx, "IN_Y", Memlet::simple("Y", one));
  st->addEdge(*mx, "OUT_Y", *y, "", Memlet::full("Y", {sym::Expr(4)}));
  auto* relu = st->add<LibraryNode>("Relu_0");
  relu->opType = "Mul";
  relu->addIn({"A"});
  relu->addIn({"B"});
  relu->addOut({"C"});
  st->addEdge(*y, "", *relu, "A", Memlet::full("Y", {sym::Expr(4)}));
  st->addEdge(*wa, "", *relu, "B", Memlet::full("W", {sym::Expr(4)}));
  st->addEdge(*relu, "C", *z, "", Memlet::full("Z", {sym::Expr(4)}));
  return s;
}

// A library node of op `type` with inputs `ins` and one output, "out".
LibraryNode* addOp(State& st, const char* label, const char* type, const std::vector<std::string>& ins) {
  auto* l = st.add<LibraryNode>(label);
  l->opType = type;
  for (auto& i : ins) l->addIn({i});
  l->addOut({"out"});
  return l;
}

int findLabel(const VisualGraph& g, const QString& label) {
  for (size_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].label == label) return int(i);
  return -1;
}

} // namespace

class TestGraphLayout : public QObject {
  Q_OBJECT
private slots:
  void chainRunsDown_data() {
    QTest::addColumn<bool>("graphviz");
    QTest::newRow("graphviz") << true;
    QTest::newRow("layered") << false;
  }
  void chainRunsDown() {
    QFETCH(bool, graphviz);
    LayoutRequest r;
    r.sizes = {QSizeF(80, 30), QSizeF(60, 40), QSizeF(100, 30), QSizeF(50, 30)};
    r.edges = {{0, 1}, {1, 2}, {0, 3}, {3, 2}};
    ContainerLayout l = graphviz ? layoutGraph(r) : layoutLayered(r);
    if (graphviz) QVERIFY(l.usedGraphviz);
    QCOMPARE(l.centers.size(), size_t(4));
    QCOMPARE(l.edges.size(), size_t(4));
    QVERIFY(l.centers[0].y() < l.centers[1].y());
    QVERIFY(l.centers[1].y() < l.centers[2].y());
    QRectF box(QPointF(0, 0), l.size);
    for (size_t i = 0; i < 4; ++i) {
      QRectF node(l.centers[i] - QPointF(r.sizes[i].width() / 2, r.sizes[i].height() / 2), r.sizes[i]);
      QVERIFY2(box.adjusted(-1, -1, 1, 1).contains(node), qPrintable(QStringLiteral("node %1 outside").arg(i)));
    }
    for (auto& p : l.edges) QVERIFY(!p.isEmpty());
    // The edge 0 -> 1 starts near node 0 and ends near node 1.
    QVERIFY(std::abs(l.edges[0].pointAtPercent(0).y() - (l.centers[0].y() + 15)) < 6);
    QVERIFY(std::abs(l.edges[0].currentPosition().y() - (l.centers[1].y() - 20)) < 6);
  }

  // DenseNet's dense blocks: every layer's output is read by every later concatenation, so the
  // ranked graph dot would solve has tens of thousands of virtual nodes (DenseNet-121 held the app
  // for minutes). Under the node limit, such a container still takes the layered layout, at once;
  // a constant's chain (a source and the op after it) sits right above its reader.
  void denseFanInTakesTheLayeredLayout() {
    LayoutRequest r;
    auto node = [&](double w) {
      r.sizes.push_back(QSizeF(w, 30));
      return int(r.sizes.size()) - 1;
    };
    int x = node(80);
    std::vector<int> outputs{x};
    int constantOp = -1, constantReader = -1;
    for (int layer = 0; layer < 120; ++layer) {
      const int concat = node(90), joined = node(60), conv = node(80), y = node(60);
      for (int o : outputs) r.edges.push_back({o, concat});
      r.edges.push_back({concat, joined});
      r.edges.push_back({joined, conv});
      r.edges.push_back({conv, y});
      if (layer == 100) { // a weight made by an op from a constant source
        const int source = node(40);
        constantOp = node(50);
        const int weight = node(40);
        r.edges.push_back({source, constantOp});
        r.edges.push_back({constantOp, weight});
        r.edges.push_back({weight, conv});
        constantReader = conv;
      }
      outputs.push_back(y);
    }
    QVERIFY(int(r.sizes.size()) <= kMaxGraphvizNodes);
    QVERIFY(rankedGraphSize(r) > kMaxGraphvizRanked);
    QElapsedTimer t;
    t.start();
    ContainerLayout l = layoutGraph(r);
    QVERIFY(!l.usedGraphviz);
    QVERIFY2(t.elapsed() < 2000, qPrintable(QString::number(t.elapsed())));
    QCOMPARE(l.centers.size(), r.sizes.size());
    // The constant's op sits two rows above the convolution that reads its result, not in the top row.
    QVERIFY(l.centers[size_t(constantOp)].y() > l.centers[size_t(x)].y() + 1000);
    QVERIFY(l.centers[size_t(constantOp)].y() < l.centers[size_t(constantReader)].y());
    // A small graph keeps Graphviz.
    LayoutRequest small;
    small.sizes = {QSizeF(40, 20), QSizeF(40, 20), QSizeF(40, 20)};
    small.edges = {{0, 1}, {1, 2}, {0, 2}};
    QCOMPARE(rankedGraphSize(small), 4L);
    QVERIFY(layoutGraph(small).usedGraphviz);
  }

  void emptyAndCycles() {
    ContainerLayout empty = layoutGraph({});
    QVERIFY(empty.size.width() > 0);
    LayoutRequest cyc;
    cyc.sizes = {QSizeF(40, 20), QSizeF(40, 20), QSizeF(40, 20)};
    cyc.edges = {{0, 1}, {1, 2}, {2, 0}};
    QCOMPARE(layoutLayered(cyc).centers.size(), size_t(3));
    QCOMPARE(layoutGraph(cyc).centers.size(), size_t(3));
  }

  void visualGraphStructure() {
    auto s = sample();
    ExpansionState x;
    VisualGraph g = VisualGraph::build(*s, x, {}, QApplication::font());
    // main > state0 > {X, map_i (collapsed), Y, Mul (W folded), Z}
    QCOMPARE(g.nodes[0].kind, VisualKind::Sdfg);
    int state = findLabel(g, QStringLiteral("state0"));
    QVERIFY(state > 0 && g.nodes[size_t(state)].expanded);
    QCOMPARE(g.nodes[size_t(state)].children.size(), size_t(5));
    QCOMPARE(findLabel(g, QStringLiteral("t")), -1); // inside the collapsed map
    int mul = findLabel(g, QStringLiteral("Mul"));
    QVERIFY(mul > 0);
    QVERIFY(g.nodes[size_t(mul)].extra.startsWith(QStringLiteral("W ")));
    QCOMPARE(findLabel(g, QStringLiteral("W")), -1);
    QCOMPARE(g.nodes[size_t(state)].edges.size(), size_t(4)); // X->map, map->Y, Y->Mul, Mul->Z
    // Opening the map shows entry, tasklet and exit; the outer edges end on the map's frame.
    const Node* me = s->allStates()[0]->nodeByLabel("map_i");
    x.set(me->id(), true);
    VisualGraph open = VisualGraph::build(*s, x, {}, QApplication::font());
    int t = findLabel(open, QStringLiteral("t"));
    QVERIFY(t > 0);
    int frame = open.nodes[size_t(t)].parent;
    QCOMPARE(open.nodes[size_t(frame)].kind, VisualKind::Map);
    QCOMPARE(open.nodes[size_t(frame)].children.size(), size_t(3));
    QCOMPARE(open.nodes[size_t(frame)].edges.size(), size_t(2));
    QCOMPARE(open.find(me->id()), open.nodes[size_t(frame)].children[0]); // the inner entry
    // Constants as nodes on request.
    VisualGraph::Options o;
    o.showConstants = true;
    VisualGraph withW = VisualGraph::build(*s, x, o, QApplication::font());
    QVERIFY(findLabel(withW, QStringLiteral("W")) > 0);
  }

  // A memo keeps what a build works out about each state between builds: builds with it equal builds
  // without, when a container opens, when the options change, and after an edit changes a state.
  void memoKeepsFactsBetweenBuilds() {
    auto s = sample();
    auto same = [](const VisualGraph& a, const VisualGraph& b) {
      if (a.nodes.size() != b.nodes.size() || a.edges.size() != b.edges.size()) return false;
      for (size_t i = 0; i < a.nodes.size(); ++i)
        if (a.nodes[i].label != b.nodes[i].label || a.nodes[i].parent != b.nodes[i].parent ||
            a.nodes[i].extra != b.nodes[i].extra || a.nodes[i].expanded != b.nodes[i].expanded)
          return false;
      for (size_t i = 0; i < a.edges.size(); ++i)
        if (a.edges[i].label != b.edges[i].label || a.edges[i].src != b.edges[i].src || a.edges[i].dst != b.edges[i].dst)
          return false;
      return true;
    };
    auto memo = VisualGraph::newMemo();
    ExpansionState x;
    const QFont font = QApplication::font();
    QVERIFY(same(VisualGraph::build(*s, x, {}, font, memo.get()), VisualGraph::build(*s, x, {}, font)));
    x.set(s->allStates()[0]->nodeByLabel("map_i")->id(), true);
    VisualGraph open = VisualGraph::build(*s, x, {}, font, memo.get());
    QVERIFY(findLabel(open, QStringLiteral("t")) > 0);
    QVERIFY(same(open, VisualGraph::build(*s, x, {}, font)));
    VisualGraph::Options o;
    o.showConstants = true;
    VisualGraph withW = VisualGraph::build(*s, x, o, font, memo.get());
    QVERIFY(findLabel(withW, QStringLiteral("W")) > 0);
    QVERIFY(same(withW, VisualGraph::build(*s, x, o, font)));
    // An edit the memo was not told of: the state's size changed, so it is worked out again.
    State* st = s->allStates()[0];
    s->addArray("V", DType::Float32, {sym::Expr(4)});
    auto* v = st->add<AccessNode>("V");
    st->addEdge(*st->nodeByLabel("Z"), "", *v, "", Memlet::full("Z", {sym::Expr(4)}));
    VisualGraph edited = VisualGraph::build(*s, x, o, font, memo.get());
    QVERIFY(findLabel(edited, QStringLiteral("V")) > 0);
    QVERIFY(same(edited, VisualGraph::build(*s, x, o, font)));
  }

  // Weight preparation on constants (torch's Identity on shared weights, a Transpose of a weight) folds
  // into the reader with the constant: the reader lists the prepared array; an op that reads a
  // computed value, or writes a model output, stays a node. Library nodes carry their op's category.
  void weightPreparationFoldsIntoItsReader() {
    auto s = std::make_unique<Sdfg>("main");
    auto w = std::make_shared<Tensor>();
    w->dtype = DType::Float32;
    w->dims = {4, 8};
    w->bytes = std::make_shared<const std::string>(128, '\0');
    s->addArray("W", DType::Float32, {sym::Expr(4), sym::Expr(8)})->constant = w;
    s->addArray("W_id", DType::Float32, {sym::Expr(4), sym::Expr(8)})->transient = true;
    s->addArray("W_t", DType::Float32, {sym::Expr(8), sym::Expr(4)})->transient = true;
    s->addArray("X", DType::Float32, {sym::Expr(2), sym::Expr(8)});
    s->addArray("Y", DType::Float32, {sym::Expr(2), sym::Expr(4)});
    s->addArray("Xc", DType::Float32, {sym::Expr(2), sym::Expr(8)})->transient = true;
    State* st = s->addState("state0");
    auto op = [&](const char* label, const char* type, std::vector<std::string> ins) { return addOp(*st, label, type, ins); };
    auto *wa = st->add<AccessNode>("W"), *wid = st->add<AccessNode>("W_id"), *wt = st->add<AccessNode>("W_t");
    auto *x = st->add<AccessNode>("X"), *xc = st->add<AccessNode>("Xc"), *y = st->add<AccessNode>("Y");
    auto* id = op("Identity_0", "Identity", {"in"});
    auto* tr = op("Transpose_0", "Transpose", {"in"});
    auto* xid = op("Identity_1", "Identity", {"in"}); // on a computed input: real work, stays
    auto* mm = op("MatMul_0", "MatMul", {"A", "B"});
    st->addEdge(*wa, "", *id, "in", Memlet::full("W", {sym::Expr(4), sym::Expr(8)}));
    st->addEdge(*id, "out", *wid, "", Memlet::full("W_id", {sym::Expr(4), sym::Expr(8)}));
    st->addEdge(*wid, "", *tr, "in", Memlet::full("W_id", {sym::Expr(4), sym::Expr(8)}));
    st->addEdge(*tr, "out", *wt, "", Memlet::full("W_t", {sym::Expr(8), sym::Expr(4)}));
    st->addEdge(*x, "", *xid, "in", Memlet::full("X", {sym::Expr(2), sym::Expr(8)}));
    st->addEdge(*xid, "out", *xc, "", Memlet::full("Xc", {sym::Expr(2), sym::Expr(8)}));
    st->addEdge(*xc, "", *mm, "A", Memlet::full("Xc", {sym::Expr(2), sym::Expr(8)}));
    st->addEdge(*wt, "", *mm, "B", Memlet::full("W_t", {sym::Expr(8), sym::Expr(4)}));
    st->addEdge(*mm, "out", *y, "", Memlet::full("Y", {sym::Expr(2), sym::Expr(4)}));

    ExpansionState open;
    VisualGraph g = VisualGraph::build(*s, open, {}, QApplication::font());
    for (const char* gone : {"W", "W_id", "W_t", "Transpose"}) QCOMPARE(findLabel(g, QString::fromLatin1(gone)), -1);
    QCOMPARE(g.find(id->id()), -1);
    QCOMPARE(g.find(tr->id()), -1);
    const int m = g.find(mm->id());
    QVERIFY(m > 0);
    QCOMPARE(g.nodes[size_t(m)].extra, QStringLiteral("W_t 8×4"));
    QCOMPARE(g.nodes[size_t(m)].category, OpCategory::MatMul);
    const int keep = g.find(xid->id());
    QVERIFY(keep > 0);
    QCOMPARE(g.nodes[size_t(keep)].category, OpCategory::DataMovement);
    QVERIFY(g.find(xc->id()) > 0);
    // The full SDFG view shows every one of them again.
    VisualGraph::Options all;
    all.showConstants = true;
    VisualGraph full = VisualGraph::build(*s, open, all, QApplication::font());
    for (auto* e : std::initializer_list<const Node*>{wa, id, wid, tr, wt}) QVERIFY(full.find(e->id()) > 0);
    QVERIFY(full.nodes[size_t(full.find(mm->id()))].extra.isEmpty());
  }

  // Shape arithmetic as exporters write it (`Shape -> Gather -> Unsqueeze -> Concat -> Reshape`) and
  // Constant ops fold into the real op that reads their result; the input's edge into Shape goes with
  // them, the input itself stays (Reshape reads its data).
  void shapeArithmeticFoldsIntoItsReader() {
    auto s = std::make_unique<Sdfg>("main");
    auto arr = [&](const char* name, DType t, std::vector<sym::Expr> dims, bool transient) {
      s->addArray(name, t, std::move(dims))->transient = transient;
    };
    const sym::Expr n = sym::Expr::symbol("n");
    arr("X", DType::Float32, {n, sym::Expr(6)}, false);
    arr("Y", DType::Float32, {n, sym::Expr(2), sym::Expr(3)}, false);
    arr("shp", DType::Int64, {sym::Expr(2)}, true);
    arr("idx", DType::Int64, {}, true);
    arr("dim0", DType::Int64, {}, true);
    arr("dim0u", DType::Int64, {sym::Expr(1)}, true);
    arr("rest", DType::Int64, {sym::Expr(2)}, true);
    arr("target", DType::Int64, {sym::Expr(3)}, true);
    arr("R", DType::Float32, {n, sym::Expr(2), sym::Expr(3)}, true);
    arr("two", DType::Float32, {}, true);
    State* st = s->addState("state0");
    auto op = [&](const char* label, const char* type, std::vector<std::string> ins) { return addOp(*st, label, type, ins); };
    auto acc = [&](const char* name) { return st->add<AccessNode>(name); };
    auto m = [&](const char* name) { return Memlet::full(name, s->findData(name)->shape); };
    auto *x = acc("X"), *shp = acc("shp"), *idx = acc("idx"), *dim0 = acc("dim0"), *dim0u = acc("dim0u"), *rest = acc("rest"),
         *target = acc("target"), *r = acc("R"), *two = acc("two"), *y = acc("Y");
    auto* shape = op("Shape_0", "Shape", {"data"});
    auto* cidx = op("Constant_0", "Constant", {});
    auto* crest = op("Constant_1", "Constant", {});
    auto* gather = op("Gather_0", "Gather", {"data", "indices"});
    auto* unsq = op("Unsqueeze_0", "Unsqueeze", {"data"});
    auto* concat = op("Concat_0", "Concat", {"a", "b"});
    auto* reshape = op("Reshape_0", "Reshape", {"data", "shape"});
    auto* ctwo = op("Constant_2", "Constant", {});
    auto* div = op("Div_0", "Div", {"A", "B"});
    st->addEdge(*x, "", *shape, "data", m("X"));
    st->addEdge(*shape, "out", *shp, "", m("shp"));
    st->addEdge(*cidx, "out", *idx, "", m("idx"));
    st->addEdge(*shp, "", *gather, "data", m("shp"));
    st->addEdge(*idx, "", *gather, "indices", m("idx"));
    st->addEdge(*gather, "out", *dim0, "", m("dim0"));
    st->addEdge(*dim0, "", *unsq, "data", m("dim0"));
    st->addEdge(*unsq, "out", *dim0u, "", m("dim0u"));
    st->addEdge(*crest, "out", *rest, "", m("rest"));
    st->addEdge(*dim0u, "", *concat, "a", m("dim0u"));
    st->addEdge(*rest, "", *concat, "b", m("rest"));
    st->addEdge(*concat, "out", *target, "", m("target"));
    st->addEdge(*x, "", *reshape, "data", m("X"));
    st->addEdge(*target, "", *reshape, "shape", m("target"));
    st->addEdge(*reshape, "out", *r, "", m("R"));
    st->addEdge(*ctwo, "out", *two, "", m("two"));
    st->addEdge(*r, "", *div, "A", m("R"));
    st->addEdge(*two, "", *div, "B", m("two"));
    st->addEdge(*div, "out", *y, "", m("Y"));

    ExpansionState open;
    VisualGraph g = VisualGraph::build(*s, open, {}, QApplication::font());
    for (const Node* gone : std::initializer_list<const Node*>{shape, cidx, crest, gather, unsq, concat, ctwo, shp, idx, dim0, dim0u, rest,
                                                               target, two})
      QVERIFY2(g.find(gone->id()) == -1, gone->label().c_str());
    for (const Node* kept : std::initializer_list<const Node*>{x, reshape, r, div, y}) QVERIFY2(g.find(kept->id()) > 0, kept->label().c_str());
    QCOMPARE(g.nodes[size_t(g.find(reshape->id()))].extra, QStringLiteral("shape target 3"));
    // Selecting a folded element shows the box that lists it.
    QCOMPARE(g.shownAs(gather->id()), g.find(reshape->id()));
    QCOMPARE(g.shownAs(ctwo->id()), g.find(div->id()));
    QCOMPARE(g.shownAs(div->id()), g.find(div->id()));
    QCOMPARE(g.nodes[size_t(g.find(div->id()))].extra, QStringLiteral("two scalar"));
    const int state = g.nodes[size_t(g.find(x->id()))].parent;
    QCOMPARE(g.nodes[size_t(state)].edges.size(), size_t(4)); // X->Reshape, Reshape->R, R->Div, Div->Y
  }

  // Opening a module group in place keeps the rest of the graph in order: every other node keeps its
  // rank (above/below) and its side (left/right) relative to every other one; only distances grow to
  // make room for the opened group.
  void openingAGroupKeepsTheOrder() {
    auto s = std::make_unique<Sdfg>("main");
    State* st = s->addState("state0");
    s->addArray("x", DType::Float32, {sym::Expr(4)});
    AccessNode* prev = st->add<AccessNode>("x");
    AccessNode* branch = nullptr;
    int k = 0;
    for (const char* module : {"a", "b", "c", "d"})
      for (const char* op : {"Conv", "Relu", "Add"}) {
        const std::string name = std::string("/") + module + "/" + op + "_" + std::to_string(k++);
        auto* l = addOp(*st, name.c_str(), op, {"in"});
        s->addArray(name + "_out", DType::Float32, {sym::Expr(4)}, true);
        st->addEdge(*prev, "", *l, "in", Memlet::full(prev->data(), {sym::Expr(4)}));
        auto* o = st->add<AccessNode>(name + "_out");
        st->addEdge(*l, "out", *o, "", Memlet::full(name + "_out", {sym::Expr(4)}));
        prev = o;
        if (k == 2) branch = o; // a side branch from inside `a` to the end
      }
    auto* side = addOp(*st, "Side_0", "Relu", {"in"});
    st->addEdge(*branch, "", *side, "in", Memlet::full(branch->data(), {sym::Expr(4)}));
    s->addArray("y", DType::Float32, {sym::Expr(4)});
    auto* y = st->add<AccessNode>("y");
    st->addEdge(*side, "out", *y, "", Memlet::full("y", {sym::Expr(4)}));
    ExpansionState x;
    LayoutCache cache;
    VisualGraph closed = VisualGraph::build(*s, x, {}, QApplication::font());
    layoutVisualGraph(closed, cache);
    const ElementId b = moduleGroupId(st->id(), QStringLiteral("b"));
    QVERIFY(closed.find(b) >= 0);
    x.set(b, true);
    VisualGraph open = VisualGraph::build(*s, x, {}, QApplication::font());
    layoutVisualGraph(open, cache);
    QVERIFY(open.nodes[size_t(open.find(b))].expanded);
    // The nodes drawn in both, but for b itself: scene centres before and after.
    std::vector<std::pair<QPointF, QPointF>> both;
    for (size_t i = 0; i < closed.nodes.size(); ++i) {
      const VisualNode& n = closed.nodes[i];
      if (n.element == b || n.kind == VisualKind::State || n.kind == VisualKind::Sdfg) continue;
      const int j = open.find(n.element);
      if (j < 0) continue;
      both.emplace_back(QRectF(closed.scenePos(int(i)), n.size).center(), QRectF(open.scenePos(j), open.nodes[size_t(j)].size).center());
    }
    QVERIFY(both.size() >= 8);
    auto sign = [](double d) { return d > 1 ? 1 : d < -1 ? -1 : 0; };
    for (size_t p = 0; p < both.size(); ++p)
      for (size_t q = p + 1; q < both.size(); ++q) {
        QCOMPARE(sign(both[p].second.y() - both[q].second.y()), sign(both[p].first.y() - both[q].first.y()));
        if (sign(both[p].first.y() - both[q].first.y()) == 0) // side by side: same sides after
          QCOMPARE(sign(both[p].second.x() - both[q].second.x()), sign(both[p].first.x() - both[q].first.x()));
      }
  }

  void opCategories() {
    QCOMPARE(opCategory("Conv"), OpCategory::Convolution);
    QCOMPARE(opCategory("Gemm"), OpCategory::MatMul);
    QCOMPARE(opCategory("LayerNormalization"), OpCategory::Normalization);
    QCOMPARE(opCategory("Relu"), OpCategory::Activation);
    QCOMPARE(opCategory("GlobalAveragePool"), OpCategory::Pooling);
    QCOMPARE(opCategory("Reshape"), OpCategory::DataMovement);
    QCOMPARE(opCategory("Shape"), OpCategory::Shape);
    QCOMPARE(opCategory("Loop"), OpCategory::ControlFlow);
    QCOMPARE(opCategory("LSTM"), OpCategory::Recurrent);
    QCOMPARE(opCategory("MyCustomOp"), OpCategory::Other);
    // Every category has a name and a colour of its own in both themes.
    for (auto kind : {ThemeKind::Light, ThemeKind::Dark}) {
      CanvasTheme t = CanvasTheme::of(kind);
      std::set<QRgb> colours;
      for (int c = 0; c < kOpCategoryCount; ++c) {
        QVERIFY(!opCategoryName(OpCategory(c)).isEmpty());
        colours.insert(t.category(OpCategory(c)).rgb());
      }
      QCOMPARE(int(colours.size()), kOpCategoryCount);
    }
  }

  void cachePerContainer() {
    auto s = sample();
    ExpansionState x;
    LayoutCache cache;
    VisualGraph g = VisualGraph::build(*s, x, {}, QApplication::font());
    LayoutStats first = layoutVisualGraph(g, cache);
    QCOMPARE(first.containers, 2);
    QCOMPARE(first.computed, 2);
    QVERIFY(g.nodes[0].size.width() > 100 && g.nodes[0].size.height() > 100);
    VisualGraph again = VisualGraph::build(*s, x, {}, QApplication::font());
    LayoutStats second = layoutVisualGraph(again, cache);
    QCOMPARE(second.computed, 0);
    QCOMPARE(second.cached, 2);
    QCOMPARE(again.nodes[0].size, g.nodes[0].size);
    // Opening the map: the map and its ancestors (state, root) are laid out, nothing else.
    x.set(s->allStates()[0]->nodeByLabel("map_i")->id(), true);
    VisualGraph open = VisualGraph::build(*s, x, {}, QApplication::font());
    LayoutStats third = layoutVisualGraph(open, cache);
    QCOMPARE(third.containers, 3);
    QCOMPARE(third.computed, 3);
    // Closing it again is free.
    x.set(s->allStates()[0]->nodeByLabel("map_i")->id(), false);
    VisualGraph closed = VisualGraph::build(*s, x, {}, QApplication::font());
    QCOMPARE(layoutVisualGraph(closed, cache).computed, 0);
    // Every child lies inside its container.
    for (size_t i = 1; i < open.nodes.size(); ++i) {
      const VisualNode& n = open.nodes[i];
      QRectF parent(open.scenePos(n.parent), open.nodes[size_t(n.parent)].size);
      QRectF self(open.scenePos(int(i)), n.size);
      QVERIFY2(parent.adjusted(-1, -1, 1, 1).contains(self), qPrintable(n.label));
    }
  }
};

QTEST_MAIN(TestGraphLayout)
#include "tst_GraphLayout.moc"
