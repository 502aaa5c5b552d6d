#include "app/gui/MainWindow.h"

#include "core/analysis/ModelSummary.h"
#include "core/io/ModelFile.h"
#include "core/ir/Path.h"
#include "views/OutlineModel.h"
#include "views/SummaryView.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStatusBar>
#include <QStyle>
#include <QTreeView>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>
#include <optional>

namespace dcw::gui {

namespace {

const char* const kRecentKey = "recentFiles";
const char* const kLastDirKey = "lastOpenDir";

enum ProblemRole { ProblemIdRole = Qt::UserRole + 1, ProblemLocationRole };

// The one-line text of a failure; it always names the file.
QString failureText(const QString& path, const Diagnostic& d) {
  QString text = QString::fromStdString(d.str());
  if (d.location.empty()) text = path + QStringLiteral(": ") + text;
  return text;
}

} // namespace

// What the worker thread produces: either a model with its summary, or the reason there is none.
struct LoadResult {
  QString path;
  std::optional<io::LoadedModel> model;
  analysis::ModelSummary summary;
  QString error;
  qint64 elapsedMs = 0;
};

struct MainWindow::Model {
  io::LoadedModel loaded;
  analysis::ModelSummary summary;
};

// Runs on a worker thread: touches no widget and nothing of the window.
static std::shared_ptr<LoadResult> loadInBackground(const QString& path) {
  auto r = std::make_shared<LoadResult>();
  r->path = path;
  QElapsedTimer timer;
  timer.start();
  try {
    auto m = io::loadModel(path.toStdString());
    if (m) {
      r->summary = analysis::summarize(*m->sdfg);
      r->model.emplace(std::move(*m));
    } else {
      r->error = failureText(path, m.error());
    }
  } catch (const std::exception& e) {
    // Loaders return Expected; this only catches what escapes them (e.g. out of memory), so that
    // bad input can never take the whole application down.
    r->model.reset();
    r->error = path + QStringLiteral(": internal error while loading: ") + QString::fromUtf8(e.what());
  } catch (...) {
    r->model.reset();
    r->error = path + QStringLiteral(": internal error while loading");
  }
  r->elapsedMs = timer.elapsed();
  return r;
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName(QStringLiteral("MainWindow"));
  setAcceptDrops(true);
  setDockNestingEnabled(true);

  summary_ = new views::SummaryView(this);
  setCentralWidget(summary_);
  createDocks();
  createActions();

  busy_ = new QProgressBar(this);
  busy_->setObjectName(QStringLiteral("loadProgress"));
  busy_->setRange(0, 0); // busy indicator: loading reports no progress
  busy_->setMaximumWidth(160);
  busy_->setTextVisible(false);
  busy_->setVisible(false);
  modelInfo_ = new QLabel(this);
  statusBar()->addPermanentWidget(modelInfo_);
  statusBar()->addPermanentWidget(busy_);
  statusBar()->showMessage(tr("Ready"));

  updateTitle();
  resize(1280, 800);
}

MainWindow::~MainWindow() {
  // The outline points into the model: detach it before the model goes.
  outline_->setSdfg(nullptr);
}

void MainWindow::createDocks() {
  outline_ = new views::OutlineModel(this);
  outlineView_ = new QTreeView;
  outlineView_->setObjectName(QStringLiteral("outlineView"));
  outlineView_->setModel(outline_);
  outlineView_->setUniformRowHeights(true); // keeps large models fast
  outlineView_->setAlternatingRowColors(true);
  outlineView_->setSelectionMode(QAbstractItemView::SingleSelection);
  outlineView_->header()->resizeSection(views::OutlineModel::NameColumn, 240);
  outlineView_->header()->resizeSection(views::OutlineModel::KindColumn, 110);
  connect(outlineView_->selectionModel(), &QItemSelectionModel::currentChanged, this, &MainWindow::showSelectedPath);

  outlineDock_ = new QDockWidget(tr("Outline"), this);
  outlineDock_->setObjectName(QStringLiteral("outlineDock"));
  outlineDock_->setWidget(outlineView_);
  addDockWidget(Qt::LeftDockWidgetArea, outlineDock_);

  problems_ = new QListWidget;
  problems_->setObjectName(QStringLiteral("problemsList"));
  problems_->setUniformItemSizes(true);
  problems_->setIconSize(QSize(16, 16));
  connect(problems_, &QListWidget::itemActivated, this, &MainWindow::selectProblemElement);
  connect(problems_, &QListWidget::itemClicked, this, &MainWindow::selectProblemElement);
  problemsDock_ = new QDockWidget(tr("Problems"), this);
  problemsDock_->setObjectName(QStringLiteral("problemsDock"));
  problemsDock_->setWidget(problems_);
  addDockWidget(Qt::BottomDockWidgetArea, problemsDock_);

  resizeDocks({outlineDock_}, {560}, Qt::Horizontal);
  resizeDocks({problemsDock_}, {150}, Qt::Vertical);
}

void MainWindow::createActions() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QAction* open = file->addAction(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open…"), this,
                                  &MainWindow::showOpenDialog);
  open->setShortcut(QKeySequence::Open);
  open->setObjectName(QStringLiteral("actionOpen"));
  recentMenu_ = file->addMenu(tr("Open &Recent"));
  recentMenu_->setObjectName(QStringLiteral("menuRecent"));
  connect(recentMenu_, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
  rebuildRecentMenu();
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);
  quit->setObjectName(QStringLiteral("actionQuit"));

  QMenu* view = menuBar()->addMenu(tr("&View"));
  view->addAction(outlineDock_->toggleViewAction());
  view->addAction(problemsDock_->toggleViewAction());

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  help->addAction(tr("&About DCW"), this, [this] {
    QMessageBox::about(this, tr("About DCW"),
                       tr("<b>DCW %1</b> — the Data-Centric Workbench.<br>ONNX models as data-centric dataflow "
                          "graphs (SDFGs).")
                           .arg(QStringLiteral(DCW_VERSION)));
  });
}

// ---- opening ----------------------------------------------------------------------------------------

void MainWindow::showOpenDialog() {
  QSettings settings;
  QString dir = settings.value(kLastDirKey).toString();
  QString path = QFileDialog::getOpenFileName(
      this, tr("Open Model"), dir,
      tr("Models (*.onnx *.dcw.json);;ONNX models (*.onnx);;DCW SDFGs (*.dcw.json);;All files (*)"));
  if (path.isEmpty()) return;
  settings.setValue(kLastDirKey, QFileInfo(path).absolutePath());
  openFile(path);
}

void MainWindow::openFile(const QString& path) {
  const quint64 serial = ++loadSerial_;
  setBusy(true);
  statusBar()->showMessage(tr("Loading %1…").arg(QFileInfo(path).fileName()));

  using Watcher = QFutureWatcher<std::shared_ptr<LoadResult>>;
  auto* watcher = new Watcher(this);
  connect(watcher, &Watcher::finished, this, [this, watcher, serial] {
    watcher->deleteLater();
    if (serial != loadSerial_) return; // superseded by a later openFile()
    finishLoad(watcher->result());
  });
  watcher->setFuture(QtConcurrent::run(&loadInBackground, path));
}

bool MainWindow::isLoading() const { return loading_; }

const ir::Sdfg* MainWindow::sdfg() const { return model_ ? model_->loaded.sdfg.get() : nullptr; }

void MainWindow::finishLoad(std::shared_ptr<LoadResult> r) {
  setBusy(false);
  if (!r || !r->model) {
    QString message = r ? r->error : tr("loading produced no result");
    statusBar()->showMessage(tr("Could not open %1").arg(r ? QFileInfo(r->path).fileName() : QString()), 10000);
    emit loadFailed(message);
    if (showsDialogs_) QMessageBox::critical(this, tr("Cannot open model"), message);
    return; // the previous model stays on screen
  }

  auto next = std::make_unique<Model>();
  next->loaded = std::move(*r->model);
  next->summary = std::move(r->summary);
  // Point the views at the new SDFG before the old one is destroyed.
  outline_->setSdfg(next->loaded.sdfg.get());
  model_ = std::move(next);
  file_ = r->path;

  summary_->setSummary(model_->summary);
  fillProblems();
  QModelIndex root = outline_->index(0, 0);
  outlineView_->expand(root);
  // Open the states too when there are few of them (a typical imported model has one).
  if (outline_->rowCount(root) <= 4)
    for (int i = 0; i < outline_->rowCount(root); ++i) {
      QModelIndex child = outline_->index(i, 0, root);
      if (outline_->data(child, views::OutlineModel::ElementKindRole).toInt() == int(ir::ElementKind::State))
        outlineView_->expand(child);
    }

  const auto& s = model_->summary;
  auto plural = [](qint64 n, const QString& one, const QString& many) {
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
  };
  modelInfo_->setText(plural(s.nodeCount, tr("op"), tr("ops")) + QStringLiteral(" · ") +
                      plural(s.stateCount, tr("state"), tr("states")) + QStringLiteral(" · ") +
                      plural(problems_->count(), tr("problem"), tr("problems")));
  statusBar()->showMessage(tr("Opened %1 in %2 ms").arg(QFileInfo(file_).fileName()).arg(r->elapsedMs), 10000);
  addRecentFile(file_);
  updateTitle();
  emit modelLoaded(file_);
}

void MainWindow::fillProblems() {
  problems_->clear();
  if (!model_) return;
  auto add = [this](const Diagnostic& d) {
    auto* item = new QListWidgetItem(QString::fromStdString(d.str()), problems_);
    QStyle::StandardPixmap icon = d.severity == Severity::Error     ? QStyle::SP_MessageBoxCritical
                                  : d.severity == Severity::Warning ? QStyle::SP_MessageBoxWarning
                                                                    : QStyle::SP_MessageBoxInformation;
    item->setIcon(style()->standardIcon(icon));
    item->setToolTip(QString::fromStdString(d.str()));
    bool ok = false;
    qulonglong id = QString::fromStdString(d.elementId).toULongLong(&ok);
    item->setData(ProblemIdRole, ok ? id : 0);
    item->setData(ProblemLocationRole, QString::fromStdString(d.location));
  };
  for (auto& d : model_->loaded.warnings.items()) add(d);
  for (auto& d : model_->loaded.validation.items()) add(d);
  problemsDock_->setWindowTitle(problems_->count() ? tr("Problems (%1)").arg(problems_->count()) : tr("Problems"));
}

void MainWindow::selectProblemElement(QListWidgetItem* item) {
  if (!item || !model_) return;
  ir::ElementId id = item->data(ProblemIdRole).toULongLong();
  if (id == ir::kNoId) {
    // Diagnostics located by path only: resolve the path in the model on screen.
    auto found = ir::resolvePath(*model_->loaded.sdfg, item->data(ProblemLocationRole).toString().toStdString());
    if (found) id = (*found)->id();
  }
  QModelIndex index = outline_->indexForId(id);
  if (!index.isValid()) return;
  outlineView_->setCurrentIndex(index);
  outlineView_->scrollTo(index);
}

void MainWindow::showSelectedPath() {
  QString path = outlineView_->currentIndex().data(views::OutlineModel::PathRole).toString();
  if (!path.isEmpty()) statusBar()->showMessage(path);
}

void MainWindow::updateTitle() {
  setWindowTitle(file_.isEmpty() ? QStringLiteral("DCW") : QStringLiteral("DCW — %1").arg(QFileInfo(file_).fileName()));
}

void MainWindow::setBusy(bool busy) {
  busy_->setVisible(busy);
  if (loading_ == busy) return;
  loading_ = busy;
  emit loadingChanged(busy);
}

// ---- recent files -----------------------------------------------------------------------------------

QStringList MainWindow::recentFiles() const { return QSettings().value(kRecentKey).toStringList(); }

void MainWindow::addRecentFile(const QString& path) {
  QString abs = QFileInfo(path).absoluteFilePath();
  QStringList files = recentFiles();
  files.removeAll(abs);
  files.prepend(abs);
  while (files.size() > kMaxRecentFiles) files.removeLast();
  QSettings().setValue(kRecentKey, files);
  rebuildRecentMenu();
}

void MainWindow::rebuildRecentMenu() {
  recentMenu_->clear();
  const QStringList files = recentFiles();
  int n = 0;
  for (const QString& f : files) {
    ++n;
    QAction* a = recentMenu_->addAction(QStringLiteral("&%1 %2").arg(n).arg(QFileInfo(f).fileName()));
    a->setToolTip(f);
    a->setStatusTip(f);
    a->setEnabled(QFileInfo::exists(f));
    connect(a, &QAction::triggered, this, [this, f] { openFile(f); });
  }
  if (files.isEmpty()) {
    recentMenu_->addAction(tr("(none)"))->setEnabled(false);
    return;
  }
  recentMenu_->addSeparator();
  // The menu is rebuilt the next time it opens (not here: this action belongs to it).
  recentMenu_->addAction(tr("&Clear Menu"), this, [] { QSettings().remove(kRecentKey); });
}

// ---- drag and drop ------------------------------------------------------------------------------------

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  const QMimeData* mime = event->mimeData();
  if (mime->hasUrls() && !mime->urls().isEmpty() && mime->urls().first().isLocalFile())
    event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QMimeData* mime = event->mimeData();
  if (!mime->hasUrls() || mime->urls().isEmpty() || !mime->urls().first().isLocalFile()) return;
  event->acceptProposedAction();
  openFile(mime->urls().first().toLocalFile()); // one model per window: the first file wins
}

} // namespace dcw::gui
