// The editing half of the main window: the history (undo, redo, jumps), the transformations and
// history panels, script export, projects with autosave and recovery, background verification and
// auto-optimize. Every change goes through the model's edit::History; views only emit intent.
#include "app/gui/MainWindow.h"
#include "codegen/Target.h"
#include "app/gui/SessionTypes.h"

#include "codegen/run/Executor.h"
#include "pipeline/Pipeline.h"
#include "pipeline/Specialize.h"
#include "codegen/run/RandomInputs.h"
#include "core/analysis/Cost.h"
#include "core/analysis/ModelSummary.h"
#include "core/edit/History.h"
#include "core/expansions/ExpandPass.h"
#include "core/io/ModelFile.h"
#include "core/ir/Validate.h"
#include "core/support/AtomicFile.h"
#include "core/support/Sha256.h"
#include "transforms/AutoOptimize.h"
#include "transforms/Project.h"
#include "transforms/Script.h"
#include "core/support/LineDiff.h"
#include "views/CodeDiffView.h"
#include "views/DifferentiateDialog.h"
#include "core/ir/AccessNode.h"
#include "views/CodeView.h"
#include "views/GraphCanvas.h"
#include "views/HistoryModel.h"
#include "views/OutlineModel.h"
#include "views/PureExpansions.h"
#include "views/Selection.h"
#include "views/SummaryView.h"
#include "views/SymbolsView.h"
#include "views/TransformationsPanel.h"

#include <QAction>
#include <QMenu>
#include <QCryptographicHash>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QListView>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QProgressDialog>
#include <QStandardPaths>
#include <QStatusBar>
#include <QtConcurrent/QtConcurrentRun>

#include <fstream>
#include <sstream>

namespace dcw::gui {

// The model as MainWindow.cpp defines it (the loaded SDFG, its history, summary and cost).
struct MainWindowModelAccess;

namespace {

QString autosaveDir() {
  return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/autosave");
}

} // namespace

void MainWindow::createEditing() {
  transforms_ = new views::TransformationsPanel;
  transforms_->setObjectName(QStringLiteral("transformationsPanel"));
  transformsDock_ = new QDockWidget(tr("Transformations"), this);
  transformsDock_->setObjectName(QStringLiteral("transformationsDock"));
  transformsDock_->setWidget(transforms_);
  addDockWidget(Qt::RightDockWidgetArea, transformsDock_);
  // Below the inspector, in front of the weights: what applies and what the element is, side by side.
  tabifyDockWidget(weightsDock_, transformsDock_);
  transformsDock_->raise();
  connect(transforms_, &views::TransformationsPanel::applyRequested, this, [this](const QString& line) { executeCommand(line); });
  connect(transforms_, &views::TransformationsPanel::dryRunRequested, this, [this](const QString& line) {
    transforms_->setChangeSummary(dryRun(line));
  });
  connect(transforms_, &views::TransformationsPanel::previewRequested, this, [this](const QList<qulonglong>& ids) {
    canvas_->setPreview(std::vector<ir::ElementId>(ids.begin(), ids.end()));
  });

  historyModel_ = new views::HistoryModel(this);
  historyView_ = new QListView;
  historyView_->setObjectName(QStringLiteral("historyView"));
  historyView_->setModel(historyModel_);
  historyView_->setUniformItemSizes(true);
  connect(historyView_, &QListView::clicked, this, [this](const QModelIndex& index) { jumpTo(index.row()); });
  // A row's menu: that point beside the current one (the compare window), or the code its step changed.
  historyView_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(historyView_, &QListView::customContextMenuRequested, this, [this](const QPoint& at) {
    const QModelIndex index = historyView_->indexAt(at);
    if (!index.isValid() || !model_) return;
    const int point = index.row(), now = int(model_->history->position());
    QMenu menu(historyView_);
    QAction* cmp = menu.addAction(tr("Compare with the Current Point (%1)").arg(pointTitle(now)));
    cmp->setEnabled(point != now);
    QAction* code = menu.addAction(tr("Show Code Changes of This Step"));
    code->setEnabled(point >= 1);
    QAction* chosen = menu.exec(historyView_->viewport()->mapToGlobal(at));
    if (chosen == cmp) compareHistoryPoints(point, now);
    else if (chosen == code) showCodeDiff(point);
  });
  historyDock_ = new QDockWidget(tr("History"), this);
  historyDock_->setObjectName(QStringLiteral("historyDock"));
  historyDock_->setWidget(historyView_);
  addDockWidget(Qt::LeftDockWidgetArea, historyDock_);
  splitDockWidget(outlineDock_, historyDock_, Qt::Vertical);

  codeDiff_ = new views::CodeDiffView;
  codeDiff_->setObjectName(QStringLiteral("codeDiffView"));
  codeDiffDock_ = new QDockWidget(tr("Code Changes"), this);
  codeDiffDock_->setObjectName(QStringLiteral("codeDiffDock"));
  codeDiffDock_->setWidget(codeDiff_);
  addDockWidget(Qt::BottomDockWidgetArea, codeDiffDock_);
  tabifyDockWidget(codeDock_, codeDiffDock_);
  problemsDock_->raise();
  connect(historyView_, &QListView::doubleClicked, this, [this](const QModelIndex& index) {
    if (index.row() >= 1) showCodeDiff(index.row());
  });

  // File menu additions (before its Quit entry) and the Edit menu.
  QMenu* file = menuBar()->actions().front()->menu();
  QAction* quit = file->actions().back();
  QAction* saveProj = new QAction(tr("&Save Project…"), this);
  saveProj->setShortcut(QKeySequence::Save);
  saveProj->setObjectName(QStringLiteral("actionSaveProject"));
  connect(saveProj, &QAction::triggered, this, &MainWindow::saveProjectAsked);
  QAction* exportScriptAction = new QAction(tr("Export &Script…"), this);
  exportScriptAction->setObjectName(QStringLiteral("actionExportScript"));
  connect(exportScriptAction, &QAction::triggered, this, [this] {
    QString path = QFileDialog::getSaveFileName(this, tr("Export Script"), QFileInfo(file_).completeBaseName() + ".dcws",
                                                tr("DCW scripts (*.dcws)"));
    if (path.isEmpty()) return;
    QString error;
    if (!exportScript(path, &error)) QMessageBox::critical(this, tr("Cannot export script"), error);
  });
  file->insertAction(quit, saveProj);
  file->insertAction(quit, exportScriptAction);
  file->insertSeparator(quit);

  QMenu* edit = new QMenu(tr("&Edit"), this);
  menuBar()->insertMenu(menuBar()->actions().at(1), edit);
  undoAction_ = edit->addAction(tr("&Undo"), this, &MainWindow::undo);
  undoAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Z));
  undoAction_->setObjectName(QStringLiteral("actionUndo"));
  redoAction_ = edit->addAction(tr("&Redo"), this, &MainWindow::redo);
  redoAction_->setShortcuts({QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z), QKeySequence(Qt::CTRL | Qt::Key_Y)});
  redoAction_->setObjectName(QStringLiteral("actionRedo"));
  edit->addSeparator();
  QAction* opt = edit->addAction(tr("&Auto-optimize"), this, [this] { autoOptimize(); });
  opt->setObjectName(QStringLiteral("actionAutoOptimize"));
  QAction* diff = edit->addAction(tr("&Differentiate with Respect to…"), this, [this] { differentiateSelected(); });
  diff->setObjectName(QStringLiteral("actionDifferentiate"));
  QAction* ver = edit->addAction(tr("&Verify Against the Imported Model"), this, [this] { verify(0, -1); });
  ver->setObjectName(QStringLiteral("actionVerify"));
  ver->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_V));
  QAction* verStep = edit->addAction(tr("Verify the Selected &History Step"), this, [this] {
    int row = historyView_->currentIndex().row();
    if (row >= 1) verify(row - 1, row);
  });
  verStep->setObjectName(QStringLiteral("actionVerifyStep"));
  QAction* diffStep = edit->addAction(tr("Show &Code Changes of the Selected Step"), this, [this] {
    int row = historyView_->currentIndex().row();
    if (row >= 1) showCodeDiff(row);
  });
  diffStep->setObjectName(QStringLiteral("actionCodeDiff"));
  for (QAction* a : {undoAction_, redoAction_}) a->setEnabled(false);

  // The panels follow the shared selection.
  connect(selection_, &views::Selection::currentChanged, this, [this] { refreshTransformations(); });
  for (QMenu* m : menuBar()->findChildren<QMenu*>())
    if (m->title() == tr("&View")) {
      m->addAction(transformsDock_->toggleViewAction());
      m->addAction(historyDock_->toggleViewAction());
      m->addAction(codeDiffDock_->toggleViewAction());
    }
}

const edit::History* MainWindow::history() const { return model_ ? model_->history.get() : nullptr; }

bool MainWindow::executeCommand(const QString& scriptLine) {
  auto cmd = transforms::parseCommand(scriptLine.toStdString(), "command");
  if (!cmd) {
    QString message = QString::fromStdString(cmd.error().str());
    statusBar()->showMessage(message, 10000);
    emit commandFailed(message);
    return false;
  }
  return execute(std::move(*cmd));
}

bool MainWindow::execute(std::unique_ptr<edit::Command> command) {
  if (!model_ || !model_->history) return false;
  QElapsedTimer t;
  t.start();
  std::string title = command->title();
  auto r = model_->history->execute(std::move(command));
  if (!r) {
    QString message = QString::fromStdString(r.error().str());
    statusBar()->showMessage(message, 10000);
    emit commandFailed(message);
    if (showsDialogs_) QMessageBox::warning(this, tr("Cannot apply"), message);
    return false;
  }
  afterHistoryChange();
  statusBar()->showMessage(tr("%1 (%2 ms)").arg(QString::fromStdString(title)).arg(t.elapsed()), 5000);
  return true;
}

QString MainWindow::dryRun(const QString& scriptLine) {
  if (!model_) return {};
  auto cmd = transforms::parseCommand(scriptLine.toStdString(), "preview");
  if (!cmd) return QString::fromStdString(cmd.error().message);
  // Applied and rolled back at once on the UI thread: the views never see the intermediate model, and
  // the rollback restores the very same objects (and the id counter), so nothing they hold goes stale.
  edit::Editor editor(*model_->loaded.sdfg);
  auto r = (*cmd)->execute(editor);
  edit::JournalStats st = editor.stats();
  editor.rollbackTo(0);
  if (!r) return tr("fails: %1").arg(QString::fromStdString(r.error().message));
  return QString::fromStdString(st.str());
}

void MainWindow::undo() {
  if (!model_ || !model_->history->canUndo()) return;
  model_->history->undo();
  afterHistoryChange();
}

void MainWindow::redo() {
  if (!model_ || !model_->history->canRedo()) return;
  model_->history->redo();
  afterHistoryChange();
}

void MainWindow::jumpTo(int position) {
  if (!model_ || position < 0 || size_t(position) == model_->history->position()) return;
  model_->history->jumpTo(size_t(position));
  afterHistoryChange();
}

void MainWindow::afterHistoryChange(bool modelChanged) {
  if (!model_) return;
  const ir::Sdfg& sdfg = *model_->loaded.sdfg;
  ir::ElementId keep = selection_->current();
  if (modelChanged) {
    // Library-node peeks are cached per element: the elements changed, so start over.
    model_->pure = std::make_unique<views::PureExpansions>(sdfg);
    views::PureExpansions* pure = model_->pure.get();
    canvas_->setExpansionProvider([pure](const ir::LibraryNode& l) { return pure->get(l); },
                                  [pure](const ir::LibraryNode& l) { return pure->has(l); });
    model_->summary = analysis::summarize(sdfg);
    model_->cost = analysis::analyzeCost(sdfg);
    // No re-validation here: the history validated every state it can reach when its command ran.
    outline_->setSdfg(&sdfg);
    expandOutlineTop();
    canvas_->setNodeFlops(nodeFlops(model_->cost, symbols_->values()), false);
    canvas_->modelEdited();
    summary_->setSummary(model_->summary);
    symbols_->setSymbols(model_->cost.symbols, views::SymbolsView::extentNotes(*model_->loaded.sdfg));
    fillProblems();
  }
  historyModel_->reset();
  historyView_->setCurrentIndex(historyModel_->index(historyModel_->currentRow(), 0));
  undoAction_->setEnabled(model_->history->canUndo());
  redoAction_->setEnabled(model_->history->canRedo());
  if (keep != ir::kNoId && !sdfg.findElement(keep)) keep = ir::kNoId;
  if (keep != ir::kNoId) followSelection(keep); // the same element, re-shown in the changed model
  else selection_->clear();
  refreshTransformations();
  refreshInspector();
  refreshTotals();
  setOverlay(overlay_);
  updateTitle();
  generateCode();
  writeAutosave();
  emit historyChanged();
}

void MainWindow::refreshTransformations() {
  if (!transforms_) return;
  if (!model_) {
    transforms_->setContext(nullptr, {});
    return;
  }
  const ir::ElementId id = selection_->current();
  if (const views::ModuleGroup* g = canvas_->visualGraph() ? canvas_->visualGraph()->moduleGroup(id) : nullptr)
    return transforms_->setModuleContext(model_->loaded.sdfg.get(), g->address); // what applies to its ops
  std::vector<ir::ElementId> anchors;
  if (id != ir::kNoId) anchors.push_back(id);
  transforms_->setContext(model_->loaded.sdfg.get(), anchors);
}

std::vector<std::string> MainWindow::scriptLines(size_t upTo) const {
  std::vector<std::string> out;
  if (!model_ || !model_->history) return out;
  for (size_t i = 0; i < upTo && i < model_->history->size(); ++i) {
    std::stringstream ss(model_->history->command(i).scriptLine());
    for (std::string l; std::getline(ss, l);)
      if (!l.empty() && l[0] != '#') out.push_back(l);
  }
  return out;
}

bool MainWindow::exportScript(const QString& path, QString* error) {
  if (!model_) {
    if (error) *error = tr("No model is open");
    return false;
  }
  std::string text = transforms::writeScript(*model_->history, QFileInfo(file_).absoluteFilePath().toStdString(), model_->sha256);
  if (auto r = writeFileAtomically(path.toStdString(), text); !r) {
    if (error) *error = QString::fromStdString(r.error().str());
    return false;
  }
  statusBar()->showMessage(tr("Script written to %1 (%2 steps)").arg(path).arg(model_->history->position()), 5000);
  return true;
}

bool MainWindow::saveProject(const QString& path, QString* error) {
  if (!model_) {
    if (error) *error = tr("No model is open");
    return false;
  }
  auto p = transforms::projectOf(*model_->history, file_.toStdString(), model_->sha256);
  if (auto r = transforms::saveProject(p, path.toStdString()); !r) {
    if (error) *error = QString::fromStdString(r.error().str());
    return false;
  }
  projectFile_ = path;
  savedSteps_ = p.steps;
  savedPosition_ = p.position;
  removeAutosave();
  addRecentFile(path);
  statusBar()->showMessage(tr("Project saved to %1").arg(path), 5000);
  return true;
}

QString MainWindow::projectFileOf(const PendingProject& p) { return p.file; }

void MainWindow::restorePendingProject() {
  auto pending = std::move(pendingProject_);
  pendingProject_.reset();
  if (!pending || !model_) return;
  if (!pending->project.sha256.empty() && pending->project.sha256 != model_->sha256)
    statusBar()->showMessage(tr("Warning: %1 changed since the project was saved").arg(file_), 10000);
  if (auto r = transforms::restoreProject(pending->project, *model_->history, pending->file.toStdString()); !r) {
    QString message = QString::fromStdString(r.error().str());
    emit commandFailed(message);
    if (showsDialogs_) QMessageBox::warning(this, tr("Project only partly restored"), message);
    return;
  }
  // A reopened autosave or kept copy (NAME.dcwproj~) is not where the user keeps the project: saving
  // into an autosave would save into the file the save then removes, and into a kept copy would make
  // a copy of the copy. Save Project asks where instead.
  const bool keptCopy = pending->file.endsWith(QLatin1Char('~'));
  if (!isAutosave(pending->file) && !keptCopy) {
    projectFile_ = pending->file;
    savedSteps_ = pending->project.steps;
    savedPosition_ = pending->project.position;
  }
}

bool MainWindow::hasUnsavedSteps() const {
  if (!model_ || model_->history->size() == 0) return false;
  if (projectFile_.isEmpty()) return true;
  auto now = transforms::projectOf(*model_->history, file_.toStdString(), model_->sha256);
  return now.steps != savedSteps_ || now.position != savedPosition_;
}

QString MainWindow::autosavePath() const {
  if (file_.isEmpty()) return {};
  QByteArray key = QCryptographicHash::hash(QFileInfo(file_).absoluteFilePath().toUtf8(), QCryptographicHash::Sha1).toHex();
  return autosaveDir() + "/" + QFileInfo(file_).completeBaseName() + "-" + QString::fromLatin1(key.left(12)) + ".dcwproj";
}

bool MainWindow::isAutosave(const QString& file) {
  return QFileInfo(file).absolutePath() == QFileInfo(autosaveDir() + QStringLiteral("/x")).absolutePath();
}

QString MainWindow::recoveryProblem(const QString& autosave) {
  auto p = transforms::loadProject(autosave.toStdString());
  return p ? QString() : QString::fromStdString(p.error().str());
}

QStringList MainWindow::recoverableSessions() {
  QDir dir(autosaveDir());
  QStringList out;
  for (const QFileInfo& f : dir.entryInfoList({QStringLiteral("*.dcwproj")}, QDir::Files, QDir::Time))
    out << f.absoluteFilePath();
  return out;
}

void MainWindow::writeAutosave() {
  // Nothing to save yet. An autosave already there stays: it is a crashed session's work on this
  // model (or one whose restore just failed), and the first step saved keeps it as the kept copy.
  if (!autosaves_ || !model_ || model_->history->size() == 0) return;
  QDir().mkpath(autosaveDir());
  auto p = transforms::projectOf(*model_->history, file_.toStdString(), model_->sha256);
  const QString path = autosavePath();
  if (auto r = transforms::saveProject(p, path.toStdString()); !r) {
    statusBar()->showMessage(tr("Autosave failed: %1").arg(QString::fromStdString(r.error().str())), 10000);
    return;
  }
  emit autosaved(path, p.steps.size(), p.position);
}

void MainWindow::discardAutosave(const QString& autosave) {
  QFile::remove(autosave);
  QFile::remove(QString::fromStdString(backupPathOf(autosave.toStdString())));
}

bool MainWindow::saveProjectAsked() {
  QString path = projectFile_;
  if (path.isEmpty())
    path = QFileDialog::getSaveFileName(this, tr("Save Project"), QFileInfo(file_).completeBaseName() + ".dcwproj",
                                        tr("DCW projects (*.dcwproj)"));
  if (path.isEmpty()) return false;
  QString error;
  if (saveProject(path, &error)) return true;
  QMessageBox::critical(this, tr("Cannot save project"), error);
  return false;
}

void MainWindow::removeAutosave() {
  if (QString path = autosavePath(); !path.isEmpty()) discardAutosave(path);
}

// ---- verification -------------------------------------------------------------------------------

namespace {

// Builds the model with `steps` through the pipeline (dynamic dims 1, as `dcw run --random` does) and
// runs it on `inputs` (random from a fixed seed when empty). Runs on a worker thread on its own copy.
Expected<std::vector<ir::Tensor>> runAt(const std::string& path, const std::vector<std::string>& steps,
                                        std::vector<ir::Tensor>& inputs, const std::shared_ptr<std::atomic<bool>>& cancel) {
  auto dims = pipeline::dimsFromValues(path, {});
  if (!dims) return dims.takeError();
  pipeline::Options opts;
  opts.fixedDims = *dims;
  // Generated code never runs in the app's process: a crash or hang in it ends the worker, and Cancel
  // kills the worker at once.
  opts.isolated = true;
  opts.cancel = cancel;
  pipeline::Steps s;
  s.lines = steps;
  auto prepared = pipeline::prepare(path, s, opts);
  if (!prepared) return fail(prepared.error());
  if (*cancel) return fail("verify", "cancelled");
  auto built = pipeline::build(std::move(*prepared), opts);
  if (!built) return fail(built.error());
  const auto& ex = built->executor;
  if (*cancel) return fail("verify", "cancelled");
  if (inputs.empty()) {
    auto in = codegen::randomInputs(ex->code().signature, 1234);
    if (!in) return in.takeError();
    inputs = std::move(*in);
  }
  return ex->run(inputs);
}

} // namespace

void MainWindow::verify(int from, int to) {
  if (!model_ || verifying_) return;
  if (to < 0) to = int(model_->history->position());
  from = std::clamp(from, 0, int(model_->history->size()));
  to = std::clamp(to, 0, int(model_->history->size()));
  const std::string path = file_.toStdString();
  auto before = scriptLines(size_t(from));
  auto after = scriptLines(size_t(to));
  verifying_ = true;
  verifyCancel_ = std::make_shared<std::atomic<bool>>(false);
  const quint64 serial = ++verifySerial_;
  auto cancel = verifyCancel_;
  QProgressDialog* progress = nullptr;
  if (showsDialogs_) {
    progress = new QProgressDialog(tr("Verifying…"), tr("Cancel"), 0, 100, this);
    progress->setWindowModality(Qt::NonModal);
    progress->setMinimumDuration(0);
    connect(progress, &QProgressDialog::canceled, this, &MainWindow::cancelVerify);
    connect(this, &MainWindow::verifyProgress, progress, [progress](int p, const QString& stage) {
      progress->setValue(p);
      progress->setLabelText(stage);
    });
    connect(this, &MainWindow::verifyFinished, progress, &QObject::deleteLater);
  }
  busy_->setVisible(true);
  auto report = [this, serial](int percent, QString stage) {
    QMetaObject::invokeMethod(this, [this, serial, percent, stage] {
      if (serial == verifySerial_) emit verifyProgress(percent, stage);
    });
  };
  using Watcher = QFutureWatcher<std::shared_ptr<VerifyResult>>;
  auto* watcher = new Watcher(this);
  connect(watcher, &Watcher::finished, this, [this, watcher, serial] {
    watcher->deleteLater();
    if (serial != verifySerial_) return;
    finishVerify(watcher->result());
  });
  watcher->setFuture(QtConcurrent::run([path, before, after, cancel, report, from, to]() {
    auto r = std::make_shared<VerifyResult>();
    QElapsedTimer t;
    t.start();
    try {
      std::vector<ir::Tensor> inputs;
      report(5, QObject::tr("Building the model at step %1…").arg(from));
      auto a = runAt(path, before, inputs, cancel);
      if (*cancel) {
        r->cancelled = true;
        r->message = QObject::tr("Verification cancelled");
        return r;
      }
      if (!a) {
        r->message = QObject::tr("Step %1 does not run: %2").arg(from).arg(QString::fromStdString(a.error().str()));
        return r;
      }
      report(50, QObject::tr("Building the model at step %1…").arg(to));
      auto b = runAt(path, after, inputs, cancel);
      if (*cancel) {
        r->cancelled = true;
        r->message = QObject::tr("Verification cancelled");
        return r;
      }
      if (!b) {
        r->message = QObject::tr("Step %1 does not run: %2").arg(to).arg(QString::fromStdString(b.error().str()));
        return r;
      }
      report(95, QObject::tr("Comparing outputs…"));
      auto d = codegen::compareOutputs(*a, *b);
      r->maxAbsDiff = d.maxAbs;
      r->maxRelDiff = d.maxRel;
      if (!d.mismatch.empty()) {
        r->message = QObject::tr("The outputs differ: %1").arg(QString::fromStdString(d.mismatch));
      } else {
        r->ok = true;
        r->message = QObject::tr("Steps %1 → %2: largest difference %3 (relative %4) over %5 outputs")
                         .arg(from)
                         .arg(to)
                         .arg(d.maxAbs, 0, 'g', 3)
                         .arg(d.maxRel, 0, 'g', 3)
                         .arg(a->size());
      }
    } catch (const std::exception& e) {
      r->message = QObject::tr("internal error while verifying: %1").arg(e.what());
    }
    r->elapsedMs = t.elapsed();
    return r;
  }));
}

void MainWindow::cancelVerify() {
  if (verifyCancel_) *verifyCancel_ = true;
}

void MainWindow::finishVerify(std::shared_ptr<VerifyResult> r) {
  verifying_ = false;
  busy_->setVisible(loading_);
  statusBar()->showMessage(r->message, 15000);
  emit verifyFinished(r->ok, r->maxAbsDiff, r->message);
  if (showsDialogs_ && !r->cancelled) {
    if (r->ok) QMessageBox::information(this, tr("Verify"), r->message);
    else QMessageBox::warning(this, tr("Verify"), r->message);
  }
}

void MainWindow::showCodeDiff(int step) {
  if (!model_ || step < 1 || size_t(step) > model_->history->size()) return;
  const quint64 serial = ++diffSerial_;
  const QString title = QString::fromStdString(model_->history->command(size_t(step - 1)).title());
  codeDiff_->setMessage(tr("Generating the code before and after step %1 (%2)…").arg(step).arg(title));
  codeDiffDock_->show();
  codeDiffDock_->raise();
  struct DiffResult {
    QString error, diff;
    DiffStats stats;
  };
  auto before = scriptLines(size_t(step - 1));
  auto after = scriptLines(size_t(step));
  const QString path = file_;
  using Watcher = QFutureWatcher<std::shared_ptr<DiffResult>>;
  auto* watcher = new Watcher(this);
  connect(watcher, &Watcher::finished, this, [this, watcher, serial, step, title] {
    watcher->deleteLater();
    if (serial != diffSerial_) return;
    auto r = watcher->result();
    if (!r->error.isEmpty()) {
      codeDiff_->setMessage(tr("No code changes for step %1: %2").arg(step).arg(r->error));
      return;
    }
    codeDiff_->setDiff(tr("Step %1, %2: +%3 −%4 lines").arg(step).arg(title).arg(r->stats.added).arg(r->stats.removed), r->diff);
    emit codeDiffReady(step, int(r->stats.added), int(r->stats.removed));
  });
  watcher->setFuture(QtConcurrent::run([path, before, after, step, target = target_]() {
    auto r = std::make_shared<DiffResult>();
    auto a = generateInBackground(path, before, target);
    auto b = generateInBackground(path, after, target);
    if (!a->error.isEmpty() || !b->error.isEmpty()) {
      r->error = !a->error.isEmpty() ? a->error : b->error;
      return r;
    }
    std::string d = unifiedDiff(a->source.toStdString(), b->source.toStdString(), "step " + std::to_string(step - 1) + ".cpp",
                                "step " + std::to_string(step) + ".cpp", 3, &r->stats);
    r->diff = QString::fromStdString(d);
    return r;
  }));
}

std::string MainWindow::selectedOutput() const {
  if (!model_) return {};
  const ir::Sdfg& s = *model_->loaded.sdfg;
  std::string name;
  if (const ir::Element* e = s.findElement(selection_->current())) {
    if (auto* a = dynamic_cast<const ir::AccessNode*>(e)) name = a->data();
    else if (auto* d = dynamic_cast<const ir::DataDescriptor*>(e)) name = d->name();
  }
  if (std::find(s.outputs.begin(), s.outputs.end(), name) != s.outputs.end()) return name;
  return s.outputs.size() == 1 ? s.outputs.front() : std::string();
}

bool MainWindow::differentiateSelected() {
  if (!model_) return false;
  std::string out = selectedOutput();
  if (out.empty()) {
    statusBar()->showMessage(tr("Select an output of the model (its access node) to differentiate"), 8000);
    return false;
  }
  views::DifferentiateDialog dialog(*model_->loaded.sdfg, out, this);
  if (dialog.exec() != QDialog::Accepted || dialog.command().isEmpty()) return false;
  return executeCommand(dialog.command());
}

bool MainWindow::autoOptimize() {
  if (!model_) return false;
  // For the target chosen in Run > Target: the GPU's gets GpuTransform, cuBLAS/cuDNN and whole kernels.
  transforms::AutoOptimizeOptions o;
  std::string why = "no such target";
  const codegen::Target* target = codegen::findTarget(target_);
  auto profile = target ? target->autoOptimizeProfile(&why) : std::nullopt;
  if (!profile) {
    const QString message = tr("Auto-optimize: the target %1 is not auto-optimized: %2")
                                .arg(QString::fromStdString(target_), QString::fromStdString(why));
    statusBar()->showMessage(message, 10000);
    emit commandFailed(message);
    if (showsDialogs_) QMessageBox::warning(this, tr("Cannot auto-optimize"), message);
    return false;
  }
  o.target = profile->device;
  if (!profile->prefer.empty()) o.prefer = profile->prefer;
  return execute(std::make_unique<transforms::AutoOptimizeCommand>(o));
}

} // namespace dcw::gui
