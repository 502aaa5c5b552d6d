// tst_OutlineModel: the outline tree of views::OutlineModel over a hand-built SDFG — rows and nesting
// (data group, states, map scopes, a library node's subgraph, a nested SDFG, a loop region), the text
// of each column, the id and path roles, indexForId() round trips, resets (nullptr, a new SDFG), and
// QAbstractItemModelTester over all of it.
#include "views/OutlineModel.h"
#include "views/ModuleGroups.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"
#include "core/ir/Tensor.h"

#include <QAbstractItemModelTester>
#include <QElapsedTimer>
#include <QSignalSpy>
#include <QTest>

#include <functional>
#include <memory>

using namespace dcw;
using namespace dcw::ir;
using dcw::views::OutlineModel;

namespace {

// main
// ├─ Data: X (input), Y (output), T (transient)
// ├─ state0: X -> Relu_0 [subgraph body: Data a; state s: a] -> T -> map_i { t, map_i_exit } -> Y
// ├─ state1: nested [SDFG inner: Data q; state s2: q]
// └─ loop (i = 0; i < 4; i + 1): inner_state
std::unique_ptr<Sdfg> buildSample() {
  auto sdfg = std::make_unique<Sdfg>("main");
  sdfg->addArray("X", DType::Float32, {sym::Expr(4)});
  sdfg->addArray("Y", DType::Float32, {sym::Expr(4)});
  sdfg->addArray("T", DType::Float32, {sym::Expr(4)}, /*transient=*/true);
  sdfg->inputs = {"X"};
  sdfg->outputs = {"Y"};

  State* st = sdfg->addState("state0");
  auto* x = st->add<AccessNode>("X");

  auto relu = std::make_unique<LibraryNode>("Relu_0");
  relu->opType = "Relu";
  relu->opsetVersion = 14;
  relu->addIn({"X"});
  relu->addOut({"Y"});
  auto body = std::make_unique<Sdfg>("relu_body");
  body->addArray("a", DType::Float32, {sym::Expr(4)});
  body->addState("s")->add<AccessNode>("a");
  relu->addSubgraph("body", std::move(body));
  auto* lib = static_cast<LibraryNode*>(st->addNode(std::move(relu)));

  auto* t = st->add<AccessNode>("T");
  auto* me = st->add<MapEntry>("map_i");
  me->params = {"i"};
  me->range = Subset({Range::full(4)});
  me->schedule = Schedule::CpuMulticore;
  me->addIn({"IN_T"});
  me->addOut({"OUT_T"});
  auto* tk = st->add<Tasklet>("t", "y = x + 1");
  tk->addIn({"x"});
  tk->addOut({"y"});
  auto* mx = st->add<MapExit>("map_i_exit");
  mx->addIn({"IN_Y"});
  mx->addOut({"OUT_Y"});
  me->exitId = mx->id();
  mx->entryId = me->id();
  auto* y = st->add<AccessNode>("Y");

  st->addEdge(*x, "", *lib, "X", Memlet::full("X", {sym::Expr(4)}));
  st->addEdge(*lib, "Y", *t, "", Memlet::full("T", {sym::Expr(4)}));
  st->addEdge(*t, "", *me, "IN_T", Memlet::full("T", {sym::Expr(4)}));
  st->addEdge(*me, "OUT_T", *tk, "x", Memlet::simple("T", Subset({Range::index(sym::Expr::symbol("i"))})));
  st->addEdge(*tk, "y", *mx, "IN_Y", Memlet::simple("Y", Subset({Range::index(sym::Expr::symbol("i"))})));
  st->addEdge(*mx, "OUT_Y", *y, "", Memlet::full("Y", {sym::Expr(4)}));

  State* st1 = sdfg->addState("state1");
  auto inner = std::make_unique<Sdfg>("inner");
  inner->addArray("q", DType::Int64, {sym::Expr(2)});
  inner->addState("s2")->add<AccessNode>("q");
  st1->add<NestedSdfgNode>("nested", std::move(inner));
  sdfg->addEdge(st->id(), st1->id());

  auto loop = std::make_unique<LoopRegion>("loop");
  loop->loopVariable = "i";
  loop->init = sym::Expr(0);
  loop->condition = *sym::Expr::parse("i < 4");
  loop->update = sym::Expr::symbol("i") + 1;
  auto* lr = static_cast<LoopRegion*>(sdfg->addBlock(std::move(loop)));
  lr->addState("inner_state");
  sdfg->addEdge(st1->id(), lr->id());
  return sdfg;
}

QString text(const QAbstractItemModel& m, const QModelIndex& parent, int row, int column) {
  return m.index(row, column, parent).data().toString();
}

// Finds the first row (depth first) whose name is `name`.
QModelIndex findByName(const QAbstractItemModel& m, const QString& name, const QModelIndex& parent = {}) {
  for (int r = 0; r < m.rowCount(parent); ++r) {
    QModelIndex i = m.index(r, 0, parent);
    if (i.data().toString() == name) return i;
    QModelIndex found = findByName(m, name, i);
    if (found.isValid()) return found;
  }
  return {};
}

void forEachRow(const QAbstractItemModel& m, const std::function<void(const QModelIndex&)>& fn, const QModelIndex& parent = {}) {
  for (int r = 0; r < m.rowCount(parent); ++r) {
    QModelIndex i = m.index(r, 0, parent);
    fn(i);
    forEachRow(m, fn, i);
  }
}

} // namespace

class TestOutlineModel : public QObject {
  Q_OBJECT

private slots:
  // As on the canvas: a state's nodes under rows for their modules (`encoder` > `layer.0`), with op
  // counts, ids the canvas selects and no IR path; a weight under the op that reads it. Either can be
  // turned off: the weight then sits in its readers' module, and without groups the state is flat.
  void modulesAndFoldedWeights() {
    auto s = std::make_unique<Sdfg>("main");
    auto payload = std::make_shared<Tensor>();
    payload->dtype = DType::Float32;
    payload->dims = {4, 4};
    payload->bytes = std::make_shared<const std::string>(64, '\0');
    s->addArray("X", DType::Float32, {sym::Expr(4)});
    State* st = s->addState("state0");
    AccessNode* prev = st->add<AccessNode>("X");
    for (int layer = 0; layer < 2; ++layer) {
      const std::string w = "encoder.layer." + std::to_string(layer) + ".weight";
      s->addArray(w, DType::Float32, {sym::Expr(4), sym::Expr(4)})->constant = payload;
      for (const char* op : {"MatMul", "Add"}) {
        const std::string module = "/encoder/layer." + std::to_string(layer) + "/";
        auto* l = st->add<LibraryNode>(module + op);
        l->opType = op;
        l->addIn({"A"});
        l->addIn({"B"});
        l->addOut({"C"});
        const std::string out = module + op + "_output_0";
        s->addArray(out, DType::Float32, {sym::Expr(4)}, true);
        st->addEdge(*prev, "", *l, "A", Memlet::full(prev->data(), {sym::Expr(4)}));
        if (std::string(op) == "MatMul") {
          auto* wa = st->add<AccessNode>(w);
          st->addEdge(*wa, "", *l, "B", Memlet::full(w, {sym::Expr(4), sym::Expr(4)}));
        } else {
          st->addEdge(*prev, "", *l, "B", Memlet::full(prev->data(), {sym::Expr(4)}));
        }
        auto* o = st->add<AccessNode>(out);
        st->addEdge(*l, "C", *o, "", Memlet::full(out, {sym::Expr(4)}));
        prev = o;
      }
    }
    OutlineModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::Fatal);
    m.setSdfg(s.get());
    const QModelIndex state = findByName(m, QStringLiteral("state0"));
    QVERIFY(state.isValid());
    QCOMPARE(m.rowCount(state), 2); // X, encoder
    const QModelIndex encoder = m.index(1, 0, state);
    QCOMPARE(encoder.data().toString(), QStringLiteral("encoder"));
    QCOMPARE(m.index(1, OutlineModel::KindColumn, state).data().toString(), QStringLiteral("module"));
    QVERIFY(m.index(1, OutlineModel::DetailsColumn, state).data().toString().startsWith(QStringLiteral("4 ops · 32 params")));
    QCOMPARE(m.rowCount(encoder), 3); // layer.0, the array between the layers, layer.1
    const QModelIndex layer0 = findByName(m, QStringLiteral("layer.0"));
    const ElementId groupId = views::moduleGroupId(st->id(), QStringLiteral("encoder/layer.0"));
    QCOMPARE(layer0.data(OutlineModel::ElementIdRole).toULongLong(), qulonglong(groupId));
    QCOMPARE(m.idForIndex(layer0), groupId);
    QCOMPARE(m.indexForId(groupId), layer0);
    QVERIFY(!layer0.data(OutlineModel::PathRole).isValid());
    QCOMPARE(layer0.data(Qt::ToolTipRole).toString().section(QLatin1Char('\n'), 0, 0), QStringLiteral("encoder/layer.0"));
    const QModelIndex matmul = findByName(m, QStringLiteral("/encoder/layer.0/MatMul"));
    QCOMPARE(matmul.parent(), layer0);
    QCOMPARE(m.rowCount(matmul), 1); // its weight
    QCOMPARE(m.index(0, 0, matmul).data().toString(), QStringLiteral("encoder.layer.0.weight"));
    // Weights where they are: in their readers' module.
    m.setFoldIntoReaders(false);
    const QModelIndex weight = findByName(m, QStringLiteral("encoder.layer.0.weight"), findByName(m, QStringLiteral("state0")));
    QCOMPARE(weight.parent().data().toString(), QStringLiteral("layer.0"));
    // No groups: the state's nodes flat (weights still under their ops when folded).
    m.setFoldIntoReaders(true);
    m.setModuleGroups(false);
    QCOMPARE(findByName(m, QStringLiteral("encoder")), QModelIndex());
    QCOMPARE(findByName(m, QStringLiteral("/encoder/layer.1/Add")).parent(), findByName(m, QStringLiteral("state0")));
  }

  void emptyModel() {
    OutlineModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QCOMPARE(m.rowCount(), 0);
    QCOMPARE(m.columnCount(), 3);
    QCOMPARE(m.totalRows(), 0);
    QVERIFY(!m.indexForId(1).isValid());
    QCOMPARE(m.headerData(0, Qt::Horizontal).toString(), QStringLiteral("Name"));
    QCOMPARE(m.headerData(1, Qt::Horizontal).toString(), QStringLiteral("Kind"));
    QCOMPARE(m.headerData(2, Qt::Horizontal).toString(), QStringLiteral("Type/Details"));
    m.setSdfg(nullptr);
    QCOMPARE(m.rowCount(), 0);
  }

  void hierarchy() {
    auto sdfg = buildSample();
    OutlineModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::Fatal);
    m.setSdfg(sdfg.get());

    QCOMPARE(m.rowCount(), 1);
    QModelIndex root = m.index(0, 0);
    QCOMPARE(root.data().toString(), QStringLiteral("main"));
    QCOMPARE(text(m, {}, 0, 1), QStringLiteral("sdfg"));
    QCOMPARE(m.rowCount(root), 4); // Data, state0, state1, loop

    // Data group: no element, one row per descriptor with role and type.
    QModelIndex data = m.index(0, 0, root);
    QCOMPARE(data.data().toString(), QStringLiteral("Data"));
    QVERIFY(!data.data(OutlineModel::ElementIdRole).isValid());
    QVERIFY(!data.data(OutlineModel::PathRole).isValid());
    QCOMPARE(m.rowCount(data), 3);
    QCOMPARE(text(m, data, 0, 0), QStringLiteral("X"));
    QCOMPARE(text(m, data, 0, 1), QStringLiteral("input"));
    QCOMPARE(text(m, data, 0, 2), QString::fromStdString(sdfg->findData("X")->typeString()));
    QCOMPARE(text(m, data, 1, 1), QStringLiteral("output"));
    QCOMPARE(text(m, data, 2, 0), QStringLiteral("T"));
    QCOMPARE(text(m, data, 2, 1), QStringLiteral("transient"));
    QCOMPARE(m.index(2, 0, data).data(OutlineModel::PathRole).toString(), QStringLiteral("main/@T"));

    // state0: top-level nodes in state order; the map's body hangs under its entry, exit last.
    QModelIndex st0 = m.index(1, 0, root);
    QCOMPARE(st0.data().toString(), QStringLiteral("state0"));
    QCOMPARE(text(m, root, 1, 1), QStringLiteral("state"));
    QCOMPARE(m.rowCount(st0), 5);
    QStringList names;
    for (int r = 0; r < m.rowCount(st0); ++r) names << text(m, st0, r, 0);
    QCOMPARE(names, (QStringList{"X", "Relu_0", "T", "map_i", "Y"}));
    QCOMPARE(text(m, st0, 0, 1), QStringLiteral("access"));
    QCOMPARE(text(m, st0, 0, 2), QString::fromStdString(sdfg->findData("X")->typeString()));

    // The library node shows its op class and expands into its subgraph.
    QModelIndex relu = m.index(1, 0, st0);
    QCOMPARE(text(m, st0, 1, 1), QStringLiteral("Relu"));
    QCOMPARE(m.rowCount(relu), 1);
    QModelIndex body = m.index(0, 0, relu);
    QCOMPARE(body.data().toString(), QStringLiteral("body"));
    QCOMPARE(text(m, relu, 0, 1), QStringLiteral("subgraph"));
    QCOMPARE(m.rowCount(body), 2); // Data, s
    QCOMPARE(text(m, body, 1, 0), QStringLiteral("s"));
    QModelIndex s = m.index(1, 0, body);
    QCOMPARE(m.rowCount(s), 1);
    QCOMPARE(m.index(0, 0, s).data(OutlineModel::PathRole).toString(), QStringLiteral("main/state0/Relu_0/body/s/a"));

    // The map scope.
    QModelIndex map = m.index(3, 0, st0);
    QCOMPARE(text(m, st0, 3, 1), QStringLiteral("map"));
    QVERIFY(text(m, st0, 3, 2).contains(QStringLiteral("i=0:4")));
    QVERIFY(text(m, st0, 3, 2).contains(QStringLiteral("cpu_multicore")));
    QCOMPARE(m.rowCount(map), 2);
    QCOMPARE(text(m, map, 0, 0), QStringLiteral("t"));
    QCOMPARE(text(m, map, 0, 1), QStringLiteral("tasklet"));
    QCOMPARE(text(m, map, 0, 2), QStringLiteral("y = x + 1"));
    QCOMPARE(text(m, map, 1, 0), QStringLiteral("map_i_exit"));
    QCOMPARE(text(m, map, 1, 1), QStringLiteral("map exit"));
    QCOMPARE(m.index(0, 0, map).data(OutlineModel::PathRole).toString(), QStringLiteral("main/state0/t"));
    QVERIFY(m.flags(m.index(0, 0, map)).testFlag(Qt::ItemNeverHasChildren));

    // A nested SDFG node expands into its SDFG.
    QModelIndex st1 = m.index(2, 0, root);
    QCOMPARE(m.rowCount(st1), 1);
    QModelIndex nested = m.index(0, 0, st1);
    QCOMPARE(text(m, st1, 0, 1), QStringLiteral("nested sdfg"));
    QCOMPARE(m.rowCount(nested), 1);
    QModelIndex inner = m.index(0, 0, nested);
    QCOMPARE(inner.data().toString(), QStringLiteral("inner"));
    QCOMPARE(m.rowCount(inner), 2); // Data, s2

    // The loop region holds its state.
    QModelIndex loop = m.index(3, 0, root);
    QCOMPARE(text(m, root, 3, 1), QStringLiteral("loop"));
    QVERIFY(text(m, root, 3, 2).startsWith(QStringLiteral("for i = 0;")));
    QCOMPARE(m.rowCount(loop), 1);
    QCOMPARE(text(m, loop, 0, 0), QStringLiteral("inner_state"));

    // Parents point back.
    QCOMPARE(m.parent(m.index(0, 0, map)), map);
    QCOMPARE(m.parent(map), st0);
    QCOMPARE(m.parent(st0), root);
    QVERIFY(!m.parent(root).isValid());
  }

  void idsAndPaths() {
    auto sdfg = buildSample();
    OutlineModel m;
    m.setSdfg(sdfg.get());
    PathIndex paths(*sdfg);
    int rows = 0, elements = 0;
    forEachRow(m, [&](const QModelIndex& i) {
      ++rows;
      QVariant idv = i.data(OutlineModel::ElementIdRole);
      if (!idv.isValid()) {
        QCOMPARE(i.data().toString(), QStringLiteral("Data"));
        QCOMPARE(m.idForIndex(i), kNoId);
        return;
      }
      ++elements;
      ElementId id = idv.toULongLong();
      QVERIFY(id != kNoId);
      QCOMPARE(m.idForIndex(i), id);
      QCOMPARE(m.indexForId(id), i);
      QVERIFY(sdfg->findElement(id) != nullptr);
      QCOMPARE(i.data(OutlineModel::PathRole).toString(), QString::fromStdString(paths.pathOf(id)));
      QCOMPARE(i.data(OutlineModel::ElementKindRole).toInt(), int(sdfg->findElement(id)->kind()));
      // Other columns carry the same id.
      QCOMPARE(i.siblingAtColumn(2).data(OutlineModel::ElementIdRole).toULongLong(), id);
    });
    QCOMPARE(rows, m.totalRows());
    QVERIFY(elements > 20);

    // Every node and data descriptor of the tree has a row.
    sdfg->forEachElement([&](const Element& e) {
      if (e.kind() == ElementKind::DataflowEdge || e.kind() == ElementKind::InterstateEdge) return;
      QVERIFY2(m.indexForId(e.id()).isValid(), e.label().c_str());
    });

    // Round trip through a path.
    auto t = resolvePath(*sdfg, "main/state0/t");
    QVERIFY(t.ok());
    QModelIndex ti = m.indexForId((*t)->id());
    QCOMPARE(ti.data().toString(), QStringLiteral("t"));
    QCOMPARE(ti.parent().data().toString(), QStringLiteral("map_i"));
    QVERIFY(!m.indexForId(sdfg->peekNextId() + 100).isValid());
    QVERIFY(!m.indexForId(kNoId).isValid());
  }

  void resets() {
    auto a = buildSample();
    auto b = std::make_unique<Sdfg>("other");
    b->addScalar("n", DType::Int32);
    b->addState("only");

    OutlineModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::Fatal);
    QSignalSpy reset(&m, &QAbstractItemModel::modelReset);
    m.setSdfg(a.get());
    QCOMPARE(m.sdfg(), a.get());
    QVERIFY(m.totalRows() > 0);
    ElementId tId = (*resolvePath(*a, "main/state0/t"))->id();
    QVERIFY(m.indexForId(tId).isValid());

    m.setSdfg(nullptr);
    QCOMPARE(m.rowCount(), 0);
    QCOMPARE(m.totalRows(), 0);
    QVERIFY(!m.indexForId(tId).isValid());
    a.reset(); // the model no longer refers to it

    m.setSdfg(b.get());
    QCOMPARE(m.rowCount(), 1);
    QModelIndex root = m.index(0, 0);
    QCOMPARE(root.data().toString(), QStringLiteral("other"));
    QCOMPARE(m.rowCount(root), 2); // Data, only
    QCOMPARE(text(m, m.index(0, 0, root), 0, 1), QStringLiteral("argument"));
    QCOMPARE(text(m, root, 1, 0), QStringLiteral("only"));

    // Resetting to the same SDFG after an edit picks the edit up.
    b->addState("later");
    m.setSdfg(b.get());
    QCOMPARE(m.rowCount(m.index(0, 0)), 3);
    QCOMPARE(reset.count(), 4);
  }

  void largeGraph() {
    // 20000 nodes in one state: the tree is built once per reset, lookups do not walk the SDFG.
    auto sdfg = std::make_unique<Sdfg>("big");
    State* st = sdfg->addState("state0");
    constexpr int kNodes = 20000;
    for (int i = 0; i < kNodes; ++i) {
      auto n = std::make_unique<LibraryNode>("op_" + std::to_string(i));
      n->opType = "Relu";
      st->addNode(std::move(n));
    }
    OutlineModel m;
    QElapsedTimer timer;
    timer.start();
    m.setSdfg(sdfg.get());
    QModelIndex state = m.index(0, 0, m.index(0, 0));
    QCOMPARE(m.rowCount(state), kNodes);
    QModelIndex last = m.index(kNodes - 1, 0, state);
    QCOMPARE(last.data().toString(), QStringLiteral("op_%1").arg(kNodes - 1));
    QCOMPARE(m.indexForId(m.idForIndex(last)), last);
    for (int i = 0; i < kNodes; i += 97) QVERIFY(m.index(i, 1, state).data().toString() == QStringLiteral("Relu"));
    QVERIFY2(timer.elapsed() < 5000, qPrintable(QStringLiteral("took %1 ms").arg(timer.elapsed())));
  }
};

QTEST_GUILESS_MAIN(TestOutlineModel)
#include "tst_OutlineModel.moc"
