// tst_GraphCanvas: views::GraphCanvas on the offscreen platform over a hand-built SDFG (a map scope,
// an If-like library node with two bodies, a nested SDFG, a loop region) — background layout and
// layoutFinished, expand/collapse in place (library bodies shown inside the node), expand all,
// search by name / op type / regex with next/previous revealing hidden hits, selection intent from
// clicks and keyboard moves (producer/consumer), overlays, themes, level of detail while painting at
// every zoom, and SVG/PNG export (the SVG keeps node names as text).
#include "views/GraphCanvas.h"
#include "views/Theme.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"
#include "views/Minimap.h"

#include <QFile>
#include <QImage>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QHelpEvent>
#include <QTest>
#include <QToolTip>

using namespace dcw;
using namespace dcw::ir;
using dcw::views::GraphCanvas;

namespace {

std::unique_ptr<Sdfg> buildSample() {
  auto sdfg = std::make_unique<Sdfg>("main");
  sdfg->addArray("X", DType::Float32, {sym::Expr(4)});
  sdfg->addArray("Y", DType::Float32, {sym::Expr(4)});
  sdfg->addArray("T", DType::Float32, {sym::Expr(4)}, true);
  State* st = sdfg->addState("state0");
  auto* x = st->add<AccessNode>("X");
  auto* lib = st->add<LibraryNode>("If_0");
  lib->opType = "If";
  lib->addIn({"X"});
  lib->addOut({"Y"});
  for (const char* branch : {"then_branch", "else_branch"}) {
    auto body = std::make_unique<Sdfg>(std::string(branch) + "_sdfg");
    body->addArray("a", DType::Float32, {sym::Expr(4)});
    State* bs = body->addState("s");
    bs->add<Tasklet>(std::string(branch) + "_tasklet", "a = 1");
    lib->addSubgraph(branch, std::move(body));
  }
  auto* t = st->add<AccessNode>("T");
  auto* me = st->add<MapEntry>("map_i");
  me->params = {"i"};
  me->range = Subset({Range::full(4)});
  auto* tk = st->add<Tasklet>("inner_tasklet", "y = x + 1");
  auto* mx = st->add<MapExit>("map_i_exit");
  me->exitId = mx->id();
  mx->entryId = me->id();
  auto* y = st->add<AccessNode>("Y");
  Subset one({Range::index(sym::Expr::symbol("i"))});
  st->addEdge(*x, "", *lib, "X", Memlet::full("X", {sym::Expr(4)}));
  st->addEdge(*lib, "Y", *t, "", Memlet::full("T", {sym::Expr(4)}));
  st->addEdge(*t, "", *me, "IN_T", Memlet::full("T", {sym::Expr(4)}));
  st->addEdge(*me, "OUT_T", *tk, "x", Memlet::simple("T", one));
  st->addEdge(*tk, "y", *mx, "IN_Y", Memlet::simple("Y", one));
  st->addEdge(*mx, "OUT_Y", *y, "", Memlet::full("Y", {sym::Expr(4)}));
  State* st1 = sdfg->addState("state1");
  auto inner = std::make_unique<Sdfg>("inner");
  inner->addArray("q", DType::Int64, {sym::Expr(2)});
  inner->addState("s2")->add<AccessNode>("q");
  st1->add<NestedSdfgNode>("nested", std::move(inner));
  sdfg->addEdge(st->id(), st1->id());
  auto loop = std::make_unique<LoopRegion>("loop");
  loop->loopVariable = "k";
  loop->condition = *sym::Expr::parse("k < 4");
  loop->update = sym::Expr::symbol("k") + 1;
  auto* lr = static_cast<LoopRegion*>(sdfg->addBlock(std::move(loop)));
  lr->addState("loop_body");
  sdfg->addEdge(st1->id(), lr->id());
  return sdfg;
}

ElementId idOf(const Sdfg& s, const std::string& label) {
  ElementId found = kNoId;
  s.forEachElement([&](const Element& e) {
    if (found == kNoId && e.label() == label && e.kind() != ElementKind::Data) found = e.id();
  });
  return found;
}

bool visible(const GraphCanvas& c, ElementId id) { return c.visualGraph() && c.visualGraph()->find(id) >= 0; }

} // namespace

class TestGraphCanvas : public QObject {
  Q_OBJECT

  std::unique_ptr<Sdfg> sdfg_;
  std::unique_ptr<GraphCanvas> canvas_;

  void waitLayout() { QTRY_VERIFY_WITH_TIMEOUT(!canvas_->isLayoutPending(), 20000); }

private slots:
  void init() {
    sdfg_ = buildSample();
    canvas_ = std::make_unique<GraphCanvas>();
    canvas_->resize(900, 700);
    canvas_->show();
    QVERIFY(QTest::qWaitForWindowExposed(canvas_.get()));
    QSignalSpy done(canvas_.get(), &GraphCanvas::layoutFinished);
    canvas_->setSdfg(sdfg_.get());
    QVERIFY(canvas_->isLayoutPending()); // layout runs in the background
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 20000);
  }
  void cleanup() {
    canvas_.reset();
    sdfg_.reset();
  }

  void initialView() {
    const auto* g = canvas_->visualGraph();
    QVERIFY(g);
    QVERIFY(visible(*canvas_, idOf(*sdfg_, "If_0")));
    QVERIFY(visible(*canvas_, idOf(*sdfg_, "map_i")));
    QVERIFY(!visible(*canvas_, idOf(*sdfg_, "inner_tasklet")));   // map collapsed
    QVERIFY(!visible(*canvas_, idOf(*sdfg_, "then_branch_tasklet"))); // library node collapsed
    QVERIFY(visible(*canvas_, idOf(*sdfg_, "loop_body")));
    QVERIFY(canvas_->isExpandable(idOf(*sdfg_, "If_0")));
    QVERIFY(!canvas_->isExpandable(idOf(*sdfg_, "X")));
    QVERIFY(!canvas_->scene()->items().isEmpty());
    QVERIFY(canvas_->lastLayoutStats().containers >= 3);
  }

  void expandCollapseInPlace() {
    ElementId lib = idOf(*sdfg_, "If_0"), map = idOf(*sdfg_, "map_i");
    QSignalSpy changed(canvas_.get(), &GraphCanvas::expansionChanged);
    canvas_->setExpanded(lib, true);
    waitLayout();
    QVERIFY(canvas_->isExpanded(lib));
    QVERIFY(visible(*canvas_, idOf(*sdfg_, "then_branch_tasklet")));
    QVERIFY(visible(*canvas_, idOf(*sdfg_, "else_branch_tasklet")));
    // The bodies are drawn inside the node's box.
    QRectF outer = canvas_->sceneRectOf(lib), inner = canvas_->sceneRectOf(idOf(*sdfg_, "then_branch_tasklet"));
    QVERIFY(outer.contains(inner));
    canvas_->toggleExpanded(map);
    waitLayout();
    QVERIFY(canvas_->isExpanded(map));
    QVERIFY(canvas_->sceneRectOf(map).isValid());
    QVERIFY(visible(*canvas_, idOf(*sdfg_, "inner_tasklet")));
    canvas_->toggleExpanded(map);
    waitLayout();
    QVERIFY(!canvas_->isExpanded(map));
    QVERIFY(!visible(*canvas_, idOf(*sdfg_, "inner_tasklet")));
    QCOMPARE(canvas_->lastLayoutStats().computed, 0); // back to a cached layout
    QCOMPARE(changed.count(), 3);
    canvas_->collapseAll();
    waitLayout();
    QVERIFY(!visible(*canvas_, idOf(*sdfg_, "then_branch_tasklet")));
    canvas_->expandAll();
    waitLayout();
    for (const char* l : {"inner_tasklet", "then_branch_tasklet", "q", "loop_body"})
      QVERIFY2(visible(*canvas_, idOf(*sdfg_, l)), l);
    // Collapsing a state hides its nodes.
    canvas_->setExpanded(idOf(*sdfg_, "state0"), false);
    waitLayout();
    QVERIFY(!visible(*canvas_, idOf(*sdfg_, "X")));
  }

  void search() {
    QSignalSpy requested(canvas_.get(), &GraphCanvas::selectionRequested);
    QCOMPARE(canvas_->search(QStringLiteral("TASKLET"), views::SearchMode::Name), 3);
    QCOMPARE(canvas_->search(QStringLiteral("if"), views::SearchMode::OpType), 1);
    QCOMPARE(canvas_->search(QStringLiteral("^(X|Y)$"), views::SearchMode::Regex), 2);
    QCOMPARE(canvas_->search(QStringLiteral("(unclosed"), views::SearchMode::Regex), 0);
    QVERIFY(canvas_->searchError().contains(QStringLiteral("column")));
    // Next reveals a hit hidden in a collapsed map and asks for its selection.
    QCOMPARE(canvas_->search(QStringLiteral("inner_tasklet"), views::SearchMode::Name), 1);
    canvas_->nextMatch();
    QCOMPARE(canvas_->currentMatch(), 0);
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested.last().first().toULongLong(), idOf(*sdfg_, "inner_tasklet"));
    waitLayout();
    QVERIFY(visible(*canvas_, idOf(*sdfg_, "inner_tasklet")));
    QVERIFY(canvas_->isExpanded(idOf(*sdfg_, "map_i")));
    // Previous wraps around.
    QCOMPARE(canvas_->search(QStringLiteral("_tasklet"), views::SearchMode::Name), 3);
    canvas_->previousMatch();
    QCOMPARE(canvas_->currentMatch(), 2);
    canvas_->nextMatch();
    QCOMPARE(canvas_->currentMatch(), 0);
    canvas_->clearSearch();
    QCOMPARE(canvas_->matchCount(), 0);
  }

  void clicksAndKeys() {
    QSignalSpy requested(canvas_.get(), &GraphCanvas::selectionRequested);
    ElementId lib = idOf(*sdfg_, "If_0"), t = idOf(*sdfg_, "T"), x = idOf(*sdfg_, "X");
    canvas_->showSelection(lib);
    QVERIFY(QTest::qWaitForWindowExposed(canvas_.get()));
    // A click on a node asks for its selection.
    QPoint at = canvas_->mapFromScene(canvas_->sceneRectOf(t).center());
    QTest::mouseClick(canvas_->viewport(), Qt::LeftButton, {}, at);
    QCOMPARE(requested.count(), 1);
    QCOMPARE(requested.last().first().toULongLong(), t);
    // Up goes to the producer, Down to the consumer.
    canvas_->showSelection(lib);
    canvas_->setFocus();
    QTest::keyClick(canvas_.get(), Qt::Key_Up);
    QCOMPARE(requested.last().first().toULongLong(), x);
    QTest::keyClick(canvas_.get(), Qt::Key_Down);
    QCOMPARE(requested.last().first().toULongLong(), t);
    // Enter opens the selected node, Minus closes it.
    QTest::keyClick(canvas_.get(), Qt::Key_Return);
    waitLayout();
    QVERIFY(canvas_->isExpanded(lib));
    QTest::keyClick(canvas_.get(), Qt::Key_Minus);
    waitLayout();
    QVERIFY(!canvas_->isExpanded(lib));
    // Selecting something hidden reveals it.
    canvas_->showSelection(idOf(*sdfg_, "then_branch_tasklet"));
    waitLayout();
    QVERIFY(visible(*canvas_, idOf(*sdfg_, "then_branch_tasklet")));
  }

  void paintsAtEveryZoomBothThemesWithOverlay() {
    canvas_->expandAll();
    waitLayout();
    canvas_->setOverlay(QStringLiteral("FLOPs per node"), {{idOf(*sdfg_, "If_0"), 10.0}, {idOf(*sdfg_, "inner_tasklet"), 1000.0}});
    QVERIFY(canvas_->hasOverlay());
    for (auto theme : {views::ThemeKind::Light, views::ThemeKind::Dark}) {
      canvas_->setTheme(theme);
      for (double s : {0.05, 0.2, 0.5, 1.0, 3.0}) {
        canvas_->setTransform(QTransform::fromScale(s, s));
        QImage img = canvas_->viewport()->grab().toImage();
        QVERIFY(!img.isNull());
      }
    }
    canvas_->setOverlay({}, {});
    QVERIFY(!canvas_->hasOverlay());
    canvas_->fitToView();
    QVERIFY(canvas_->transform().m11() > 0);
    canvas_->minimap()->refresh();
  }

  // Zoomed far out, frames come from one picture of the whole graph (not item by item), with the
  // selection marked on top; closer in, items draw again.
  void farZoomDrawsFromThePicture() {
    canvas_->setTransform(QTransform::fromScale(0.01, 0.01));
    canvas_->centerOn(canvas_->scene()->itemsBoundingRect().center());
    const int before = canvas_->overviewFrames();
    QImage plain = canvas_->viewport()->grab().toImage();
    QVERIFY(canvas_->overviewFrames() > before);
    const QColor selection = views::CanvasTheme::light().selection;
    auto count = [&](const QImage& img) {
      int n = 0;
      for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) n += img.pixelColor(x, y) == selection;
      return n;
    };
    QCOMPARE(count(plain), 0);
    canvas_->showSelection(idOf(*sdfg_, "X"));
    canvas_->setTransform(QTransform::fromScale(0.01, 0.01));
    canvas_->centerOn(canvas_->scene()->itemsBoundingRect().center());
    QImage marked = canvas_->viewport()->grab().toImage();
    QVERIFY(count(marked) >= 30); // at least a 6x6 mark
    const int far = canvas_->overviewFrames();
    canvas_->setTransform(QTransform::fromScale(0.5, 0.5));
    (void)canvas_->viewport()->grab();
    QCOMPARE(canvas_->overviewFrames(), far);
  }

  // Hovering a node shows its lines as a tooltip, made when asked (items keep no strings of their own).
  // A frame paints what lies on screen, not the whole graph: the item's index gives the frame only the
  // nodes and edges meeting the exposed area (and the containers around them), bottom to top, and
  // every node on screen is among them.
  void drawsWhatIsOnScreen() {
    auto chain = std::make_unique<Sdfg>("chain");
    State* st = chain->addState("state0");
    chain->addArray("a0", DType::Float32, {sym::Expr(8)});
    AccessNode* prev = st->add<AccessNode>("a0");
    for (int i = 0; i < 300; ++i) {
      const std::string out = "a" + std::to_string(i + 1);
      chain->addArray(out, DType::Float32, {sym::Expr(8)}, true);
      auto* op = st->add<LibraryNode>("Relu_" + std::to_string(i));
      op->opType = "Relu";
      op->addIn({"X"});
      op->addOut({"Y"});
      auto* o = st->add<AccessNode>(out);
      st->addEdge(*prev, "", *op, "X", Memlet::full(prev->data(), {sym::Expr(8)}));
      st->addEdge(*op, "Y", *o, "", Memlet::full(out, {sym::Expr(8)}));
      prev = o;
    }
    QSignalSpy done(canvas_.get(), &GraphCanvas::layoutFinished);
    canvas_->setSdfg(chain.get());
    QTRY_COMPARE_WITH_TIMEOUT(done.count(), 1, 20000);
    canvas_->setTransform(QTransform());
    canvas_->centerOn(canvas_->sceneRectOf(idOf(*chain, "Relu_150")).center());
    const QRectF seen = canvas_->mapToScene(canvas_->viewport()->rect()).boundingRect();
    const views::GraphItem* item = canvas_->graphItem();
    QVERIFY(item);
    const std::vector<int> drawn = item->ranksIn(seen);
    QVERIFY2(drawn.size() * 10 < size_t(item->rankCount()), qPrintable(QString::number(drawn.size())));
    QVERIFY(std::is_sorted(drawn.begin(), drawn.end()));
    const auto* g = canvas_->visualGraph();
    int onScreen = 0;
    for (size_t i = 0; i < g->nodes.size(); ++i) {
      if (g->nodes[i].expanded || !seen.intersects(QRectF(g->scenePos(int(i)), g->nodes[i].size))) continue;
      ++onScreen;
      const auto hit = item->hit(QRectF(g->scenePos(int(i)), g->nodes[i].size).center());
      QCOMPARE(hit.node, int(i)); // found where it is drawn
    }
    QVERIFY(onScreen > 3);
    canvas_->setSdfg(nullptr);
  }

  void tooltipOnHover() {
    const QRectF r = canvas_->sceneRectOf(idOf(*sdfg_, "X"));
    QVERIFY(!r.isEmpty());
    canvas_->centerOn(r.center());
    const QPoint at = canvas_->mapFromScene(r.center());
    QHelpEvent help(QEvent::ToolTip, at, canvas_->viewport()->mapToGlobal(at));
    QCoreApplication::sendEvent(canvas_->viewport(), &help);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().startsWith(QStringLiteral("X")), qPrintable(QToolTip::text()));
    QToolTip::hideText();
  }

  void exportSvgAndPng() {
    canvas_->expandAll();
    waitLayout();
    QTemporaryDir dir;
    QString svg = dir.filePath(QStringLiteral("g.svg")), png = dir.filePath(QStringLiteral("g.png"));
    QString error;
    QVERIFY2(canvas_->exportSvg(svg, GraphCanvas::ExportRegion::WholeGraph, &error), qPrintable(error));
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray text = f.readAll();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains("<text"));
    for (const char* name : {"inner_tasklet", "then_branch_tasklet", "map_i", "state0", "If"})
      QVERIFY2(text.contains(name), name);
    QVERIFY2(canvas_->exportPng(png, GraphCanvas::ExportRegion::WholeGraph, 2.0, &error), qPrintable(error));
    QImage image(png);
    QRectF whole = canvas_->scene()->itemsBoundingRect().adjusted(-16, -16, 16, 16);
    QVERIFY(std::abs(image.width() - 2 * whole.width()) <= 2);
    QVERIFY(canvas_->exportPng(dir.filePath(QStringLiteral("view.png")), GraphCanvas::ExportRegion::CurrentView, 0.5, &error));
    // Refusals come back as text.
    QVERIFY(!canvas_->exportPng(png, GraphCanvas::ExportRegion::WholeGraph, 1e6, &error));
    QVERIFY(error.contains(QStringLiteral("too large")));
    QVERIFY(!canvas_->exportSvg(QStringLiteral("/nonexistent-dir/x.svg"), GraphCanvas::ExportRegion::WholeGraph, &error));
    QVERIFY(error.contains(QStringLiteral("cannot write")));
  }

  void emptyAndReset() {
    canvas_->setSdfg(nullptr);
    QVERIFY(!canvas_->visualGraph());
    QVERIFY(canvas_->scene()->items().isEmpty());
    QString error;
    QVERIFY(!canvas_->exportSvg(QDir::temp().filePath(QStringLiteral("dcw-empty.svg")), GraphCanvas::ExportRegion::WholeGraph, &error));
  }
};

QTEST_MAIN(TestGraphCanvas)
#include "tst_GraphCanvas.moc"
