// tst_MainWindow: dcw-gui's main window on the offscreen platform — opening a model fills the outline,
// the summary and the title; a bad file reports its error (loadFailed, no modal dialog in tests)
// without crashing and leaves the previous model on screen; recent files are remembered; the
// outline's QAbstractItemModelTester stays quiet through it all; dropped files open; File ▸ Close
// empties every panel, and opening and closing models over and over keeps the heap flat; Help ▸ Tour
// shows the README's tour (docs/tour.md, compiled in).
#include "support/TestPaths.h"
#include "tests/support/Prerequisites.h"
#include "app/gui/MainWindow.h"
#include "core/edit/History.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Walk.h"
#include "core/ir/State.h"
#include "views/CategoryLegend.h"
#include "views/CompareView.h"
#include "views/GraphCanvas.h"
#include "views/HistoryModel.h"

#include "views/OutlineModel.h"
#include "views/PropertyModel.h"
#include "views/Selection.h"
#include "views/SummaryView.h"
#include "views/TourDialog.h"

#include <QAbstractItemModelTester>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QScrollBar>
#include <QTest>
#include <QTextBrowser>
#include <QTreeView>
#include <QTreeWidget>
#include <QUrl>

#include <malloc.h>

using dcw::gui::MainWindow;
using dcw::views::OutlineModel;

namespace {

QString sourceFile(const char* relative) { return testpaths::qsource("/") + QLatin1String(relative); }

const char* const kGoodModel = "resources/examples/tiny_resnet.onnx";
const char* const kBadModel = "tests/data/bad/random_bytes.onnx";

// Bytes the process has allocated and not freed (every malloc arena, mmapped blocks included).
size_t heapInUse() {
  struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
}

// Shows `w` at 1400x900 without dialogs, opens `path` and waits for its laid-out graph and the events
// queued with the layout.
void openShown(MainWindow& w, const QString& path) {
  w.setShowsDialogs(false);
  w.resize(1400, 900);
  w.show();
  QVERIFY(QTest::qWaitForWindowExposed(&w));
  w.openFile(path);
  QTRY_VERIFY_WITH_TIMEOUT(!w.isLoading(), 60000);
  QTRY_VERIFY_WITH_TIMEOUT(!w.canvas()->isLayoutPending() && w.canvas()->visualGraph(), 30000);
  QTest::qWait(50);
}

} // namespace

class TestMainWindow : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() {
    // Keep the user's settings (recent files) out of the tests.
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("DCW-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_MainWindow"));
    QSettings().clear();
  }

  void emptyWindow() {
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.windowTitle(), QStringLiteral("DCW"));
    QCOMPARE(w.outlineModel()->rowCount(), 0);
    QVERIFY(w.sdfg() == nullptr);
    QVERIFY(!w.isLoading());
    QCOMPARE(w.summaryView()->opsTree()->topLevelItemCount(), 0);
    QCOMPARE(w.problemsList()->count(), 0);
  }

  void openGoodThenBad() {
    const QString good = sourceFile(kGoodModel);
    DCW_REQUIRE_FIXTURE(good);

    MainWindow w;
    w.setShowsDialogs(false);
    QAbstractItemModelTester tester(w.outlineModel(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    w.show();
    QSignalSpy loaded(&w, &MainWindow::modelLoaded);
    QSignalSpy failed(&w, &MainWindow::loadFailed);

    w.openFile(good);
    QVERIFY(w.isLoading());
    QVERIFY(w.findChild<QProgressBar*>(QStringLiteral("loadProgress"))->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(!w.isLoading(), 60000);
    QVERIFY2(failed.isEmpty(), failed.isEmpty() ? "" : qPrintable(failed.first().first().toString()));
    QCOMPARE(loaded.count(), 1);
    QCOMPARE(loaded.first().first().toString(), good);
    QVERIFY(!w.findChild<QProgressBar*>(QStringLiteral("loadProgress"))->isVisible());

    QCOMPARE(w.windowTitle(), QStringLiteral("DCW — tiny_resnet.onnx"));
    QCOMPARE(w.currentFile(), good);
    QVERIFY(w.sdfg() != nullptr);
    QCOMPARE(w.outlineModel()->rowCount(), 1);
    QVERIFY(w.outlineModel()->rowCount(w.outlineModel()->index(0, 0)) > 1); // data + at least one state
    QVERIFY(w.outlineModel()->totalRows() > 10);
    QVERIFY(w.outlineView()->isExpanded(w.outlineModel()->index(0, 0)));

    // The summary lists operations; a ResNet has convolutions.
    QTreeWidget* ops = w.summaryView()->opsTree();
    QVERIFY(ops->topLevelItemCount() > 0);
    QVERIFY(!ops->findItems(QStringLiteral("Conv"), Qt::MatchExactly, 0).isEmpty());
    QVERIFY(w.summaryView()->factsLabel()->text().contains(QStringLiteral("Parameters")));
    QVERIFY(w.recentFiles().contains(QFileInfo(good).absoluteFilePath()));

    const int rowsBefore = w.outlineModel()->totalRows();
    const dcw::ir::Sdfg* before = w.sdfg();

    // A bad file: an error naming the file, no crash, the previous model stays.
    const QString bad = sourceFile(kBadModel);
    DCW_REQUIRE_FIXTURE(bad);
    w.openFile(bad);
    QTRY_VERIFY_WITH_TIMEOUT(!w.isLoading(), 60000);
    QCOMPARE(failed.count(), 1);
    QCOMPARE(loaded.count(), 1);
    const QString message = failed.first().first().toString();
    QVERIFY2(message.contains(QStringLiteral("random_bytes.onnx")), qPrintable(message));
    QVERIFY2(message.size() > bad.size() + 4, qPrintable(message)); // says more than the name
    QCOMPARE(w.sdfg(), before);
    QCOMPARE(w.currentFile(), good);
    QCOMPARE(w.outlineModel()->totalRows(), rowsBefore);
    QCOMPARE(w.windowTitle(), QStringLiteral("DCW — tiny_resnet.onnx"));
    QVERIFY(ops->topLevelItemCount() > 0);
    QVERIFY(!w.recentFiles().contains(QFileInfo(bad).absoluteFilePath()));
  }

  // Opening a model far wider than the window frames its first view where the graph starts, at a
  // readable size: the model's input is on screen. The view then stays where the user puts it,
  // through a resize. (The load's refresh of every view once cancelled this framing; that showed under
  // Xvfb with `dcw-gui --screenshot` on SqueezeNet, not in this offscreen test.)
  void firstViewShowsTheModelsInput() {
    const QString good = sourceFile("tests/data/canvas/wide_branches.onnx"); // far wider than the window
    DCW_REQUIRE_FIXTURE(good);
    MainWindow w;
    openShown(w, good);
    if (QTest::currentTestFailed()) return;
    auto* canvas = w.canvas();
    // Opening builds and lays out the visual graph once (the refresh after loading used to do it again).
    QCOMPARE(canvas->layoutRuns(), 1);
    const QRectF seen = canvas->mapToScene(canvas->viewport()->rect()).boundingRect();
    dcw::ir::ElementId input = dcw::ir::kNoId;
    for (dcw::ir::State* st : w.sdfg()->allStates())
      for (auto& n : st->nodes())
        if (n->label() == w.sdfg()->inputs.front() && input == dcw::ir::kNoId) input = n->id();
    QVERIFY(input != dcw::ir::kNoId);
    const QRectF at = canvas->sceneRectOf(input);
    QVERIFY(!at.isEmpty());
    QVERIFY2(seen.intersects(at), qPrintable(QString("input at %1,%2; view %3,%4 %5x%6")
                                                .arg(at.x()).arg(at.y()).arg(seen.x()).arg(seen.y()).arg(seen.width()).arg(seen.height())));
    QVERIFY(canvas->transform().m11() >= 0.45); // op names are drawn from this size on
    QVERIFY(canvas->scene()->itemsBoundingRect().width() > seen.width() * 1.5); // the framing had to choose
    // The user zooms; a resize keeps their view (no framing again).
    canvas->zoomBy(2.0);
    const double zoomed = canvas->transform().m11();
    w.resize(1200, 800);
    QTest::qWait(50);
    QCOMPARE(canvas->transform().m11(), zoomed);
  }

  // The first paint reads without any user action: every op on screen has its name drawn, and still
  // has when zoomed out to where only names are drawn (0.3) — ops coloured by category with the legend
  // in the corner; the docks with nothing to show (Problems without problems, Profile before a profile)
  // stay out of the way and come up when they have something.
  void firstPaintNamesTheOpsOnScreen() {
    const QString good = sourceFile(kGoodModel);
    DCW_REQUIRE_FIXTURE(good);
    MainWindow w;
    openShown(w, good);
    if (QTest::currentTestFailed()) return;
    auto* canvas = w.canvas();
    auto opsOnScreen = [&] {
      const QRectF seen = canvas->mapToScene(canvas->viewport()->rect()).boundingRect();
      int n = 0;
      for (size_t i = 0; i < canvas->visualGraph()->nodes.size(); ++i) {
        auto& v = canvas->visualGraph()->nodes[i];
        const bool op = v.kind == dcw::views::VisualKind::Library || (v.kind == dcw::views::VisualKind::Group && !v.expanded);
        n += op && seen.contains(QRectF(canvas->visualGraph()->scenePos(int(i)), v.size));
      }
      return n;
    };
    QVERIFY(opsOnScreen() >= 3);
    auto missing = canvas->unlabelledOpsOnScreen();
    QVERIFY2(missing.empty(), qPrintable(QString::number(missing.size()) + " ops on screen without a name"));
    canvas->zoomBy(0.3 / canvas->transform().m11());
    QVERIFY(opsOnScreen() >= 3);
    missing = canvas->unlabelledOpsOnScreen();
    QVERIFY2(missing.empty(), qPrintable(QString::number(missing.size()) + " ops on screen without a name at zoom 0.3"));

    auto* legend = canvas->categoryLegend();
    QVERIFY(legend->isVisible());
    bool conv = false;
    for (auto& [c, n] : legend->categories()) conv = conv || (c == dcw::views::OpCategory::MatMul && n > 0); // the fc Gemm
    QVERIFY(conv);
    canvas->setOverlay(QStringLiteral("FLOPs"), {{canvas->visualGraph()->nodes[1].element, 1.0}});
    QVERIFY(!legend->isVisible()); // the overlay's scale takes the corner
    canvas->setOverlay({}, {});
    QVERIFY(legend->isVisible());

    // Module groups from the node names (/block1/conv1/Conv): the blocks start closed with their op
    // counts; selecting an op inside one opens it; the flat SDFG is one toggle away.
    const auto* g = canvas->visualGraph();
    int block1 = -1;
    for (size_t i = 0; i < g->nodes.size(); ++i)
      if (g->nodes[i].kind == dcw::views::VisualKind::Group && g->nodes[i].label == QStringLiteral("block1")) block1 = int(i);
    QVERIFY(block1 >= 0);
    QVERIFY(!g->nodes[size_t(block1)].expanded);
    QVERIFY2(g->nodes[size_t(block1)].detail.startsWith(QStringLiteral("7 ops")), qPrintable(g->nodes[size_t(block1)].detail));
    QVERIFY2(g->nodes[size_t(block1)].detail.endsWith(QStringLiteral("FLOPs")), qPrintable(g->nodes[size_t(block1)].detail));
    // The same group in the outline, selected there, is the group on the canvas; search finds it by name.
    const dcw::ir::ElementId block1Id = g->nodes[size_t(block1)].element;
    const QModelIndex block1Row = w.outlineModel()->indexForId(block1Id);
    QVERIFY(block1Row.isValid());
    QCOMPARE(block1Row.data().toString(), QStringLiteral("block1"));
    QCOMPARE(block1Row.siblingAtColumn(OutlineModel::KindColumn).data().toString(), QStringLiteral("module"));
    w.outlineView()->setCurrentIndex(block1Row);
    QTRY_COMPARE(w.selection()->current(), block1Id);
    QCOMPARE(w.inspectorModel()->value(QStringLiteral("General"), QStringLiteral("Kind")), QStringLiteral("module"));
    QCOMPARE(w.inspectorModel()->value(QStringLiteral("Contents"), QStringLiteral("Ops")), QStringLiteral("7"));
    const int hits = canvas->search(QStringLiteral("block1"), dcw::views::SearchMode::Name); // its ops, and the group
    bool found = false;
    for (int k = 0; k < hits && !found; ++k) {
      canvas->nextMatch();
      found = canvas->currentMatchElement() == block1Id;
    }
    QVERIFY(found);
    const int groups = int(canvas->visualGraph()->modules.size());
    QVERIFY(groups >= 3);
    QCOMPARE(canvas->search(QStringLiteral("module"), dcw::views::SearchMode::OpType), groups); // every group
    canvas->clearSearch();
    // An overlay colours a closed group by the sum over its ops.
    w.setOverlay(MainWindow::Overlay::Flops);
    QVERIFY(canvas->hasOverlay());
    QVERIFY(canvas->paintOverlayOf(block1) > 0.f);
    w.setOverlay(MainWindow::Overlay::None);
    dcw::ir::ElementId conv1 = dcw::ir::kNoId;
    for (auto& n : w.sdfg()->allStates().front()->nodes())
      if (n->label() == "block1.conv1.Conv") conv1 = n->id();
    QVERIFY(conv1 != dcw::ir::kNoId);
    QCOMPARE(canvas->visualGraph()->find(conv1), -1);
    w.select(conv1);
    QTRY_VERIFY_WITH_TIMEOUT(!canvas->isLayoutPending() && canvas->visualGraph()->find(conv1) >= 0, 30000);
    const int shown = canvas->visualGraph()->find(conv1);
    QCOMPARE(canvas->visualGraph()->nodes[size_t(canvas->visualGraph()->nodes[size_t(shown)].parent)].label, QStringLiteral("block1"));
    canvas->setModuleGroups(false);
    QTRY_VERIFY_WITH_TIMEOUT(!canvas->isLayoutPending(), 30000);
    for (auto& n : canvas->visualGraph()->nodes) QVERIFY(n.kind != dcw::views::VisualKind::Group);
    canvas->setModuleGroups(true);
    QTRY_VERIFY_WITH_TIMEOUT(!canvas->isLayoutPending(), 30000);

    auto* problems = w.findChild<QDockWidget*>(QStringLiteral("problemsDock"));
    auto* profile = w.findChild<QDockWidget*>(QStringLiteral("profileDock"));
    QVERIFY(problems && profile);
    QCOMPARE(w.problemsList()->count(), 0);
    QVERIFY(problems->isHidden());
    QVERIFY(profile->isHidden());
    // A model with problems brings the dock up; one without puts it away again.
    w.openFile(sourceFile("tests/data/bad/unknown_domain.onnx"));
    QTRY_VERIFY_WITH_TIMEOUT(w.problemsList()->count() > 0, 60000);
    QTRY_VERIFY(!w.isLoading());
    QVERIFY(!problems->isHidden());
    w.openFile(good);
    QTRY_VERIFY_WITH_TIMEOUT(w.problemsList()->count() == 0 && !w.isLoading(), 60000);
    QVERIFY(problems->isHidden());
  }

  // The bottom docks (code, profile) can take nearly half of a laptop-sized window: the side panels'
  // heights do not hold them down to a few rows (the roofline's axes were elided so).
  void bottomDocksGrowOnALaptopScreen() {
    const QString good = sourceFile(kGoodModel);
    DCW_REQUIRE_FIXTURE(good);
    MainWindow w;
    openShown(w, good);
    auto* profile = w.findChild<QDockWidget*>(QStringLiteral("profileDock"));
    auto* inspector = w.findChild<QDockWidget*>(QStringLiteral("inspectorDock"));
    QVERIFY(profile && inspector);
    profile->show();
    profile->raise();
    w.resizeDocks({profile}, {int(w.height() * 0.45)}, Qt::Vertical);
    QTRY_VERIFY2(profile->height() >= int(w.height() * 0.4),
                 qPrintable(QStringLiteral("profile dock %1 px of %2").arg(profile->height()).arg(w.height())));
    // The right column keeps its full height beside it.
    QVERIFY(inspector->geometry().bottom() < profile->geometry().top() || inspector->geometry().left() >= profile->geometry().right());
  }

  void missingFile() {
    MainWindow w;
    w.setShowsDialogs(false);
    QSignalSpy failed(&w, &MainWindow::loadFailed);
    const QString missing = sourceFile("tests/data/does_not_exist.onnx");
    w.openFile(missing);
    QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
    QVERIFY(failed.first().first().toString().startsWith(missing));
    QVERIFY(!w.isLoading());
    QVERIFY(w.sdfg() == nullptr);
    QCOMPARE(w.windowTitle(), QStringLiteral("DCW"));
  }

  void laterOpenSupersedesEarlier() {
    const QString good = sourceFile(kGoodModel);
    DCW_REQUIRE_FIXTURE(good);
    MainWindow w;
    w.setShowsDialogs(false);
    QSignalSpy loaded(&w, &MainWindow::modelLoaded);
    QSignalSpy failed(&w, &MainWindow::loadFailed);
    w.openFile(sourceFile("tests/data/does_not_exist.onnx"));
    w.openFile(good);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
    QTest::qWait(50);
    QCOMPARE(failed.count(), 0); // the first result was dropped
    QCOMPARE(w.currentFile(), good);
  }

  void dropAndRecentFiles() {
    const QString good = sourceFile(kGoodModel);
    DCW_REQUIRE_FIXTURE(good);
    QSettings().remove(QStringLiteral("recentFiles"));
    MainWindow w;
    w.setShowsDialogs(false);
    w.show();
    QSignalSpy loaded(&w, &MainWindow::modelLoaded);

    // Dropping a file opens it.
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(good)});
    QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&w, &enter);
    QVERIFY(enter.isAccepted());
    QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&w, &drop);
    QVERIFY(w.isLoading());
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
    QCOMPARE(w.currentFile(), good);

    // It is the first entry of File > Open Recent.
    QCOMPARE(w.recentFiles().value(0), QFileInfo(good).absoluteFilePath());
    auto* recent = w.findChild<QMenu*>(QStringLiteral("menuRecent"));
    QVERIFY(recent);
    QVERIFY(!recent->actions().isEmpty());
    QVERIFY(recent->actions().first()->text().contains(QStringLiteral("tiny_resnet.onnx")));

    // Non-file drops are refused.
    QMimeData text;
    text.setText(QStringLiteral("hello"));
    QDragEnterEvent refused(QPoint(10, 10), Qt::CopyAction, &text, Qt::LeftButton, Qt::NoModifier);
    refused.setAccepted(false);
    QCoreApplication::sendEvent(&w, &refused);
    QVERIFY(!refused.isAccepted());

    // The list keeps the last kMaxRecentFiles entries, most recent first, without duplicates.
    QStringList many;
    for (int i = 0; i < MainWindow::kMaxRecentFiles + 3; ++i) many << QStringLiteral("/nowhere/m%1.onnx").arg(i);
    QSettings().setValue(QStringLiteral("recentFiles"), many);
    w.openFile(good);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 60000);
    QStringList files = w.recentFiles();
    QCOMPARE(files.size(), MainWindow::kMaxRecentFiles);
    QCOMPARE(files.first(), QFileInfo(good).absoluteFilePath());
    QCOMPARE(files.count(QFileInfo(good).absoluteFilePath()), 1);
  }

  void problemSelectsItsElement() {
    const QString path = sourceFile("tests/data/bad/unknown_domain.onnx");
    DCW_REQUIRE_FIXTURE(path);
    MainWindow w;
    w.setShowsDialogs(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy loaded(&w, &MainWindow::modelLoaded);
    w.openFile(path);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
    // The opaque op is reported (with a warning) and a click on the report selects it in the outline.
    QListWidget* problems = w.problemsList();
    QListWidgetItem* aboutOp = nullptr;
    for (int i = 0; i < problems->count(); ++i)
      if (problems->item(i)->text().startsWith(QStringLiteral("main/state0/my_op"))) aboutOp = problems->item(i);
    QVERIFY2(aboutOp, qPrintable(QStringLiteral("no problem about main/state0/my_op is listed for %1").arg(path)));
    QTest::mouseClick(problems->viewport(), Qt::LeftButton, {}, problems->visualItemRect(aboutOp).center());
    QModelIndex current = w.outlineView()->currentIndex();
    QCOMPARE(current.data().toString(), QStringLiteral("my_op"));
    QCOMPARE(current.data(OutlineModel::PathRole).toString(), QStringLiteral("main/state0/my_op"));
  }

  // File > Compare with the Model as Imported after a step: the compare window shows both sides, the
  // expanded Conv (now a nested SDFG) changed on both and the rest the same; a listed difference
  // selects its element on both sides, marked; a model that cannot load is refused.
  void compareWithImported() {
    const QString good = sourceFile(kGoodModel);
    DCW_REQUIRE_FIXTURE(good);
    MainWindow w;
    openShown(w, good);
    if (QTest::currentTestFailed()) return;
    QVERIFY(w.executeCommand(QStringLiteral("apply ExpandLibraryNode node=main/state0/block1.conv1.Conv")));
    QVERIFY(w.compareWith(QString()));
    auto* cmp = w.compareView();
    QVERIFY(cmp && cmp->isVisible());
    QTRY_VERIFY_WITH_TIMEOUT(!cmp->leftCanvas()->isLayoutPending() && !cmp->rightCanvas()->isLayoutPending() &&
                                 cmp->leftCanvas()->visualGraph() && cmp->rightCanvas()->visualGraph(),
                             30000);
    const auto& d = cmp->diff();
    QCOMPARE(d.changed, 1);
    QCOMPARE(d.removed, 0);
    QVERIFY(d.added >= 3); // what the Conv now holds: its pure implementation's maps, tasklets and arrays
    for (const std::string& line : d.lines)
      if (line[0] == '+') QVERIFY2(line.rfind("+ main/state0/block1.conv1.Conv/", 0) == 0, line.c_str());
    QVERIFY(d.same > 10);
    QVERIFY(cmp->summary()->text().contains(QStringLiteral("changed")));
    int conv = -1;
    for (size_t i = 0; i < d.lines.size(); ++i)
      if (d.lines[i].rfind("~ main/state0/block1.conv1.Conv:", 0) == 0) conv = int(i);
    QVERIFY2(conv >= 0, "the expanded Conv is listed as changed");
    cmp->differences()->setCurrentRow(conv);
    // Each side may open a group to show the selection: its layout runs in the background, so both are
    // awaited (on a loaded machine the left one can finish after the right).
    const auto* right = cmp->rightCanvas();
    const auto* left = cmp->leftCanvas();
    QTRY_VERIFY_WITH_TIMEOUT(!right->isLayoutPending() && !left->isLayoutPending(), 30000);
    const int v = right->visualGraph()->shownAs(right->shownSelection());
    QVERIFY(v >= 0);
    QTRY_COMPARE_WITH_TIMEOUT(right->diffMarkOf(right->visualGraph()->shownAs(right->shownSelection())), int(dcw::analysis::DiffMark::Changed), 10000);
    QVERIFY(left->shownSelection() != dcw::ir::kNoId);
    QTRY_COMPARE_WITH_TIMEOUT(left->diffMarkOf(left->visualGraph()->shownAs(left->shownSelection())), int(dcw::analysis::DiffMark::Changed), 10000);
    QVERIFY(!w.compareWith(sourceFile("tests/data/does_not_exist.onnx")));

    // Two points of the history: after the expansion vs after a tiling inside it. Only nodes inside the
    // expanded Conv differ; on the canvas, where the Conv is closed, the Conv's box carries the mark.
    QString map;
    dcw::ir::walk(*const_cast<dcw::ir::Sdfg*>(w.sdfg()), [&](dcw::ir::Element& e) {
      if (map.isEmpty() && e.kind() == dcw::ir::ElementKind::MapEntry && e.label() == "conv_map")
        map = QString::fromStdString(dcw::ir::pathOf(static_cast<dcw::ir::Node&>(e)));
    });
    QVERIFY(!map.isEmpty());
    QVERIFY(w.executeCommand(QStringLiteral("apply MapTiling entry=%1 tile_sizes=4").arg(map)));
    QVERIFY(w.compareHistoryPoints(1, 2));
    cmp = w.compareView();
    QTRY_VERIFY_WITH_TIMEOUT(!cmp->leftCanvas()->isLayoutPending() && !cmp->rightCanvas()->isLayoutPending() &&
                                 cmp->leftCanvas()->visualGraph() && cmp->rightCanvas()->visualGraph(),
                             30000);
    const auto& steps = cmp->diff();
    QVERIFY(steps.added + steps.changed >= 2); // the tile map, the map's new ranges
    for (const std::string& line : steps.lines)
      QVERIFY2(line.find("main/state0/block1.conv1.Conv/") != std::string::npos, line.c_str());
    dcw::ir::ElementId convId = dcw::ir::kNoId;
    for (auto& n : cmp->rightCanvas()->sdfg()->allStates().front()->nodes())
      if (n->label() == "block1.conv1.Conv") convId = n->id();
    const auto* rg = cmp->rightCanvas()->visualGraph();
    int box = rg->shownAs(convId); // the Conv's box, or the closed module group (block1) holding it
    for (dcw::ir::ElementId g : rg->groupsHolding(convId))
      if (int gv = rg->find(g); box < 0 && gv >= 0 && !rg->nodes[size_t(gv)].expanded) box = gv;
    QVERIFY(box >= 0);
    QCOMPARE(cmp->rightCanvas()->diffMarkOf(box), int(dcw::analysis::DiffMark::Changed));
    QVERIFY(!w.compareHistoryPoints(0, 7)); // no such point

    // Navigation follows by element: with block1 opened on the right only (the sides' layouts differ),
    // scrolling the left to the pooling op brings the right's pooling op to the same place.
    dcw::ir::ElementId rightConv = dcw::ir::kNoId, leftPool = dcw::ir::kNoId, rightPool = dcw::ir::kNoId;
    for (auto& n : cmp->rightCanvas()->sdfg()->allStates().front()->nodes()) {
      if (n->label() == "block1.conv1.Conv") rightConv = n->id();
      if (n->label() == "pool.GlobalAveragePool") rightPool = n->id();
    }
    for (auto& n : cmp->leftCanvas()->sdfg()->allStates().front()->nodes())
      if (n->label() == "pool.GlobalAveragePool") leftPool = n->id();
    cmp->rightCanvas()->reveal(rightConv);
    QTRY_VERIFY_WITH_TIMEOUT(!cmp->rightCanvas()->isLayoutPending() && cmp->rightCanvas()->visualGraph()->find(rightConv) >= 0, 30000);
    auto onScreen = [](const dcw::views::GraphCanvas* c, dcw::ir::ElementId id) {
      const auto* g = c->visualGraph();
      const int i = g->find(id);
      const QPointF centre = g->scenePos(i) + QPointF(g->nodes[size_t(i)].size.width() / 2, g->nodes[size_t(i)].size.height() / 2);
      return c->mapFromScene(centre);
    };
    auto* leftCanvas = cmp->leftCanvas();
    const auto* lg = leftCanvas->visualGraph();
    const int lp = lg->find(leftPool);
    QVERIFY(lp >= 0);
    leftCanvas->centerOn(lg->scenePos(lp) + QPointF(lg->nodes[size_t(lp)].size.width() / 2, lg->nodes[size_t(lp)].size.height() / 2));
    leftCanvas->verticalScrollBar()->triggerAction(QAbstractSlider::SliderSingleStepAdd); // a user's scroll
    QTest::qWait(50);
    const QPoint l = onScreen(leftCanvas, leftPool), r = onScreen(cmp->rightCanvas(), rightPool);
    QVERIFY2((l - r).manhattanLength() <= 4, qPrintable(QStringLiteral("left (%1, %2), right (%3, %4)").arg(l.x()).arg(l.y()).arg(r.x()).arg(r.y())));
  }

  void closeEmptiesEveryPanel() {
    const QString good = sourceFile(kGoodModel);
    DCW_REQUIRE_FIXTURE(good);
    MainWindow w;
    w.setShowsDialogs(false);
    QAbstractItemModelTester tester(w.outlineModel(), QAbstractItemModelTester::FailureReportingMode::Fatal);
    w.show();
    QSignalSpy loaded(&w, &MainWindow::modelLoaded);
    QSignalSpy closed(&w, &MainWindow::modelClosed);
    w.openFile(good);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
    QVERIFY(w.executeCommand(QStringLiteral("apply ExpandLibraryNode node=main/state0/block1.conv1.Conv")));
    QCOMPARE(w.history()->size(), size_t(1));
    QVERIFY(w.closeModel());
    QCOMPARE(closed.count(), 1);
    QVERIFY(w.sdfg() == nullptr);
    QVERIFY(w.history() == nullptr);
    QCOMPARE(w.windowTitle(), QStringLiteral("DCW"));
    QCOMPARE(w.outlineModel()->rowCount(), 0);
    QCOMPARE(w.summaryView()->opsTree()->topLevelItemCount(), 0);
    QCOMPARE(w.problemsList()->count(), 0);
    QCOMPARE(w.historyModel()->rowCount(), 0);
    // The window works as before: the same model opens again.
    w.openFile(good);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 2, 60000);
    QVERIFY(w.sdfg() != nullptr);
  }

  // A leak per model would show here: the heap after 30 open/close cycles is the heap after 10.
  void openCloseCyclesKeepHeapFlat() {
    const QStringList models = {sourceFile(kGoodModel),
                                QStringLiteral("/usr/share/libonnx-testdata/data/pytorch-converted/test_Conv2d/model.onnx")};
    for (const QString& m : models) DCW_REQUIRE_FIXTURE(m);
    MainWindow w;
    w.setShowsDialogs(false);
    w.show();
    QSignalSpy loaded(&w, &MainWindow::modelLoaded);
    QSignalSpy code(&w, &MainWindow::codeGenerated);
    size_t after10 = 0;
    for (int cycle = 1; cycle <= 30; ++cycle) {
      w.openFile(models[cycle % models.size()]);
      QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), cycle, 60000);
      QTRY_VERIFY_WITH_TIMEOUT(!w.isGeneratingCode(), 120000);
      QVERIFY(w.closeModel());
      QCoreApplication::processEvents();
      if (cycle == 10) after10 = heapInUse();
    }
    const size_t after30 = heapInUse();
    const double growthKiB = (double(after30) - double(after10)) / 1024.0;
    qInfo("heap in use after 10 cycles %.1f MiB, after 30 %.1f MiB (%+.0f KiB)", double(after10) / 1048576.0,
          double(after30) / 1048576.0, growthKiB);
    QVERIFY2(growthKiB < 512, qPrintable(QStringLiteral("the heap grew by %1 KiB over 20 open/close cycles").arg(growthKiB)));
  }

  void helpMenuOpensTheTour() {
    // The tour's first heading, as the source (docs/tour.md, which the README shows too) has it.
    QFile md(sourceFile("docs/tour.md"));
    QVERIFY2(md.open(QIODevice::ReadOnly), qPrintable(md.fileName()));
    QString heading;
    for (const QString& line : QString::fromUtf8(md.readAll()).split('\n'))
      if (line.startsWith('#')) {
        heading = line.section(' ', 1).trimmed();
        break;
      }
    QVERIFY(!heading.isEmpty());

    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QMenu* help = nullptr;
    for (QAction* a : w.menuBar()->actions())
      if (a->menu() && a->text() == QStringLiteral("&Help")) help = a->menu();
    QVERIFY(help);
    QAction* tour = nullptr;
    for (QAction* a : help->actions())
      if (a->objectName() == QStringLiteral("actionTour")) tour = a;
    QVERIFY(tour);
    QCOMPARE(tour->text(), QStringLiteral("&Tour"));
    QVERIFY(!w.findChild<dcw::views::TourDialog*>());
    tour->trigger();
    auto* dialog = w.findChild<dcw::views::TourDialog*>();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    const QString text = dialog->browser()->toPlainText();
    QVERIFY2(text.contains(heading), qPrintable(text.left(200)));
    QVERIFY(text.contains(QStringLiteral("dcw apply"))); // rendered to its end, not just the heading
    dialog->close();
    tour->trigger(); // again: the same dialog, shown again
    QCOMPARE(w.findChildren<dcw::views::TourDialog*>().size(), qsizetype(1));
    QVERIFY(dialog->isVisible());
  }

  void outlineIdsAfterLoad() {
    const QString good = sourceFile(kGoodModel);
    DCW_REQUIRE_FIXTURE(good);
    MainWindow w;
    w.setShowsDialogs(false);
    QSignalSpy loaded(&w, &MainWindow::modelLoaded);
    w.openFile(good);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
    // The outline maps ids back to rows for every element it shows.
    OutlineModel* m = w.outlineModel();
    QModelIndex root = m->index(0, 0);
    QModelIndex state = m->index(m->rowCount(root) - 1, 0, root);
    QVERIFY(m->rowCount(state) > 0);
    // Every row of the state, a node or a module group, round-trips; a node has its path.
    int nodes = 0;
    for (int r = 0; r < m->rowCount(state); ++r) {
      QModelIndex row = m->index(r, 0, state);
      auto id = m->idForIndex(row);
      QCOMPARE(m->indexForId(id), row);
      if (!row.data(OutlineModel::ElementKindRole).isValid()) continue; // a module group
      QVERIFY(!row.data(OutlineModel::PathRole).toString().isEmpty());
      ++nodes;
    }
    QVERIFY(nodes > 0);
  }
};

QTEST_MAIN(TestMainWindow)
#include "tst_MainWindow.moc"
