// tst_Editing: editing in the dcw-gui window on the offscreen platform — the transformations panel
// lists what applies to the selection (applicable first, the others with their reason), previews and
// applies; the history panel, undo/redo and jumps; a failing command changes nothing; the exported
// script replays to the same IR; projects save and reopen with their whole history (undone steps
// included); autosave appears after a change and goes on save; Verify compares the model before and
// after in the background; Auto-optimize is one undoable step that keeps the outputs.
#include "app/gui/MainWindow.h"
#include "support/GuiTestSupport.h"
#include "support/Prerequisites.h"

#include "core/edit/History.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/io/ModelFile.h"
#include "core/serialize/JsonFormat.h"
#include "transforms/Project.h"
#include "transforms/Script.h"
#include "views/GraphCanvas.h"
#include "views/CodeDiffView.h"
#include "views/HistoryModel.h"
#include "views/PropertyModel.h"
#include "views/Selection.h"
#include "views/TransformationsPanel.h"

#include <QAbstractItemModelTester>
#include <QAction>
#include <QApplication>
#include <QFile>
#include <QListView>
#include <QTimer>
#include <QPushButton>
#include <QMessageBox>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <set>

using dcw::gui::MainWindow;
using namespace dcw;
using dcw::testsupport::openModel;

namespace {
const QString kSoftmax = QStringLiteral("/usr/share/libonnx-testdata/data/node/test_softmax_axis_1/model.onnx");
const QString& kTiny = testsupport::kTinyResnet;

template <class T>
T* firstNode(const ir::Sdfg& s) {
  for (ir::State* st : s.allStates())
    for (auto& n : st->nodes()) {
      if (auto* t = dynamic_cast<T*>(n.get())) return t;
      if (auto* ns = dynamic_cast<ir::NestedSdfgNode*>(n.get()))
        if (T* inner = firstNode<T>(ns->sdfg())) return inner;
    }
  return nullptr;
}
} // namespace

class TestEditing : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() {
    testsupport::useTestSettings(QStringLiteral("tst_Editing"));
    for (auto& f : MainWindow::recoverableSessions()) QFile::remove(f);
  }

  // With nothing selected the panel lists the whole model's opportunities grouped by kind, each group
  // with its count; a group's places are its children and choosing one gives its command.
  void wholeModelOpportunitiesAreGroupedByKind() {
    MainWindow w;
    w.setShowsDialogs(false);
    QVERIFY(openModel(w, kTiny));
    w.select(ir::kNoId);
    auto* panel = w.transformationsPanel();
    auto* list = panel->list();
    QVERIFY(panel->applicableCount() > list->topLevelItemCount()); // more places than kinds
    std::set<QString> kinds;
    int places = 0;
    for (int i = 0; i < list->topLevelItemCount(); ++i) {
      QTreeWidgetItem* group = list->topLevelItem(i);
      QVERIFY2(kinds.insert(group->text(0)).second, qPrintable(group->text(0))); // one group per kind
      QVERIFY(group->childCount() > 0);
      QVERIFY(!group->isExpanded());
      const int n = group->childCount();
      QCOMPARE(group->text(1), n == 1 ? QString("1 place") : QString("%1%2 places").arg(n).arg(n >= 50 ? "+" : "")); // the search stops at 50
      for (int c = 0; c < group->childCount(); ++c) QCOMPARE(group->child(c)->text(0), group->text(0));
      places += group->childCount();
    }
    QCOMPARE(places, panel->applicableCount());
    QVERIFY(kinds.count("ExpandLibraryNode"));
    QVERIFY(panel->choose("ExpandLibraryNode"));
    QVERIFY(panel->list()->currentItem()->parent() != nullptr);
    QVERIFY(panel->currentCommand().startsWith("apply ExpandLibraryNode node=main/"));
  }

  void panelListsApplyUndoRedoJump() {
    MainWindow w;
    w.setShowsDialogs(false);
    QAbstractItemModelTester tester(w.historyModel());
    QVERIFY(openModel(w, kSoftmax));
    const ir::Sdfg& s = *w.sdfg();
    const std::string imported = serialize::toJson(s);
    auto* lib = firstNode<ir::LibraryNode>(s);
    QVERIFY(lib);
    w.select(lib->id());
    auto* panel = w.transformationsPanel();
    QVERIFY(panel->applicableCount() >= 1);
    QCOMPARE(panel->list()->topLevelItem(0)->text(0), QString("ExpandLibraryNode"));
    // The others are listed with their reason.
    bool greyWithReason = false;
    for (int i = panel->applicableCount(); i < panel->list()->topLevelItemCount(); ++i)
      greyWithReason = greyWithReason || panel->list()->topLevelItem(i)->toolTip(0).contains("Why not");
    QVERIFY(greyWithReason);
    // Preview highlights the matched element.
    QSignalSpy preview(panel, &views::TransformationsPanel::previewRequested);
    QVERIFY(panel->choose("ExpandLibraryNode"));
    QVERIFY(preview.count() >= 1);
    QCOMPARE(preview.last().at(0).value<QList<qulonglong>>(), QList<qulonglong>{lib->id()});
    QVERIFY(panel->currentCommand().startsWith("apply ExpandLibraryNode node=main/"));
    // The preview says what will change, measured by a dry run that leaves the model as it was.
    QVERIFY2(panel->changeSummary().contains("+1 node") && panel->changeSummary().contains("\u22121 node"),
             qPrintable(panel->changeSummary()));
    QCOMPARE(serialize::toJson(s), imported);

    QSignalSpy changed(&w, &MainWindow::historyChanged);
    panel->applyCurrent();
    QCOMPARE(changed.count(), 1);
    QCOMPARE(w.history()->size(), size_t(1));
    QVERIFY(firstNode<ir::LibraryNode>(s) == nullptr);
    const std::string expanded = serialize::toJson(s);
    QVERIFY(QTest::qWaitFor([&] { return !w.canvas()->isLayoutPending(); }, 30000));

    // Tile a map from the panel with an edited option.
    auto* map = firstNode<ir::MapEntry>(s);
    QVERIFY(map);
    w.select(map->id());
    QVERIFY(panel->choose("MapTiling"));
    QVERIFY2(panel->setOption("tile_sizes", "2"), qPrintable(panel->list()->currentItem()->toolTip(0)));
    QVERIFY(panel->currentCommand().contains("tile_sizes=2"));
    panel->applyCurrent();
    QCOMPARE(w.history()->size(), size_t(2));
    QCOMPARE(w.historyModel()->rowCount(), 3);
    const std::string tiled = serialize::toJson(s);

    // A failing command changes nothing and says why.
    QSignalSpy failed(&w, &MainWindow::commandFailed);
    QVERIFY(!w.executeCommand("apply MapTiling entry=main/state0/nothing tile_sizes=2"));
    QCOMPARE(failed.count(), 1);
    QVERIFY(failed.last().at(0).toString().contains("main/state0/nothing"));
    QCOMPARE(serialize::toJson(s), tiled);

    // Ctrl+Z / Ctrl+Shift+Z and clicks in the history panel.
    auto* undo = w.findChild<QAction*>("actionUndo");
    auto* redo = w.findChild<QAction*>("actionRedo");
    QVERIFY(undo && redo);
    QCOMPARE(undo->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Z));
    QCOMPARE(redo->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z));
    QVERIFY(undo->isEnabled() && !redo->isEnabled());
    undo->trigger();
    QCOMPARE(serialize::toJson(s), expanded);
    QVERIFY(redo->isEnabled());
    redo->trigger();
    QCOMPARE(serialize::toJson(s), tiled);
    QListView* hv = w.historyView();
    QTest::mouseClick(hv->viewport(), Qt::LeftButton, {}, hv->visualRect(w.historyModel()->index(0, 0)).center());
    QCOMPARE(serialize::toJson(s), imported);
    QCOMPARE(w.historyModel()->data(w.historyModel()->index(2, 0), views::HistoryModel::IsUndoneRole).toBool(), true);
    QTest::mouseClick(hv->viewport(), Qt::LeftButton, {}, hv->visualRect(w.historyModel()->index(2, 0)).center());
    QCOMPARE(serialize::toJson(s), tiled);
    QVERIFY(QTest::qWaitFor([&] { return !w.canvas()->isLayoutPending(); }, 30000));

    // The code changes of step 2 (MapTiling): a non-empty diff with an added tile loop.
    QSignalSpy diff(&w, &MainWindow::codeDiffReady);
    w.showCodeDiff(2);
    QVERIFY(QTest::qWaitFor([&] { return diff.count() == 1; }, 120000));
    QVERIFY(diff.last().at(1).toInt() > 0);
    QVERIFY(w.codeDiffView()->text().contains("@@ -"));
    QVERIFY(w.codeDiffView()->text().contains("_tile"));
    QVERIFY(w.codeDiffView()->summary().contains("MapTiling"));
  }

  // A module group selected on the canvas: the panel leads with what acts on all of its ops at once;
  // applied, it is one step of the history, written as one script line with the group's address.
  void moduleGroupFromThePanel() {
    MainWindow w;
    QVERIFY(openModel(w, testsupport::kTinyResnet));
    const ir::Sdfg& s = *w.sdfg();
    const std::string imported = serialize::toJson(s);
    QVERIFY(QTest::qWaitFor([&] { return !w.canvas()->isLayoutPending(); }, 30000));
    const views::ModuleGroup* block1 = nullptr;
    for (const auto& g : w.canvas()->visualGraph()->modules)
      if (g.path == QStringLiteral("block1")) block1 = &g;
    QVERIFY(block1);
    QCOMPARE(block1->address, QStringLiteral("main/state0/module:block1"));
    const ir::ElementId id = block1->id;
    w.select(id);
    QCOMPARE(w.inspectorModel()->value(QStringLiteral("General"), QStringLiteral("Path")), QStringLiteral("main/state0/module:block1"));
    auto* panel = w.transformationsPanel();
    QTreeWidgetItem* first = panel->list()->topLevelItem(0);
    QVERIFY(first);
    QCOMPARE(first->text(0), QStringLiteral("ExpandLibraryNode"));
    QCOMPARE(first->text(1), QStringLiteral("all 7 in block1"));
    QVERIFY(first->font(0).bold());
    QVERIFY(panel->applicableCount() >= 7); // and each op's own rows after them

    QSignalSpy preview(panel, &views::TransformationsPanel::previewRequested);
    QVERIFY(panel->choose(QStringLiteral("ConvBatchNormFolding")));
    QVERIFY(preview.count() >= 1);
    QCOMPARE(preview.last().at(0).value<QList<qulonglong>>().size(), 7); // the group's ops
    QCOMPARE(panel->currentCommand(), QStringLiteral("apply ConvBatchNormFolding conv=main/state0/module:block1"));
    QVERIFY2(panel->changeSummary().startsWith("Will change: ") && panel->changeSummary().contains("\u2212"), qPrintable(panel->changeSummary())); // a dry run
    QCOMPARE(serialize::toJson(s), imported);
    panel->applyCurrent();
    QCOMPARE(w.history()->size(), size_t(1));
    QCOMPARE(w.history()->command(0).title(), std::string("ConvBatchNormFolding on module block1"));
    int bn = 0;
    for (auto& n : s.allStates().front()->nodes())
      if (auto* l = dynamic_cast<const ir::LibraryNode*>(n.get()); l && l->opType == "BatchNormalization") ++bn;
    QCOMPARE(bn, 4); // six before: stem's, block2's three and block1's two, which are folded
    QVERIFY(transforms::writeScript(*w.history(), "tiny_resnet.onnx", "").find("\napply ConvBatchNormFolding conv=main/state0/module:block1\n") !=
            std::string::npos);
    w.undo();
    QCOMPARE(serialize::toJson(s), imported);
  }

  void scriptProjectAndAutosave() {
    QTemporaryDir dir;
    MainWindow w;
    w.setShowsDialogs(false);
    QVERIFY(openModel(w, kSoftmax));
    const ir::Sdfg& s = *w.sdfg();
    auto* lib = firstNode<ir::LibraryNode>(s);
    QVERIFY(w.executeCommand(QString::fromStdString("apply ExpandLibraryNode node=" + ir::pathOf(*lib))));
    QVERIFY(QFile::exists(w.autosavePath()));
    QVERIFY(MainWindow::recoverableSessions().contains(w.autosavePath()));
    auto* map = firstNode<ir::MapEntry>(s);
    QVERIFY(w.executeCommand(QString::fromStdString("set " + ir::pathOf(*map) + " schedule=sequential")));
    QSignalSpy failed0(&w, &MainWindow::commandFailed);
    QVERIFY2(w.executeCommand(QString::fromStdString("apply MapTiling entry=" + ir::pathOf(*map) + " tile_sizes=2")),
             failed0.isEmpty() ? "" : qPrintable(failed0.last().at(0).toString()));
    const std::string at3 = serialize::toJson(s);
    w.undo(); // the project keeps the undone step too
    const std::string at2 = serialize::toJson(s);

    // The exported script replays headless to the same IR.
    const QString script = dir.filePath("s.dcws");
    QVERIFY(w.exportScript(script));
    auto parsed = transforms::readScript(script.toStdString());
    QVERIFY2(parsed, parsed ? "" : parsed.error().str().c_str());
    QCOMPARE(parsed->steps.size(), size_t(2));
    auto fresh = io::loadModel(kSoftmax.toStdString());
    QVERIFY(fresh);
    edit::History h(*fresh->sdfg);
    QVERIFY(transforms::replay(*parsed, h, script.toStdString()));
    QCOMPARE(serialize::toJson(*fresh->sdfg), at2);

    // Save the project: the autosave goes; reopening restores the position and the redo step.
    const QString proj = dir.filePath("p.dcwproj");
    QVERIFY(w.saveProject(proj));
    QVERIFY(!QFile::exists(w.autosavePath()));
    MainWindow w2;
    w2.setShowsDialogs(false);
    QVERIFY(openModel(w2, proj));
    QCOMPARE(w2.history()->size(), size_t(3));
    QCOMPARE(w2.history()->position(), size_t(2));
    QCOMPARE(serialize::toJson(*w2.sdfg()), at2);
    w2.redo();
    QCOMPARE(serialize::toJson(*w2.sdfg()), at3);
    QCOMPARE(w2.projectFile(), proj);

    // A broken project file is refused with its name.
    QFile bad(dir.filePath("bad.dcwproj"));
    QVERIFY(bad.open(QIODevice::WriteOnly));
    bad.write("{\"format\": \"dcwproj\", \"version\": 1}");
    bad.close();
    QSignalSpy failed(&w2, &MainWindow::loadFailed);
    w2.openFile(bad.fileName());
    QCOMPARE(failed.count(), 1);
    QVERIFY(failed.last().at(0).toString().contains("bad.dcwproj"));
    QCOMPARE(serialize::toJson(*w2.sdfg()), at3); // the open model stays
  }

  // No lost work in the window: a corrupt project names its kept good copy; a reopened autosave is
  // not taken for the project's file (saving there would save into the file the save then removes);
  // opening the model again leaves a crashed session's autosave alone until the first step.
  void keptCopiesAndAutosavesSurvive() {
    QTemporaryDir dir;
    MainWindow w;
    w.setShowsDialogs(false);
    QVERIFY(openModel(w, kSoftmax));
    auto* lib = firstNode<ir::LibraryNode>(*w.sdfg());
    QVERIFY(w.executeCommand(QString::fromStdString("apply ExpandLibraryNode node=" + ir::pathOf(*lib))));
    const QString proj = dir.filePath("k.dcwproj");
    QVERIFY(w.saveProject(proj));
    QVERIFY(w.executeCommand(QString::fromStdString("set " + ir::pathOf(*firstNode<ir::MapEntry>(*w.sdfg())) + " schedule=sequential")));
    QVERIFY(w.saveProject(proj));
    QVERIFY(QFile::exists(proj + "~"));
    QFile torn(proj);
    QVERIFY(torn.open(QIODevice::WriteOnly | QIODevice::Truncate));
    torn.write("{\"format\": \"dcwproj\"");
    torn.close();
    QSignalSpy failed(&w, &MainWindow::loadFailed);
    w.openFile(proj);
    QCOMPARE(failed.count(), 1);
    QCOMPARE(failed.last().at(0).toString(), proj + ": is corrupt: cut short after 20 bytes; the previous good copy is kept as " +
                                                 proj + "~: open that instead");
    MainWindow fromCopy;
    fromCopy.setShowsDialogs(false);
    QVERIFY(openModel(fromCopy, proj + "~"));
    QCOMPARE(fromCopy.history()->size(), size_t(1));
    QCOMPARE(fromCopy.projectFile(), QString()); // not saved over the kept copy

    // A crashed session (no close): its autosave is what the next start offers.
    QVERIFY(w.executeCommand(QString::fromStdString("set " + ir::pathOf(*firstNode<ir::MapEntry>(*w.sdfg())) + " schedule=cpu_multicore")));
    const QString autosave = w.autosavePath();
    QVERIFY(MainWindow::isAutosave(autosave));
    QVERIFY(!MainWindow::isAutosave(proj));
    QCOMPARE(MainWindow::recoveryProblem(autosave), QString());
    MainWindow again;
    again.setShowsDialogs(false);
    QVERIFY(openModel(again, kSoftmax)); // the same model opened directly: the autosave stays
    QVERIFY(QFile::exists(autosave));
    MainWindow recovered;
    recovered.setShowsDialogs(false);
    QVERIFY(openModel(recovered, autosave));
    QCOMPARE(recovered.history()->size(), size_t(3));
    QCOMPARE(recovered.projectFile(), QString()); // Save Project asks where
    MainWindow::discardAutosave(autosave);
    QVERIFY(!QFile::exists(autosave));
    QVERIFY(!QFile::exists(autosave + "~"));
  }

  // Quit (the window's close button, Ctrl+Q), File ▸ Close and File ▸ Open over steps that no project
  // holds: Cancel keeps the session on screen with its autosave, Discard drops both, Save writes the
  // project first; without dialogs nothing is asked and the autosave stays for the next start.
  void unsavedStepsAreNeverDroppedSilently() {
    QTemporaryDir dir;
    int steps = 0; // a new step each call: the softmax expanded, then its first map rescheduled back and forth
    auto step = [&steps](MainWindow& w) {
      if (auto* lib = firstNode<ir::LibraryNode>(*w.sdfg()))
        return w.executeCommand(QString::fromStdString("apply ExpandLibraryNode node=" + ir::pathOf(*lib)));
      auto* map = firstNode<ir::MapEntry>(*w.sdfg());
      const char* schedule = ++steps % 2 ? " schedule=sequential" : " schedule=cpu_multicore";
      return map && w.executeCommand(QString::fromStdString("set " + ir::pathOf(*map) + schedule));
    };
    // Answers the next question box with `button` and records its title.
    auto answerNext = [](QMessageBox::StandardButton button, QString* title) {
      auto* poll = new QTimer;
      poll->setInterval(20);
      QObject::connect(poll, &QTimer::timeout, poll, [poll, button, title] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box) return;
        *title = box->windowTitle();
        poll->stop();
        poll->deleteLater();
        box->button(button)->click();
      });
      poll->start();
    };
    const QString other = QStringLiteral("/usr/share/libonnx-testdata/data/node/test_relu/model.onnx");
    DCW_REQUIRE_FIXTURE(other);

    { // No dialogs: the window closes and the autosave is what the next start offers.
      MainWindow w;
      w.setShowsDialogs(false);
      w.show();
      QVERIFY(openModel(w, kSoftmax));
      QVERIFY(step(w));
      const QString autosave = w.autosavePath();
      QVERIFY(w.close());
      QVERIFY(QFile::exists(autosave));
      QVERIFY(MainWindow::recoverableSessions().contains(autosave));
      MainWindow::discardAutosave(autosave);
    }
    MainWindow w;
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.setShowsDialogs(false);
    QVERIFY(openModel(w, kSoftmax));
    w.setShowsDialogs(true);
    QVERIFY(step(w));
    const QString autosave = w.autosavePath();
    QVERIFY(QFile::exists(autosave));
    QString title;
    // Cancel on Quit, on Close and on Open: nothing changes.
    answerNext(QMessageBox::Cancel, &title);
    QVERIFY(!w.close());
    QCOMPARE(title, QStringLiteral("Quit with model.onnx open"));
    QVERIFY(w.isVisible());
    answerNext(QMessageBox::Cancel, &title);
    QVERIFY(!w.closeModel());
    QCOMPARE(title, QStringLiteral("Close model.onnx"));
    answerNext(QMessageBox::Cancel, &title);
    w.openFile(other);
    QCOMPARE(title, QStringLiteral("Open another model over model.onnx"));
    QVERIFY(!w.isLoading());
    QCOMPARE(w.currentFile(), kSoftmax);
    QCOMPARE(w.history()->size(), size_t(1));
    QVERIFY(QFile::exists(autosave));
    // Save on Quit: into the project the session was saved in before, the autosave gone.
    const QString proj = dir.filePath(QStringLiteral("softmax.dcwproj"));
    QString error;
    QVERIFY2(w.saveProject(proj, &error), qPrintable(error));
    QVERIFY(step(w));
    QVERIFY(QFile::exists(autosave));
    answerNext(QMessageBox::Save, &title);
    QVERIFY(w.close());
    auto saved = transforms::loadProject(proj.toStdString());
    QVERIFY(saved);
    QCOMPARE(saved->steps.size(), size_t(2));
    QVERIFY(!QFile::exists(autosave));
    // Discard on Open: the other model opens and the discarded session's autosave is gone.
    w.show();
    QVERIFY(step(w));
    QVERIFY(QFile::exists(autosave));
    answerNext(QMessageBox::Discard, &title);
    QSignalSpy loaded(&w, &MainWindow::modelLoaded);
    w.openFile(other);
    QTRY_COMPARE_WITH_TIMEOUT(loaded.count(), 1, 60000);
    QCOMPARE(w.currentFile(), other);
    QVERIFY(!QFile::exists(autosave));
    // Nothing unsaved: Close asks nothing.
    QVERIFY(w.closeModel());
  }

  void verifyAndAutoOptimize() {
    MainWindow w;
    w.setShowsDialogs(false);
    QVERIFY(openModel(w, kTiny));
    // For an FPGA target Auto-optimize refuses with the target's reason and leaves the history alone.
    w.setTarget("fpga-sim");
    QSignalSpy refused(&w, &MainWindow::commandFailed);
    QVERIFY(!w.autoOptimize());
    QCOMPARE(refused.count(), 1);
    QVERIFY2(refused.last().at(0).toString().contains("applied by hand or by script"), qPrintable(refused.last().at(0).toString()));
    QCOMPARE(w.history()->size(), size_t(0));
    w.setTarget("cpu");
    QVERIFY(w.autoOptimize());
    QCOMPARE(w.history()->size(), size_t(1));
    QVERIFY(w.history()->command(0).title().find("Auto-optimize") != std::string::npos);
    QVERIFY(w.history()->command(0).scriptLine().find("apply ExpandLibraryNode") != std::string::npos);
    QSignalSpy done(&w, &MainWindow::verifyFinished);
    QSignalSpy progress(&w, &MainWindow::verifyProgress);
    w.verify(0, -1);
    QVERIFY(w.isVerifying());
    QVERIFY(QTest::qWaitFor([&] { return done.count() == 1; }, 240000));
    QVERIFY2(done.last().at(0).toBool(), qPrintable(done.last().at(2).toString()));
    QVERIFY(done.last().at(1).toDouble() < 1e-4);
    QVERIFY(progress.count() >= 2);
    // Undo brings back the imported model in one step.
    w.undo();
    QCOMPARE(w.history()->position(), size_t(0));
    // Cancel works and reports.
    w.verify(0, 1);
    w.cancelVerify();
    QVERIFY(QTest::qWaitFor([&] { return done.count() == 2; }, 240000));
    QVERIFY(!done.last().at(0).toBool());
  }
};

QTEST_MAIN(TestEditing)
#include "tst_Editing.moc"
