// The profiling part of the main window: Run ▸ Profile builds the model at the current history step
// with instrumentation on a worker thread (its own copy: load, replay the steps, expand, generate,
// compile), runs it repeatedly in a worker process (a crash, abort or hang in generated code ends the
// worker, not the app; Cancel kills it at once) and shows the report in the Profile panel (table,
// timeline, roofline) and as measured overlays on the canvas; Compare Profiles does it before and
// after a history step.
// A failing build is reported with the compiler's message mapped through the source map to the
// element it came from, which is then selected; the window stays usable throughout.
#include "app/gui/MainWindow.h"
#include "codegen/Target.h"
#include "codegen/cuda/CudaTarget.h"
#include "views/PropertyModel.h"
#include "app/gui/SessionTypes.h"

#include "codegen/cpu/CppGenerator.h"
#include "codegen/run/Executor.h"
#include "codegen/run/MachinePeaks.h"
#include "pipeline/Pipeline.h"
#include "pipeline/Specialize.h"
#include "codegen/run/Profiler.h"
#include "codegen/run/RandomInputs.h"
#include "core/expansions/ExpandPass.h"
#include "core/support/UsableCores.h"
#include "core/ir/ModulePath.h"
#include "core/ir/Path.h"
#include "transforms/Script.h"
#include "views/GraphCanvas.h"
#include "views/ModuleGroups.h"
#include "views/ProfilePanel.h"
#include "views/ProfileTableModel.h"
#include "views/Selection.h"

#include <QAction>
#include <QActionGroup>
#include <QDockWidget>
#include <QFutureWatcher>
#include <QListView>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressBar>
#include <QStatusBar>
#include <QtConcurrent/QtConcurrentRun>

namespace dcw::gui {

namespace {

struct ProfileOutcome {
  std::shared_ptr<codegen::ProfileReport> report;
  QString error;     // one line, located
  QString errorPath; // the element a build error maps to ("" when none)
  bool cancelled = false;
};

// Runs on a worker thread on its own copy of the model.
ProfileOutcome profileAt(const std::string& path, const std::string& target, const std::vector<std::string>& steps,
                         const std::vector<std::string>& instrument, int repeat, bool rtl,
                         const std::shared_ptr<std::atomic<bool>>& cancelFlag, const std::function<void(int, QString)>& report) {
  ProfileOutcome out;
  const std::atomic<bool>& cancel = *cancelFlag;
  auto failWith = [&](const Diagnostic& d) {
    out.error = QString::fromStdString(d.str());
    return out;
  };
  try {
    report(5, QObject::tr("Loading and replaying %1 steps…").arg(steps.size()));
    auto dims = pipeline::dimsFromValues(path, {});
    if (!dims) return failWith(dims.error());
    pipeline::Options opts;
    opts.target = target;
    opts.fixedDims = *dims;
    opts.generate.instrument = codegen::parseInstrumentation(instrument);
    // Generated code never runs in the app's process; the cancel flag kills the worker at once.
    opts.isolated = true;
    opts.cancel = cancelFlag;
    pipeline::Steps s;
    s.lines = steps;
    auto prepared = pipeline::prepare(path, s, opts);
    if (!prepared) return failWith(prepared.error());
    if (cancel) return out.cancelled = true, out;
    report(20, QObject::tr("Generating and compiling with timers…"));
    auto built = pipeline::build(std::move(*prepared), opts);
    if (!built) {
      out.errorPath = QString::fromStdString(built.failure().element);
      out.error = QString::fromStdString(built.error().str());
      return out;
    }
    const auto& ex = built->executor;
    if (cancel) return out.cancelled = true, out;
    report(55, QObject::tr("Measuring the machine's peaks (cached after the first time)…"));
    auto peaks = codegen::machinePeaks();
    report(70, QObject::tr("Running %1 times…").arg(repeat));
    auto inputs = codegen::randomInputs(ex->code().signature, 1234);
    if (!inputs) return failWith(inputs.error());
    codegen::ProfileOptions po;
    po.repeat = repeat;
    po.threads = dcw::usableCores(); // what OpenMP uses by default
    po.rtl = rtl && target.rfind("fpga", 0) == 0;
    if (po.rtl) report(80, QObject::tr("Running %1 times, then simulating the FPGA kernels as RTL with Verilator…").arg(repeat));
    auto r = codegen::profileRuns(*ex, *inputs, po);
    if (!r && cancel) return out.cancelled = true, out;
    if (!r) return failWith(r.error());
    r->model = path;
    r->target = target;
    codegen::addModuleTimes(*r, *built->prepared.model.sdfg);
    r->instrument.clear();
    for (auto& w : instrument) r->instrument += (r->instrument.empty() ? "" : " ") + w;
    if (peaks) r->peaks = *peaks;
    out.report = std::make_shared<codegen::ProfileReport>(std::move(*r));
  } catch (const std::exception& e) {
    out.error = QObject::tr("internal error while profiling: %1").arg(e.what());
  }
  return out;
}

} // namespace

void MainWindow::createProfiling() {
  profile_ = new views::ProfilePanel;
  profile_->setObjectName(QStringLiteral("profilePanel"));
  profileDock_ = new QDockWidget(tr("Profile"), this);
  profileDock_->setObjectName(QStringLiteral("profileDock"));
  profileDock_->setWidget(profile_);
  addDockWidget(Qt::BottomDockWidgetArea, profileDock_);
  tabifyDockWidget(codeDock_, profileDock_);
  profileDock_->hide(); // until the first profile (Run > Profile shows it), so no empty table takes room
  codeDock_->raise();
  connect(profile_, &views::ProfilePanel::elementClicked, this, [this](const QString& path) {
    if (!model_) return;
    if (auto e = ir::resolvePath(*model_->loaded.sdfg, path.toStdString())) select((*e)->id());
    else statusBar()->showMessage(tr("%1 is inside an expansion; open the node to see it").arg(path), 5000);
  });
  connect(profile_, &views::ProfilePanel::moduleClicked, this, [this](qulonglong id) { select(ir::ElementId(id)); });
  connect(selection_, &views::Selection::currentChanged, this, [this](qulonglong id) {
    if (model_ && id != ir::kNoId) profile_->highlightPath(QString::fromStdString(pathOfId(id)));
  });

  QMenu* run = new QMenu(tr("&Run"), this);
  menuBar()->insertMenu(menuBar()->actions().at(2), run);
  QAction* prof = run->addAction(tr("&Profile"), this, [this] { profile(); });
  prof->setShortcut(QKeySequence(Qt::Key_F5));
  prof->setObjectName(QStringLiteral("actionProfile"));
  QAction* cmp = run->addAction(tr("&Compare Profiles of the Selected History Step"), this, [this] {
    int row = historyView_->currentIndex().row();
    if (row >= 1) compareStepProfiles(row);
    else statusBar()->showMessage(tr("Choose a step (not the imported model) in the History panel first"), 5000);
  });
  cmp->setObjectName(QStringLiteral("actionCompareProfiles"));
  QMenu* inst = run->addMenu(tr("&Instrumentation"));
  auto* group = new QActionGroup(this);
  auto choice = [&](const QString& text, std::vector<std::string> what, bool on) {
    QAction* a = inst->addAction(text);
    a->setCheckable(true);
    a->setChecked(on);
    group->addAction(a);
    connect(a, &QAction::triggered, this, [this, what] { instrument_ = what; });
  };
  choice(tr("&Everything (states, library nodes, top-level maps)"), {"all"}, true);
  choice(tr("&Library Nodes"), {"nodes"}, false);
  choice(tr("&States"), {"states"}, false);
  choice(tr("Top-level &Maps"), {"maps"}, false);
  choice(tr("&Whole Model Only"), {"model"}, false);
  QAction* sel = inst->addAction(tr("The Selected &Element"));
  sel->setCheckable(true);
  group->addAction(sel);
  connect(sel, &QAction::triggered, this, [this] {
    std::string p = pathOfId(selection_->current());
    if (p.empty()) statusBar()->showMessage(tr("Select an element first"), 5000);
    else instrument_ = {"model", p};
  });
  // Run ▸ Target: what Profile builds and runs, and what the Code panel shows.
  QMenu* targets = run->addMenu(tr("&Target"));
  targets->setObjectName(QStringLiteral("menuTarget"));
  auto* targetGroup = new QActionGroup(this);
  auto targetChoice = [&](const QString& text, const std::string& name) {
    QAction* a = targets->addAction(text);
    a->setObjectName(QStringLiteral("actionTarget_") + QString::fromStdString(name).replace('-', '_'));
    a->setCheckable(true);
    a->setChecked(name == target_);
    targetGroup->addAction(a);
    connect(a, &QAction::triggered, this, [this, name] { setTarget(name); });
  };
  targetChoice(tr("&CPU (C++ with OpenMP)"), "cpu");
  targetChoice(tr("&FPGA in C-simulation (HLS kernels; estimated cycles and resources)"), "fpga-sim");
  // The GPU: unavailable without the CUDA toolkit, and without a GPU only the code can be shown; the
  // menu says which, so a user never wonders why Profile fails.
  {
    std::string whyNot, noGpu;
    const dcw::codegen::Target* cuda = dcw::codegen::findTarget("cuda");
    const bool toolkit = cuda && cuda->available(&whyNot);
    const bool gpu = dcw::codegen::gpuPresent(&noGpu);
    targetChoice(toolkit ? (gpu ? tr("CUDA &GPU (kernels built with nvcc)") : tr("CUDA &GPU (kernels built with nvcc; %1: code only)").arg(QString::fromStdString(noGpu)))
                         : tr("CUDA &GPU (unavailable: %1)").arg(QString::fromStdString(whyNot)),
                 "cuda");
    if (QAction* a = targets->actions().back(); !toolkit) {
      a->setEnabled(false);
      a->setToolTip(QString::fromStdString(whyNot));
    }
    targetChoice(tr("CUDA &Simulated on the CPU (the same kernels, thread by thread; outputs, no timing)"), "cuda-sim");
  }
  targets->addSeparator();
  QAction* rtl = targets->addAction(tr("Also Simulate FPGA Kernels as &RTL (Verilator: measured cycles)"));
  rtl->setObjectName(QStringLiteral("actionRtlProfile"));
  rtl->setCheckable(true);
  rtl->setChecked(rtlProfile_);
  connect(rtl, &QAction::toggled, this, [this](bool on) { rtlProfile_ = on; });
  QAction* stop = run->addAction(tr("C&ancel"), this, &MainWindow::cancelProfile);
  stop->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
  for (QMenu* m : menuBar()->findChildren<QMenu*>())
    if (m->title() == tr("&View")) m->addAction(profileDock_->toggleViewAction());
}

void MainWindow::setTarget(const std::string& target) {
  if (target == target_) return;
  target_ = target;
  // The inspector checks implementation choices for this target (cublas for cuda, systolic for fpga).
  if (const codegen::Target* t = codegen::findTarget(target)) inspector_->setImplementationTarget(std::string(t->implementationTarget()));
  refreshInspector();
  statusBar()->showMessage(tr("Target: %1 (Profile and the Code panel use it)").arg(QString::fromStdString(target)), 5000);
  generateCode();
}

void MainWindow::setRtlProfiling(bool on) {
  rtlProfile_ = on;
  if (auto* a = findChild<QAction*>(QStringLiteral("actionRtlProfile"))) a->setChecked(on);
}

void MainWindow::cancelProfile() {
  if (profileCancel_) *profileCancel_ = true;
}

void MainWindow::profile(int repeat) {
  if (!model_ || profiling_) return;
  profiling_ = true;
  profileCancel_ = std::make_shared<std::atomic<bool>>(false);
  const quint64 serial = ++profileSerial_;
  const std::string path = file_.toStdString();
  const std::string target = target_;
  auto steps = scriptLines(model_->history->position());
  auto cancel = profileCancel_;
  profileDock_->show();
  profileDock_->raise();
  profile_->setMessage(tr("Profiling…"));
  busy_->setVisible(true);
  auto report = [this, serial](int percent, QString stage) {
    QMetaObject::invokeMethod(this, [this, serial, percent, stage] {
      if (serial != profileSerial_) return;
      profile_->setMessage(stage);
      emit profileProgress(percent, stage);
    });
  };
  using Watcher = QFutureWatcher<ProfileOutcome>;
  auto* watcher = new Watcher(this);
  connect(watcher, &Watcher::finished, this, [this, watcher, serial] {
    watcher->deleteLater();
    if (serial != profileSerial_) return;
    profiling_ = false;
    busy_->setVisible(loading_);
    ProfileOutcome r = watcher->result();
    if (r.cancelled) {
      profile_->setMessage(tr("Profiling cancelled"));
      emit profileFinished(false, tr("cancelled"));
      return;
    }
    if (!r.report) {
      profile_->setMessage(tr("Profiling failed: %1").arg(r.error));
      if (!r.errorPath.isEmpty() && model_)
        if (auto e = ir::resolvePath(*model_->loaded.sdfg, r.errorPath.toStdString())) select((*e)->id());
      emit profileFinished(false, r.error);
      if (showsDialogs_) QMessageBox::warning(this, tr("Profile"), r.error);
      return;
    }
    profile_->setReport(r.report);
    profile_->tableModel()->setModules(moduleTimes(*r.report));
    resizeDocks({profileDock_}, {int(height() * 0.45)}, Qt::Vertical); // room for the chart and the timeline
    if (overlay_ == Overlay::MeasuredTime || overlay_ == Overlay::AchievedFlops || overlay_ == Overlay::AchievedBandwidth ||
        overlay_ == Overlay::FpgaCycles)
      setOverlay(overlay_);
    emit profileFinished(true, profile_->summary());
  });
  auto what = instrument_;
  const bool rtl = rtlProfile_;
  watcher->setFuture(QtConcurrent::run([path, target, steps, what, repeat, rtl, cancel, report] {
    return profileAt(path, target, steps, what, repeat, rtl, cancel, report);
  }));
}

void MainWindow::compareStepProfiles(int step, int repeat) {
  if (!model_ || profiling_ || step < 1 || size_t(step) > model_->history->size()) return;
  profiling_ = true;
  profileCancel_ = std::make_shared<std::atomic<bool>>(false);
  const quint64 serial = ++profileSerial_;
  const std::string path = file_.toStdString();
  const std::string target = target_;
  auto before = scriptLines(size_t(step - 1));
  auto after = scriptLines(size_t(step));
  auto cancel = profileCancel_;
  const QString title = tr("Step %1: %2").arg(step).arg(QString::fromStdString(model_->history->command(size_t(step - 1)).title()));
  profileDock_->show();
  profileDock_->raise();
  busy_->setVisible(true);
  auto report = [this, serial](int percent, QString stage) {
    QMetaObject::invokeMethod(this, [this, serial, percent, stage] {
      if (serial == profileSerial_) profile_->setMessage(stage);
    });
  };
  struct Pair {
    ProfileOutcome a, b;
  };
  using Watcher = QFutureWatcher<Pair>;
  auto* watcher = new Watcher(this);
  connect(watcher, &Watcher::finished, this, [this, watcher, serial, step, title] {
    watcher->deleteLater();
    if (serial != profileSerial_) return;
    profiling_ = false;
    busy_->setVisible(loading_);
    Pair p = watcher->result();
    if (!p.a.report || !p.b.report) {
      QString why = p.a.cancelled || p.b.cancelled ? tr("cancelled") : !p.a.report ? p.a.error : p.b.error;
      profile_->setMessage(tr("Comparison failed: %1").arg(why));
      emit comparisonFinished(false, why);
      return;
    }
    auto c = codegen::compareReports(*p.a.report, *p.b.report);
    profile_->setReport(p.b.report);
    profile_->tableModel()->setModules(moduleTimes(*p.b.report));
    profile_->setComparison(title, c, tr("before (step %1)").arg(step - 1), tr("after (step %1)").arg(step));
    emit comparisonFinished(true, profile_->comparisonText());
  });
  auto what = instrument_;
  const bool rtl = rtlProfile_;
  watcher->setFuture(QtConcurrent::run([path, target, before, after, what, repeat, rtl, cancel, report] {
    Pair p;
    p.a = profileAt(path, target, before, what, repeat, rtl, cancel, [&](int pc, QString s) { report(pc / 2, QObject::tr("Before: %1").arg(s)); });
    if (p.a.report && !*cancel)
      p.b = profileAt(path, target, after, what, repeat, rtl, cancel, [&](int pc, QString s) { report(50 + pc / 2, QObject::tr("After: %1").arg(s)); });
    return p;
  }));
}

std::vector<views::ProfileTableModel::ModuleTime> MainWindow::moduleTimes(const codegen::ProfileReport& report) const {
  // The report's module groups (by address), each with the id of the group the canvas draws for it.
  std::vector<views::ProfileTableModel::ModuleTime> out;
  if (!model_) return out;
  for (const codegen::ModuleProfile& m : report.modules) {
    auto a = ir::parseModuleAddress(m.address);
    auto state = a ? ir::resolvePath(*model_->loaded.sdfg, a->state) : Expected<ir::Element*>(fail(m.address, "not a module address"));
    if (!state) continue;
    const QString path = QString::fromStdString(m.module);
    out.push_back({path.section(QLatin1Char('/'), -1), path, views::moduleGroupId((*state)->id(), path), m.ms, m.timedOps});
  }
  return out;
}

std::unordered_map<ir::ElementId, double> MainWindow::measuredOverlay(Overlay overlay) const {
  std::unordered_map<ir::ElementId, double> values;
  const codegen::ProfileReport* r = profile_ ? profile_->report() : nullptr;
  if (!model_ || !r) return values;
  if (overlay == Overlay::FpgaCycles) {
    if (!r->fpga) return values;
    const ir::Sdfg& sdfg = *model_->loaded.sdfg;
    // The element a path of the prepared model lands on in the model as shown: itself, or the nearest
    // enclosing element (a loop inside an expansion counts for its library node).
    auto nearest = [&](std::string path) -> const ir::Element* {
      while (!path.empty()) {
        if (auto el = ir::resolvePath(sdfg, path)) return *el;
        const size_t slash = path.rfind('/');
        if (slash == std::string::npos) break;
        path.resize(slash);
      }
      return nullptr;
    };
    for (auto& k : r->fpga->kernels) {
      const ir::Element* state = nearest(k.statePath);
      if (state) values[state->id()] += double(k.measuredCycles > 0 ? k.measuredCycles : k.cycles) * double(k.launches);
      for (auto& l : k.loops) {
        if (!l.pipelined && !l.unrolled) continue;
        const ir::Element* at = nearest(l.path);
        if (at && at != state) values[at->id()] += double(l.cycles) * double(l.executions) * double(k.launches);
      }
    }
    return values;
  }
  for (auto& e : r->elements) {
    if (e.kind == "model") continue;
    std::optional<double> v = overlay == Overlay::MeasuredTime    ? std::optional<double>(e.timeMs.median)
                              : overlay == Overlay::AchievedFlops ? e.gflopsPerSecond
                                                                  : e.gbPerSecond;
    if (!v) continue;
    if (auto el = ir::resolvePath(*model_->loaded.sdfg, e.path)) values[(*el)->id()] = *v;
  }
  return values;
}

} // namespace dcw::gui
