#include "app/gui/MainWindow.h"
#include "app/gui/SessionTypes.h"

#include "pipeline/Pipeline.h"
#include "core/analysis/Cost.h"
#include "core/analysis/ModelSummary.h"
#include "core/edit/History.h"
#include "core/io/ModelFile.h"
#include "core/io/TorchExport.h"
#include "views/TorchInputDialog.h"
#include "core/support/Sha256.h"
#include "transforms/Project.h"
#include "transforms/Script.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/ModulePath.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "views/CodeDiffView.h"
#include "views/CodeView.h"
#include "views/CompareView.h"
#include "views/HistoryModel.h"
#include "views/GraphCanvas.h"
#include "views/OutlineModel.h"
#include "views/ProfilePanel.h"
#include "views/PropertyModel.h"
#include "views/PureExpansions.h"
#include "views/Selection.h"
#include "views/SummaryView.h"
#include "views/SymbolsView.h"
#include "views/TourDialog.h"
#include "views/WeightView.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProgressBar>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QToolBar>
#include <QTreeView>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>
#include <optional>

namespace dcw::gui {

namespace {

const char* const kRecentKey = "recentFiles";
const char* const kLastDirKey = "lastOpenDir";
const char* const kGeometryKey = "window/geometry";
const char* const kStateKey = "window/state";
const char* const kThemeKey = "window/theme";

enum ProblemRole { ProblemIdRole = Qt::UserRole + 1, ProblemLocationRole };

// The one-line text of a failure; it always names the file.
QString failureText(const QString& path, const Diagnostic& d) {
  QString text = QString::fromStdString(d.str());
  if (d.location.empty()) text = path + QStringLiteral(": ") + text;
  return text;
}

QString count(double v) { return QString::fromStdString(analysis::formatCount(v)); }

} // namespace

// What the worker thread produces: either a model with its summary and cost, or the reason there is none.
struct LoadResult {
  QString path;
  std::optional<io::LoadedModel> model;
  analysis::ModelSummary summary;
  analysis::CostReport cost;
  QString error;
  qint64 elapsedMs = 0;
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
      r->cost = analysis::analyzeCost(*m->sdfg);
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

// Runs on a worker thread on its own copy of the model (loaded again, the history's steps replayed,
// lowered and generated through the pipeline, exactly as `dcw codegen --script` does), so the model on
// screen is never changed.
std::shared_ptr<CodeResult> generateInBackground(const QString& path, std::vector<std::string> steps, std::string target) {
  auto r = std::make_shared<CodeResult>();
  r->path = path;
  try {
    pipeline::Steps s;
    s.lines = std::move(steps);
    pipeline::Options opts;
    opts.target = std::move(target);
    auto prepared = pipeline::prepare(path.toStdString(), s, opts);
    if (!prepared) {
      r->error = failureText(path, prepared.error());
      return r;
    }
    auto code = pipeline::generate(*prepared, opts);
    if (!code) {
      r->error = failureText(path, code.error());
      return r;
    }
    r->source = QString::fromStdString(code->source);
    r->sourceMap = std::move(code->sourceMap);
  } catch (const std::exception& e) {
    r->error = path + QStringLiteral(": internal error while generating code: ") + QString::fromUtf8(e.what());
  } catch (...) {
    r->error = path + QStringLiteral(": internal error while generating code");
  }
  return r;
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName(QStringLiteral("MainWindow"));
  setAcceptDrops(true);
  setDockNestingEnabled(true);

  selection_ = new views::Selection(this);
  canvas_ = new views::GraphCanvas(this);
  setCentralWidget(canvas_);
  createDocks();
  createCanvasToolbar();
  createActions();
  createEditing();
  createProfiling();

  busy_ = new QProgressBar(this);
  busy_->setObjectName(QStringLiteral("loadProgress"));
  busy_->setRange(0, 0); // busy indicator: loading reports no progress
  busy_->setMaximumWidth(160);
  busy_->setTextVisible(false);
  busy_->setVisible(false);
  modelInfo_ = new QLabel(this);
  totals_ = new QLabel(this);
  totals_->setObjectName(QStringLiteral("totals"));
  statusBar()->addPermanentWidget(totals_);
  statusBar()->addPermanentWidget(modelInfo_);
  statusBar()->addPermanentWidget(busy_);
  statusBar()->showMessage(tr("Ready"));

  // Intent from the views becomes the shared selection; every panel follows the selection.
  connect(canvas_, &views::GraphCanvas::selectionRequested, this, [this](qulonglong id) { select(id); });
  connect(canvas_, &views::GraphCanvas::searchChanged, this, &MainWindow::showSearchState);
  connect(canvas_, &views::GraphCanvas::layoutFinished, this, [this] {
    if (views::VisualGraph::isGroupId(selection_->current())) { // what a group is comes with the graph
      refreshInspector();
      refreshTransformations();
    }
    const auto& s = canvas_->lastLayoutStats();
    if (canvas_->visualGraph())
      statusBar()->showMessage(tr("Layout: %1 nodes in %2 ms (%3 of %4 scopes from cache)")
                                   .arg(canvas_->visualGraph()->nodes.size())
                                   .arg(s.ms, 0, 'f', 0)
                                   .arg(s.cached)
                                   .arg(s.containers),
                               5000);
  });
  connect(selection_, &views::Selection::currentChanged, this, [this](qulonglong id) { followSelection(id); });
  connect(symbols_, &views::SymbolsView::valuesChanged, this, [this] {
    if (model_) canvas_->setNodeFlops(nodeFlops(model_->cost, symbols_->values()));
    refreshTotals();
    refreshInspector();
    setOverlay(overlay_);
  });

  updateTitle();
  resize(1400, 900);
}

MainWindow::~MainWindow() {
  delete compare_; // a top-level window of its own (it keeps its own copies of the two models)
  // The views point into the model: detach them before the model goes.
  canvas_->setSdfg(nullptr);
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
  outlineView_->header()->resizeSection(views::OutlineModel::NameColumn, 200);
  outlineView_->header()->resizeSection(views::OutlineModel::KindColumn, 90);
  connect(outlineView_->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& index) {
    if (syncingOutline_) return;
    ir::ElementId id = outline_->idForIndex(index);
    if (id != ir::kNoId) select(id);
  });
  outlineDock_ = new QDockWidget(tr("Outline"), this);
  outlineDock_->setObjectName(QStringLiteral("outlineDock"));
  outlineDock_->setWidget(outlineView_);
  addDockWidget(Qt::LeftDockWidgetArea, outlineDock_);

  inspector_ = new views::PropertyModel(this);
  inspectorView_ = new QTreeView;
  inspectorView_->setObjectName(QStringLiteral("inspectorView"));
  inspectorView_->setModel(inspector_);
  inspectorView_->setUniformRowHeights(true);
  inspectorView_->setAlternatingRowColors(true);
  inspectorView_->header()->resizeSection(0, 130);
  inspectorView_->setWordWrap(false);
  inspectorDock_ = new QDockWidget(tr("Inspector"), this);
  inspectorDock_->setObjectName(QStringLiteral("inspectorDock"));
  inspectorDock_->setWidget(inspectorView_);
  addDockWidget(Qt::RightDockWidgetArea, inspectorDock_);

  summary_ = new views::SummaryView;
  summaryDock_ = new QDockWidget(tr("Summary"), this);
  summaryDock_->setObjectName(QStringLiteral("summaryDock"));
  summaryDock_->setWidget(summary_);
  addDockWidget(Qt::RightDockWidgetArea, summaryDock_);
  tabifyDockWidget(inspectorDock_, summaryDock_);
  inspectorDock_->raise();

  weights_ = new views::WeightView;
  weightsDock_ = new QDockWidget(tr("Weights"), this);
  weightsDock_->setObjectName(QStringLiteral("weightsDock"));
  weightsDock_->setWidget(weights_);
  addDockWidget(Qt::RightDockWidgetArea, weightsDock_);
  symbols_ = new views::SymbolsView;
  symbolsDock_ = new QDockWidget(tr("Symbols"), this);
  symbolsDock_->setObjectName(QStringLiteral("symbolsDock"));
  symbolsDock_->setWidget(symbols_);
  addDockWidget(Qt::RightDockWidgetArea, symbolsDock_);
  tabifyDockWidget(weightsDock_, symbolsDock_);
  weightsDock_->raise();

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

  code_ = new views::CodeView;
  code_->setObjectName(QStringLiteral("codeView"));
  connect(code_, &views::CodeView::pathClicked, this, &MainWindow::selectCodePath);
  codeDock_ = new QDockWidget(tr("Code"), this);
  codeDock_->setObjectName(QStringLiteral("codeDock"));
  codeDock_->setWidget(code_);
  addDockWidget(Qt::BottomDockWidgetArea, codeDock_);
  tabifyDockWidget(problemsDock_, codeDock_);
  problemsDock_->hide(); // until there are problems (fillProblems)

  // The right column (inspector, transformations) runs down to the status bar: its panels need their
  // height, and under them the bottom docks (code, profile) could not grow past a few rows on a
  // laptop's screen (the roofline's axes were elided at 1400 x 900).
  setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
  resizeDocks({outlineDock_, inspectorDock_}, {300, 340}, Qt::Horizontal);
  resizeDocks({inspectorDock_, weightsDock_}, {480, 260}, Qt::Vertical);
  resizeDocks({codeDock_}, {150}, Qt::Vertical);
}

void MainWindow::createCanvasToolbar() {
  QToolBar* bar = addToolBar(tr("Canvas"));
  bar->setObjectName(QStringLiteral("canvasToolbar"));
  bar->setMovable(false);
  searchEdit_ = new QLineEdit(bar);
  searchEdit_->setObjectName(QStringLiteral("searchField"));
  searchEdit_->setPlaceholderText(tr("Find (Ctrl+F)"));
  searchEdit_->setClearButtonEnabled(true);
  searchEdit_->setMaximumWidth(240);
  searchMode_ = new QComboBox(bar);
  searchMode_->setObjectName(QStringLiteral("searchMode"));
  searchMode_->addItems({tr("Name"), tr("Op type"), tr("Regex")});
  searchState_ = new QLabel(bar);
  searchState_->setObjectName(QStringLiteral("searchState"));
  searchState_->setMinimumWidth(90);
  bar->addWidget(searchEdit_);
  bar->addWidget(searchMode_);
  QAction* prev = bar->addAction(tr("◀"), canvas_, &views::GraphCanvas::previousMatch);
  prev->setToolTip(tr("Previous match (Shift+F3)"));
  QAction* next = bar->addAction(tr("▶"), canvas_, &views::GraphCanvas::nextMatch);
  next->setToolTip(tr("Next match (F3, Enter)"));
  bar->addWidget(searchState_);
  connect(searchEdit_, &QLineEdit::textChanged, this, &MainWindow::runSearch);
  connect(searchMode_, &QComboBox::currentIndexChanged, this, &MainWindow::runSearch);
  connect(searchEdit_, &QLineEdit::returnPressed, canvas_, &views::GraphCanvas::nextMatch);
  bar->addSeparator();
  bar->addWidget(new QLabel(tr(" Overlay "), bar));
  overlayBox_ = new QComboBox(bar);
  overlayBox_->setObjectName(QStringLiteral("overlayBox"));
  overlayBox_->addItems({tr("None"), tr("Parameters"), tr("FLOPs"), tr("Bytes moved"), tr("Measured time"),
                         tr("Achieved GFLOP/s"), tr("Achieved GB/s"), tr("FPGA cycles")});
  connect(overlayBox_, &QComboBox::currentIndexChanged, this, [this](int i) { setOverlay(Overlay(i)); });
  bar->addWidget(overlayBox_);
  bar->addSeparator();
  bar->addAction(tr("Expand all"), canvas_, &views::GraphCanvas::expandAll);
  bar->addAction(tr("Collapse all"), canvas_, &views::GraphCanvas::collapseAll);
  bar->addAction(tr("Fit"), canvas_, &views::GraphCanvas::fitToView);
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
  QAction* close = file->addAction(tr("&Close"), this, [this] { closeModel(); });
  close->setShortcut(QKeySequence::Close);
  close->setObjectName(QStringLiteral("actionClose"));
  file->addSeparator();
  QAction* cmpModel = file->addAction(tr("Compare with &Model…"), this, [this] {
    if (!model_) return;
    const QString other = QFileDialog::getOpenFileName(this, tr("Compare with Model"), QFileInfo(file_).absolutePath(),
                                                       tr("Models (*.onnx *.dcw.json);;All files (*)"));
    if (!other.isEmpty()) compareWith(other);
  });
  cmpModel->setObjectName(QStringLiteral("actionCompareModel"));
  QAction* cmpImported = file->addAction(tr("Compare with the Model as &Imported"), this, [this] { compareWith(QString()); });
  cmpImported->setObjectName(QStringLiteral("actionCompareImported"));
  file->addSeparator();
  QMenu* exp = file->addMenu(tr("&Export"));
  exp->addAction(tr("Whole Graph as &SVG…"), this, [this] { exportImage(true, true); });
  exp->addAction(tr("Current View as S&VG…"), this, [this] { exportImage(true, false); });
  exp->addAction(tr("Whole Graph as &PNG…"), this, [this] { exportImage(false, true); });
  exp->addAction(tr("Current View as P&NG…"), this, [this] { exportImage(false, false); });
  file->addSeparator();
  QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setShortcut(QKeySequence::Quit);
  quit->setObjectName(QStringLiteral("actionQuit"));

  QMenu* go = menuBar()->addMenu(tr("&Navigate"));
  auto add = [this](QMenu* m, const QString& text, QKeySequence key, auto slot) {
    QAction* a = m->addAction(text);
    a->setShortcut(key);
    a->setShortcutContext(Qt::WindowShortcut);
    connect(a, &QAction::triggered, this, slot);
    return a;
  };
  add(go, tr("&Find…"), QKeySequence::Find, [this] {
    searchEdit_->setFocus();
    searchEdit_->selectAll();
  });
  add(go, tr("Find &Next"), QKeySequence(Qt::Key_F3), [this] { canvas_->nextMatch(); });
  add(go, tr("Find &Previous"), QKeySequence(Qt::SHIFT | Qt::Key_F3), [this] { canvas_->previousMatch(); });
  go->addSeparator();
  add(go, tr("Go to P&roducer"), QKeySequence(Qt::ALT | Qt::Key_Up), [this] { canvas_->moveToProducer(); });
  add(go, tr("Go to &Consumer"), QKeySequence(Qt::ALT | Qt::Key_Down), [this] { canvas_->moveToConsumer(); });
  add(go, tr("&Expand Selected"), QKeySequence(Qt::ALT | Qt::Key_Right), [this] {
    if (selection_->current() != ir::kNoId) canvas_->setExpanded(selection_->current(), true);
  });
  add(go, tr("C&ollapse Selected"), QKeySequence(Qt::ALT | Qt::Key_Left), [this] {
    if (selection_->current() != ir::kNoId) canvas_->setExpanded(selection_->current(), false);
  });
  go->addSeparator();
  add(go, tr("Fit to &View"), QKeySequence(Qt::CTRL | Qt::Key_0), [this] { canvas_->fitToView(); });
  add(go, tr("Zoom &In"), QKeySequence::ZoomIn, [this] { canvas_->zoomBy(1.25); });
  add(go, tr("Zoom O&ut"), QKeySequence::ZoomOut, [this] { canvas_->zoomBy(0.8); });

  QMenu* view = menuBar()->addMenu(tr("&View"));
  darkAction_ = view->addAction(tr("&Dark Theme"));
  darkAction_->setCheckable(true);
  darkAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_D));
  connect(darkAction_, &QAction::toggled, this,
          [this](bool on) { setTheme(on ? views::ThemeKind::Dark : views::ThemeKind::Light); });
  QAction* constants = view->addAction(tr("Show &Constants and Weight Preparation as Nodes"));
  constants->setCheckable(true);
  constants->setObjectName(QStringLiteral("actionShowConstants"));
  connect(constants, &QAction::toggled, this, [this](bool on) { // the canvas and the outline alike
    canvas_->setShowConstants(on);
    outline_->setFoldIntoReaders(!on);
    expandOutlineTop();
  });
  QAction* groups = view->addAction(tr("Group by &Module"));
  groups->setObjectName(QStringLiteral("actionModuleGroups"));
  groups->setCheckable(true);
  groups->setChecked(true);
  groups->setToolTip(tr("Nodes grouped by the module their names give (layers.0, encoder/…); off: the flat SDFG"));
  connect(groups, &QAction::toggled, this, [this](bool on) {
    canvas_->setModuleGroups(on);
    outline_->setModuleGroups(on);
    expandOutlineTop();
  });
  QAction* legend = view->addAction(tr("Op Colour &Legend"));
  legend->setObjectName(QStringLiteral("actionCategoryLegend"));
  legend->setCheckable(true);
  legend->setChecked(true);
  connect(legend, &QAction::toggled, canvas_, &views::GraphCanvas::setCategoryLegendEnabled);
  view->addAction(tr("&Expand All"), canvas_, &views::GraphCanvas::expandAll);
  view->addAction(tr("&Collapse All"), canvas_, &views::GraphCanvas::collapseAll);
  view->addSeparator();
  for (QDockWidget* d : {outlineDock_, inspectorDock_, summaryDock_, weightsDock_, symbolsDock_, problemsDock_, codeDock_})
    view->addAction(d->toggleViewAction());
  connect(problemsDock_->toggleViewAction(), &QAction::triggered, this, [this](bool on) { problemsChosen_ = on != (problems_->count() > 0); });

  QMenu* help = menuBar()->addMenu(tr("&Help"));
  // The README's ten-minute tour, beside the window while the user follows it (one dialog, reused).
  QAction* tour = help->addAction(tr("&Tour"), this, [this] {
    auto* dialog = findChild<views::TourDialog*>();
    if (!dialog) dialog = new views::TourDialog(this);
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
  });
  tour->setObjectName(QStringLiteral("actionTour"));
  help->addAction(tr("&Keyboard"), this, [this] {
    QMessageBox::information(this, tr("Keyboard"),
                             tr("<table>"
                                "<tr><td>Up / Down</td><td>producer / consumer (canvas focused)</td></tr>"
                                "<tr><td>Left / Right</td><td>neighbour in the same row</td></tr>"
                                "<tr><td>Enter, + / −, Backspace</td><td>expand / collapse</td></tr>"
                                "<tr><td>Alt+Up / Alt+Down</td><td>producer / consumer (anywhere)</td></tr>"
                                "<tr><td>Ctrl+F, F3, Shift+F3</td><td>find, next, previous</td></tr>"
                                "<tr><td>F, Ctrl+0</td><td>fit to view</td></tr>"
                                "<tr><td>wheel, Shift+wheel, drag</td><td>zoom, scroll, pan</td></tr>"
                                "<tr><td>Ctrl+Z, Ctrl+Shift+Z (Ctrl+Y)</td><td>undo, redo a step</td></tr>"
                                "<tr><td>Ctrl+S</td><td>save the project (.dcwproj)</td></tr>"
                                "<tr><td>Ctrl+Shift+V</td><td>verify against the imported model</td></tr>"
                                "<tr><td>F5, Shift+F5</td><td>profile, cancel</td></tr></table>"));
  });
  help->addAction(tr("&About DCW"), this, [this] {
    QMessageBox::about(this, tr("About DCW"),
                       tr("<b>DCW %1</b> — the Data-Centric Workbench.<br>ONNX models as data-centric dataflow "
                          "graphs (SDFGs).")
                           .arg(QStringLiteral(DCW_VERSION)));
  });
}

// ---- theme, overlays, search ------------------------------------------------------------------------

void MainWindow::setTheme(views::ThemeKind kind) {
  theme_ = kind;
  qApp->setPalette(views::applicationPalette(kind));
  canvas_->setTheme(kind);
  code_->setTheme(kind);
  if (darkAction_ && darkAction_->isChecked() != (kind == views::ThemeKind::Dark)) {
    QSignalBlocker block(darkAction_);
    darkAction_->setChecked(kind == views::ThemeKind::Dark);
  }
}

void MainWindow::setOverlay(Overlay overlay) {
  overlay_ = overlay;
  if (overlayBox_->currentIndex() != int(overlay)) {
    QSignalBlocker block(overlayBox_);
    overlayBox_->setCurrentIndex(int(overlay));
  }
  if (!model_ || overlay == Overlay::None) {
    canvas_->setOverlay({}, {});
    return;
  }
  if (overlay == Overlay::MeasuredTime || overlay == Overlay::AchievedFlops || overlay == Overlay::AchievedBandwidth ||
      overlay == Overlay::FpgaCycles) {
    auto values = measuredOverlay(overlay);
    const codegen::ProfileReport* r = profile_ ? profile_->report() : nullptr;
    bool rtl = false;
    if (r && r->fpga)
      for (auto& k : r->fpga->kernels) rtl = rtl || k.measuredCycles > 0;
    QString title = overlay == Overlay::MeasuredTime    ? tr("Measured time per run (ms)")
                    : overlay == Overlay::AchievedFlops ? tr("Achieved GFLOP/s")
                    : overlay == Overlay::FpgaCycles    ? (rtl ? tr("FPGA cycles/run (est.; RTL-measured kernels)")
                                                               : tr("FPGA cycles/run (estimated)"))
                                                        : tr("Achieved GB/s");
    if (values.empty())
      statusBar()->showMessage(overlay == Overlay::FpgaCycles ? tr("No FPGA profile of this model yet: Run ▸ Target ▸ FPGA, then Run ▸ Profile")
                                                              : tr("No profile of this model yet: Run ▸ Profile"),
                               5000);
    canvas_->setOverlay(title, std::move(values));
    return;
  }
  std::unordered_map<ir::ElementId, double> values;
  const auto& sym = symbols_->values();
  for (auto& [id, c] : model_->cost.nodes) {
    std::optional<double> v;
    switch (overlay) {
    case Overlay::Parameters: v = double(c.parameters); break;
    case Overlay::Flops: v = analysis::evaluate(c.flops, sym); break;
    case Overlay::Bytes: v = analysis::evaluate(c.bytes(), sym); break;
    default: break;
    }
    if (v) values[id] = *v;
  }
  QString title = overlay == Overlay::Parameters ? tr("Parameters per node")
                  : overlay == Overlay::Flops    ? tr("FLOPs per node")
                                                 : tr("Bytes moved per node");
  canvas_->setOverlay(title, std::move(values));
}

void MainWindow::runSearch() {
  const QString text = searchEdit_->text();
  if (text.trimmed().isEmpty()) {
    canvas_->clearSearch();
    return;
  }
  canvas_->search(text, views::SearchMode(searchMode_->currentIndex()));
  if (!canvas_->searchError().isEmpty()) searchState_->setText(tr("bad regex"));
  searchState_->setToolTip(canvas_->searchError());
}

void MainWindow::showSearchState(int current, int total) {
  if (searchEdit_->text().trimmed().isEmpty()) searchState_->clear();
  else if (total == 0) searchState_->setText(canvas_->searchError().isEmpty() ? tr("no match") : tr("bad regex"));
  else if (current < 0) searchState_->setText(tr("%n match(es)", nullptr, total));
  else searchState_->setText(tr("%1 of %2").arg(current + 1).arg(total));
}

void MainWindow::exportImage(bool svg, bool wholeGraph) {
  if (!model_) return;
  QString base = QFileInfo(file_).completeBaseName();
  QString path = QFileDialog::getSaveFileName(this, svg ? tr("Export SVG") : tr("Export PNG"),
                                              base + (svg ? QStringLiteral(".svg") : QStringLiteral(".png")),
                                              svg ? tr("SVG images (*.svg)") : tr("PNG images (*.png)"));
  if (path.isEmpty()) return;
  auto region = wholeGraph ? views::GraphCanvas::ExportRegion::WholeGraph : views::GraphCanvas::ExportRegion::CurrentView;
  QString error;
  bool ok = false;
  if (svg) {
    ok = canvas_->exportSvg(path, region, &error);
  } else {
    bool accepted = false;
    double scale = QInputDialog::getDouble(this, tr("Export PNG"), tr("Pixels per unit (1 = 100 %):"), 2.0, 0.05, 16.0,
                                           2, &accepted);
    if (!accepted) return;
    ok = canvas_->exportPng(path, region, scale, &error);
  }
  if (ok) statusBar()->showMessage(tr("Exported %1").arg(path), 8000);
  else QMessageBox::warning(this, tr("Export failed"), error);
}

// ---- selection ----------------------------------------------------------------------------------------

void MainWindow::select(ir::ElementId id) { selection_->setCurrent(id); }

Expected<void> MainWindow::selectPath(const std::string& path) {
  if (!model_) return fail(path, "no model is open");
  if (auto a = ir::parseModuleAddress(path)) {
    DCW_TRY(auto members, ir::moduleMembers(*model_->loaded.sdfg, path)); // names what is wrong with the address
    if (members.size() < 2) return fail(path, "this module has one op, so the canvas draws no group for it", "select the op: " + ir::pathOf(*members.front()));
    // The group's id is its state's and module path's (views/ModuleGroups), the same in every build of the graph.
    select(views::moduleGroupId(members.front()->parent()->id(), QString::fromStdString(a->module)));
    return {};
  }
  DCW_TRY(auto e, ir::resolvePath(*model_->loaded.sdfg, path));
  select(e->id());
  return {};
}

void MainWindow::followSelection(ir::ElementId id) {
  canvas_->showSelection(id);
  highlightCode(id);
  // The outline follows without asking for the selection again.
  {
    syncingOutline_ = true;
    QModelIndex index = outline_->indexForId(id);
    if (index.isValid()) {
      outlineView_->setCurrentIndex(index);
      outlineView_->scrollTo(index);
    } else {
      outlineView_->clearSelection();
    }
    syncingOutline_ = false;
  }
  refreshInspector();
  const ir::DataDescriptor* desc = nullptr;
  if (model_ && id != ir::kNoId) {
    const ir::Element* e = model_->loaded.sdfg->findElement(id);
    if (auto* a = dynamic_cast<const ir::AccessNode*>(e)) {
      if (const ir::Sdfg* s = ir::owningSdfg(a)) desc = s->findData(a->data());
    } else {
      desc = dynamic_cast<const ir::DataDescriptor*>(e);
    }
    QString path = QString::fromStdString(pathOfId(id));
    if (const views::ModuleGroup* g = canvas_->visualGraph() ? canvas_->visualGraph()->moduleGroup(id) : nullptr)
      path = g->address; // a module group: its script address
    if (!path.isEmpty()) statusBar()->showMessage(path);
  }
  weights_->setData(desc);
}

void MainWindow::refreshInspector() {
  if (!model_) {
    inspector_->clear();
    return;
  }
  const ir::ElementId id = selection_->current();
  if (const views::ModuleGroup* g = canvas_->visualGraph() ? canvas_->visualGraph()->moduleGroup(id) : nullptr) {
    inspector_->setModule(*g);
  } else if (views::VisualGraph::isGroupId(id)) {
    inspector_->clear();
  } else {
    inspector_->setElement(model_->loaded.sdfg.get(), id, &model_->cost, symbols_->values());
  }
  inspectorView_->expandAll();
}

std::unordered_map<ir::ElementId, double> MainWindow::nodeFlops(const analysis::CostReport& cost,
                                                                const std::map<std::string, int64_t>& symbols) {
  std::unordered_map<ir::ElementId, double> out;
  out.reserve(cost.nodes.size());
  for (auto& [id, c] : cost.nodes)
    if (auto v = analysis::evaluate(c.flops, symbols); v && *v > 0) out[id] = *v;
  return out;
}

void MainWindow::refreshTotals() {
  if (!model_) {
    totals_->clear();
    return;
  }
  const auto& c = model_->cost.total;
  const auto& sym = symbols_->values();
  auto fl = analysis::evaluate(c.flops, sym), by = analysis::evaluate(c.bytes(), sym);
  QString text = tr("Params %1 · FLOPs %2 · Bytes %3")
                     .arg(count(double(c.parameters)), fl ? count(*fl) : QString::fromStdString(c.flops.str()),
                          by ? count(*by) : QString::fromStdString(c.bytes().str()));
  QStringList set;
  for (auto& [n, v] : sym) set << QStringLiteral("%1=%2").arg(QString::fromStdString(n)).arg(v);
  if (!set.isEmpty()) text += QStringLiteral(" (") + set.join(QStringLiteral(", ")) + QLatin1Char(')');
  totals_->setText(text);
  totals_->setToolTip(tr("Static cost of one run: FLOPs %1, bytes moved %2")
                          .arg(QString::fromStdString(c.flops.str()), QString::fromStdString(c.bytes().str())));
}

// ---- opening ----------------------------------------------------------------------------------------

void MainWindow::showOpenDialog() {
  QSettings settings;
  QString dir = settings.value(kLastDirKey).toString();
  QString path = QFileDialog::getOpenFileName(
      this, tr("Open Model"), dir,
      tr("Models and projects (*.onnx *.dcw.json *.dcwproj *.dcwproj~ *.pt *.pth *.py);;ONNX models (*.onnx);;DCW SDFGs (*.dcw.json);;"
         "PyTorch models (*.pt *.pth *.py);;DCW projects and their kept copies (*.dcwproj *.dcwproj~);;All files (*)"));
  if (path.isEmpty()) return;
  settings.setValue(kLastDirKey, QFileInfo(path).absolutePath());
  openFile(path);
}

void MainWindow::openFile(const QString& requested) {
  if (!settleUnsavedSteps(tr("Open another model over %1"))) return;
  openSettled(requested);
}

void MainWindow::openSettled(const QString& requested) {
  QString path = requested;
  if (io::isTorchModelPath(path.toStdString())) return openTorchModel(path);
  pendingProject_.reset();
  // A project, or the copy of its previous version that each save keeps (NAME.dcwproj~).
  if (path.endsWith(QStringLiteral(".dcwproj"), Qt::CaseInsensitive) || path.endsWith(QStringLiteral(".dcwproj~"), Qt::CaseInsensitive)) {
    auto project = transforms::loadProject(path.toStdString());
    if (!project) {
      QString message = failureText(path, project.error());
      emit loadFailed(message);
      if (showsDialogs_) QMessageBox::critical(this, tr("Cannot open project"), message);
      return;
    }
    pendingProject_ = std::make_shared<PendingProject>(PendingProject{path, std::move(*project)});
    path = QString::fromStdString(pendingProject_->project.model);
  }
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

// A TorchScript model: the shapes of its inputs (asked, or set by setTorchInputs), torch's exporter in
// the background (core/io/TorchExport.h) into the cache, then the ONNX file opens as any other.
void MainWindow::openTorchModel(const QString& path) {
  QSettings settings;
  QString spec = torchInputs_.isEmpty() ? settings.value(QStringLiteral("torch/inputs"), QStringLiteral("1x3x224x224")).toString() : torchInputs_;
  QString className = torchClass_;
  const bool python = path.endsWith(QStringLiteral(".py"));
  if (python && className.isEmpty()) className = settings.value(QStringLiteral("torch/class"), QStringLiteral("Net")).toString();
  io::TorchExportOptions options;
  for (const QString& part : spec.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
    auto in = io::parseTorchInput(part.toStdString());
    if (!in) {
      const QString message = failureText(path, in.error());
      emit loadFailed(message);
      if (showsDialogs_) QMessageBox::critical(this, tr("Cannot open model"), message);
      return;
    }
    options.inputs.push_back(*in);
  }
  if (showsDialogs_ && (torchInputs_.isEmpty() || (python && torchClass_.isEmpty()))) {
    views::TorchInputDialog dialog(QFileInfo(path).fileName(), python && torchClass_.isEmpty(), this);
    dialog.setClassName(className);
    dialog.setInputs(options.inputs);
    if (dialog.exec() != QDialog::Accepted) return;
    if (python && torchClass_.isEmpty()) className = dialog.className();
    options.inputs = *dialog.inputs(); // OK is enabled only when they parse
    QStringList parts;
    for (auto& in : options.inputs) parts << QString::fromStdString(io::torchInputText(in));
    spec = parts.join(QLatin1Char(' '));
  }
  if (python) settings.setValue(QStringLiteral("torch/class"), className);
  options.className = python ? className.toStdString() : std::string();
  settings.setValue(QStringLiteral("torch/inputs"), spec);
  const QFileInfo info(path);
  const std::string key = path.toStdString() + '\n' + spec.toStdString() + '\n' + options.className + '\n' +
                          std::to_string(info.lastModified().toMSecsSinceEpoch());
  const QString dir = QStandardPaths::writableLocation(QStandardPaths::CacheLocation) + QStringLiteral("/torch");
  QDir().mkpath(dir);
  const QString onnx = dir + QLatin1Char('/') + info.completeBaseName() + QLatin1Char('-') +
                       QString::fromStdString(sha256Hex(key).substr(0, 12)) + QStringLiteral(".onnx");
  const quint64 serial = ++loadSerial_;
  setBusy(true);
  statusBar()->showMessage(tr("Exporting %1 to ONNX with torch…").arg(info.fileName()));
  using Watcher = QFutureWatcher<QString>;
  auto* watcher = new Watcher(this);
  connect(watcher, &Watcher::finished, this, [this, watcher, serial, path, onnx] {
    watcher->deleteLater();
    if (serial != loadSerial_) return; // superseded by a later openFile()
    setBusy(false);
    const QString error = watcher->result();
    if (!error.isEmpty()) {
      statusBar()->showMessage(tr("Could not open %1").arg(QFileInfo(path).fileName()), 10000);
      emit loadFailed(error);
      if (showsDialogs_) QMessageBox::critical(this, tr("Cannot open model"), error);
      return;
    }
    openSettled(onnx); // the session on screen was settled when the export began
  });
  watcher->setFuture(QtConcurrent::run([path, onnx, options]() -> QString {
    if (QFileInfo::exists(onnx)) return {}; // exported before with the same shapes
    const QString partial = onnx + QStringLiteral(".part.onnx");
    auto r = io::exportTorchToOnnx(path.toStdString(), partial.toStdString(), options);
    if (!r) return QString::fromStdString(r.error().str());
    if (!QFile::rename(partial, onnx)) return onnx + QStringLiteral(": cannot move the export into place");
    return {};
  }));
}

// The model on screen (at the current history step) on the right, `other` on the left: another model
// file, or (empty) this model's file as imported, i.e. before every step of the history.
bool MainWindow::compareWith(const QString& other) {
  if (!model_) return false;
  if (other.isEmpty()) return compareHistoryPoints(0, int(model_->history->position()));
  auto left = io::loadModel(other.toStdString());
  if (!left) {
    const QString message = failureText(other, left.error());
    emit loadFailed(message);
    if (showsDialogs_) QMessageBox::critical(this, tr("Cannot compare"), message);
    return false;
  }
  std::shared_ptr<const ir::Sdfg> right(model_->loaded.sdfg->clone());
  showComparison(std::shared_ptr<const ir::Sdfg>(std::move(left->sdfg)), QFileInfo(other).fileName(), right, pointTitle(int(model_->history->position())));
  return true;
}

bool MainWindow::compareHistoryPoints(int left, int right) {
  if (!model_) return false;
  const int size = int(model_->history->size());
  std::shared_ptr<const ir::Sdfg> sides[2];
  const int points[2] = {left, right};
  for (int k = 0; k < 2; ++k) {
    QString message;
    if (points[k] < 0 || points[k] > size) {
      message = tr("%1: the history has no point %2 (0 to %3)").arg(file_).arg(points[k]).arg(size);
    } else if (points[k] == int(model_->history->position())) {
      sides[k] = model_->loaded.sdfg->clone();
    } else {
      pipeline::Steps steps; // the model file replayed to that point
      for (auto& line : scriptLines(size_t(points[k]))) steps.lines.push_back(line);
      auto m = pipeline::loadWithSteps(file_.toStdString(), steps);
      if (m) sides[k] = std::shared_ptr<const ir::Sdfg>(std::move(m->sdfg));
      else message = failureText(file_, m.error());
    }
    if (!message.isEmpty()) {
      emit loadFailed(message);
      if (showsDialogs_) QMessageBox::critical(this, tr("Cannot compare"), message);
      return false;
    }
  }
  showComparison(sides[0], pointTitle(left), sides[1], pointTitle(right));
  return true;
}

QString MainWindow::pointTitle(int point) const {
  const QString name = QFileInfo(file_).fileName();
  return point == 0 ? tr("%1 as imported").arg(name) : tr("%1 after %n step(s)", "", point).arg(name);
}

void MainWindow::showComparison(std::shared_ptr<const ir::Sdfg> left, const QString& leftTitle, std::shared_ptr<const ir::Sdfg> right,
                                const QString& rightTitle) {
  delete compare_;
  compare_ = new views::CompareView(std::move(left), leftTitle, std::move(right), rightTitle);
  compare_->setAttribute(Qt::WA_DeleteOnClose, false);
  compare_->show();
  statusBar()->showMessage(compare_->summary()->text(), 10000);
}

bool MainWindow::isLoading() const { return loading_; }

const ir::Sdfg* MainWindow::sdfg() const { return model_ ? model_->loaded.sdfg.get() : nullptr; }
const analysis::CostReport* MainWindow::cost() const { return model_ ? &model_->cost : nullptr; }

void MainWindow::finishLoad(std::shared_ptr<LoadResult> r) {
  setBusy(false);
  if (!r || !r->model) {
    QString message = r ? r->error : tr("loading produced no result");
    statusBar()->showMessage(tr("Could not open %1").arg(r ? QFileInfo(r->path).fileName() : QString()), 10000);
    emit loadFailed(message);
    if (showsDialogs_) QMessageBox::critical(this, tr("Cannot open model"), message);
    pendingProject_.reset();
    return; // the previous model stays on screen
  }

  auto next = std::make_unique<Model>();
  next->loaded = std::move(*r->model);
  next->summary = std::move(r->summary);
  next->cost = std::move(r->cost);
  // Point the views at the new SDFG before the old one is destroyed.
  selection_->clear();
  outline_->setSdfg(next->loaded.sdfg.get());
  next->history = std::make_unique<edit::History>(*next->loaded.sdfg);
  if (auto sha = sha256File(r->path.toStdString())) next->sha256 = *sha;
  next->pure = std::make_unique<views::PureExpansions>(*next->loaded.sdfg);
  views::PureExpansions* pure = next->pure.get();
  canvas_->setSdfg(nullptr); // the old provider goes with the old model
  canvas_->setExpansionProvider([pure](const ir::LibraryNode& l) { return pure->get(l); },
                                [pure](const ir::LibraryNode& l) { return pure->has(l); });
  canvas_->setNodeFlops(nodeFlops(next->cost, {}), false);
  canvas_->setSdfg(next->loaded.sdfg.get());
  model_ = std::move(next);
  file_ = r->path;

  summary_->setSummary(model_->summary);
  symbols_->setSymbols(model_->cost.symbols, views::SymbolsView::extentNotes(*model_->loaded.sdfg));
  fillProblems();
  expandOutlineTop(); // the inspector, totals and overlay follow in afterHistoryChange

  const auto& s = model_->summary;
  auto plural = [](qint64 n, const QString& one, const QString& many) {
    return QStringLiteral("%1 %2").arg(n).arg(n == 1 ? one : many);
  };
  modelInfo_->setText(plural(s.nodeCount, tr("op"), tr("ops")) + QStringLiteral(" · ") +
                      plural(s.stateCount, tr("state"), tr("states")) + QStringLiteral(" · ") +
                      plural(problems_->count(), tr("problem"), tr("problems")));
  statusBar()->showMessage(tr("Opened %1 in %2 ms").arg(QFileInfo(file_).fileName()).arg(r->elapsedMs), 10000);
  addRecentFile(pendingProject_ ? projectFileOf(*pendingProject_) : file_);
  projectFile_.clear();
  const bool replay = pendingProject_ != nullptr;
  if (replay) restorePendingProject();
  historyModel_->setHistory(model_->history.get());
  afterHistoryChange(/*modelChanged=*/replay); // the views already show the model as it was opened
  emit modelLoaded(file_);
}

bool MainWindow::settleUnsavedSteps(const QString& title) {
  if (!model_ || !hasUnsavedSteps()) return true;
  if (!showsDialogs_) return true; // no one to ask: the autosave keeps the steps for the next start
  auto answer = QMessageBox::question(this, title.arg(QFileInfo(file_).fileName()),
                                      tr("The %n step(s) of this session are not saved in a project.", "", int(model_->history->size())),
                                      QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, QMessageBox::Save);
  if (answer == QMessageBox::Save) return saveProjectAsked(); // the save removes the autosave
  if (answer != QMessageBox::Discard) return false;           // Cancel, Escape, the dialog closed
  removeAutosave(); // the user's explicit discard
  return true;
}

bool MainWindow::closeModel() {
  if (!settleUnsavedSteps(tr("Close %1"))) return false;
  // Results still on their way belong to the closed model: drop them.
  ++loadSerial_;
  ++codeSerial_;
  cancelVerify();
  cancelProfile();
  pendingProject_.reset();
  setBusy(false);
  generatingCode_ = false;
  if (!hasUnsavedSteps()) removeAutosave(); // else it was discarded above, or no one was asked: it keeps the steps
  // The views let go of the model before it is destroyed.
  selection_->clear();
  historyModel_->setHistory(nullptr);
  canvas_->setSdfg(nullptr);
  outline_->setSdfg(nullptr);
  weights_->setData(nullptr);
  model_.reset();
  file_.clear();
  projectFile_.clear();
  savedSteps_.clear();
  summary_->clear();
  symbols_->setSymbols({});
  problems_->clear();
  code_->clear();
  codeDiff_->setMessage(QString());
  profile_->setMessage(QString());
  modelInfo_->clear();
  refreshInspector();
  refreshTotals();
  refreshTransformations();
  undoAction_->setEnabled(false);
  redoAction_->setEnabled(false);
  updateTitle();
  statusBar()->showMessage(tr("Closed"), 3000);
  emit modelClosed();
  return true;
}

// ---- generated code -------------------------------------------------------------------------------

std::string MainWindow::pathOfId(ir::ElementId id) const {
  if (!model_ || id == ir::kNoId) return {};
  const ir::Element* e = model_->loaded.sdfg->findElement(id);
  return e ? ir::pathOfElement(*model_->loaded.sdfg, *e) : std::string();
}

void MainWindow::expandOutlineTop() {
  QModelIndex root = outline_->index(0, 0);
  outlineView_->expand(root);
  // Open the states too when there are few of them (a typical imported model has one).
  if (outline_->rowCount(root) <= 4)
    for (int i = 0; i < outline_->rowCount(root); ++i) {
      QModelIndex child = outline_->index(i, 0, root);
      if (outline_->data(child, views::OutlineModel::ElementKindRole).toInt() == int(ir::ElementKind::State))
        outlineView_->expand(child);
    }
}

void MainWindow::generateCode() {
  const quint64 serial = ++codeSerial_;
  generatingCode_ = true;
  code_->setMessage(tr("Generating code for %1…").arg(QFileInfo(file_).fileName()));
  if (!model_) return;
  using Watcher = QFutureWatcher<std::shared_ptr<CodeResult>>;
  auto* watcher = new Watcher(this);
  connect(watcher, &Watcher::finished, this, [this, watcher, serial] {
    watcher->deleteLater();
    if (serial != codeSerial_) return; // a newer model is being generated
    finishCode(watcher->result());
  });
  watcher->setFuture(
      QtConcurrent::run(&generateInBackground, file_, scriptLines(model_ && model_->history ? model_->history->position() : 0), target_));
}

void MainWindow::finishCode(std::shared_ptr<CodeResult> r) {
  generatingCode_ = false;
  const bool ok = r && r->error.isEmpty();
  if (ok) {
    code_->setCode(r->source, std::move(r->sourceMap));
    highlightCode(selection_->current());
  } else {
    code_->setMessage(tr("No code: %1").arg(r ? r->error : tr("generation produced no result")));
  }
  emit codeGenerated(r ? r->path : QString(), ok);
}

// The generated code comes from a separate, expanded copy: its ids differ, its paths match.
void MainWindow::highlightCode(ir::ElementId id) {
  if (!model_ || id == ir::kNoId) {
    code_->highlightPath({});
    return;
  }
  code_->highlightPath(pathOfId(id));
}

void MainWindow::selectCodePath(const QString& path) {
  if (!model_) return;
  auto e = ir::resolvePath(*model_->loaded.sdfg, path.toStdString());
  if (e && *e) select((*e)->id());
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
  const int count = problems_->count();
  problemsDock_->setWindowTitle(count ? tr("Problems (%1)").arg(count) : tr("Problems"));
  // An empty Problems dock stays out of the way; problems bring it up (unless the user closed it on
  // problems, or opened it on none, from the View menu).
  if (count > 0 && problemsDock_->isHidden() && !problemsChosen_) {
    problemsDock_->show();
    problemsDock_->raise();
  } else if (count == 0 && !problemsDock_->isHidden() && !problemsChosen_) {
    problemsDock_->hide();
  }
}

void MainWindow::selectProblemElement(QListWidgetItem* item) {
  if (!item || !model_) return;
  ir::ElementId id = item->data(ProblemIdRole).toULongLong();
  if (id == ir::kNoId) {
    // Diagnostics located by path only: resolve the path in the model on screen.
    auto found = ir::resolvePath(*model_->loaded.sdfg, item->data(ProblemLocationRole).toString().toStdString());
    if (found) id = (*found)->id();
  }
  if (id != ir::kNoId) select(id);
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

// ---- layout state -------------------------------------------------------------------------------------

void MainWindow::restoreLayout() {
  QSettings s;
  if (s.contains(kGeometryKey)) restoreGeometry(s.value(kGeometryKey).toByteArray());
  if (s.contains(kStateKey)) restoreState(s.value(kStateKey).toByteArray());
  if (auto kind = views::themeFromName(s.value(kThemeKey).toString())) setTheme(*kind);
}

void MainWindow::closeEvent(QCloseEvent* event) {
  // Quit and the window's close button: unsaved steps are saved, discarded or kept (Cancel) first.
  // Without dialogs the autosave stays, so the next start offers the steps back.
  if (!settleUnsavedSteps(tr("Quit with %1 open"))) {
    event->ignore();
    return;
  }
  if (!hasUnsavedSteps()) removeAutosave();
  QSettings s;
  s.setValue(kGeometryKey, saveGeometry());
  s.setValue(kStateKey, saveState());
  s.setValue(kThemeKey, views::themeName(theme_));
  QMainWindow::closeEvent(event);
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
