// tst_ProfileViews: measuring and differentiating from the dcw-gui window (offscreen) — Run ▸ Profile
// in the background fills the table (every timed element, sortable, QAbstractItemModelTester), the
// timeline (bars that map back to elements) and the roofline; clicks in them select the element on
// the canvas; measured-time overlays colour the canvas; profiles before and after a history step are
// compared; Edit ▸ Differentiate's dialog lists the weights and the intermediates with their bytes and
// builds the command, which is one undoable history step; Run ▸ Target ▸ FPGA profiles the kernels in
// C-simulation and the FPGA tab shows the estimated cycles per kernel and loop, labelled as estimates;
// the summary says when other processes held cores while the runs were timed.
#include "support/TestPaths.h"
#include "app/gui/MainWindow.h"
#include "support/GuiTestSupport.h"

#include "core/edit/History.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/serialize/JsonFormat.h"
#include "codegen/Target.h"
#include "codegen/cuda/CudaTarget.h"
#include "views/DifferentiateDialog.h"
#include "views/GraphCanvas.h"
#include "views/ProfilePanel.h"
#include "views/ProfileTableModel.h"
#include "views/RooflineView.h"
#include "views/Selection.h"
#include "views/TimelineView.h"

#include <QAbstractItemModelTester>
#include <QApplication>
#include <QListWidget>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTableView>
#include <QTableWidget>
#include <QTest>

using dcw::gui::MainWindow;
using namespace dcw;
using dcw::testsupport::openModel;

namespace {
const QString& kTiny = testsupport::kTinyResnet;
const QString kMlp = testpaths::qsource("/tests/data/autodiff/mlp/model.onnx");
} // namespace

class TestProfileViews : public QObject {
  Q_OBJECT

private slots:
  void initTestCase() {
    testsupport::useTestSettings(QStringLiteral("tst_ProfileViews"));
  }

  void profileTableTimelineRoofline() {
    MainWindow w;
    w.setShowsDialogs(false);
    QVERIFY(openModel(w, kTiny));
    QSignalSpy done(&w, &MainWindow::profileFinished);
    w.profile(3);
    QVERIFY(w.isProfiling());
    QVERIFY(QTest::qWaitFor([&] { return done.count() == 1; }, 300000));
    QVERIFY2(done.last().at(0).toBool(), qPrintable(done.last().at(1).toString()));
    auto* panel = w.profilePanel();
    const auto* report = panel->report();
    QVERIFY(report);
    QAbstractItemModelTester tester(panel->tableModel());
    // A row per timed element, then one per module group with the time of its ops: a click on it
    // selects the group.
    auto* tm = panel->tableModel();
    const int elements = int(report->elements.size());
    QVERIFY(tm->rowCount() > elements);
    int block1 = -1;
    for (int r = elements; r < tm->rowCount(); ++r) {
      QCOMPARE(tm->index(r, views::ProfileTableModel::KindColumn).data().toString(), QStringLiteral("module"));
      if (tm->index(r, 0).data().toString() == QStringLiteral("block1")) block1 = r;
    }
    QVERIFY(block1 >= 0);
    const double moduleMs = tm->index(block1, views::ProfileTableModel::TimeColumn).data(views::ProfileTableModel::SortRole).toDouble();
    QVERIFY(moduleMs > 0 && moduleMs <= report->elements.front().timeMs.median);
    double opsMs = 0; // the top-level ops of block1, timed on their own
    for (auto& e : report->elements)
      if (e.path.rfind("main/state0/block1.", 0) == 0 && e.path.find('/', 12) == std::string::npos) opsMs += e.timeMs.median;
    QVERIFY2(std::abs(opsMs - moduleMs) < 1e-6, qPrintable(QStringLiteral("%1 vs %2").arg(opsMs).arg(moduleMs)));
    QSignalSpy moduleClicked(panel, &views::ProfilePanel::moduleClicked);
    QTableView* tv = panel->tableView();
    for (int r = 0; r < tv->model()->rowCount(); ++r)
      if (tv->model()->index(r, 0).data().toString() == QStringLiteral("block1")) emit tv->clicked(tv->model()->index(r, 0));
    QCOMPARE(moduleClicked.count(), 1);
    QCOMPARE(w.selection()->current(), dcw::ir::ElementId(moduleClicked.last().at(0).toULongLong()));
    QVERIFY(w.canvas()->visualGraph()->find(w.selection()->current()) >= 0); // the group on the canvas
    QVERIFY(report->elements.size() > 20); // states, library nodes, maps
    QVERIFY(panel->summary().contains("Wall"));

    // Every library node of the model on screen was timed and is reachable by its path.
    int ops = 0;
    for (auto& e : report->elements)
      if (e.kind == "nested_sdfg" && ir::resolvePath(*w.sdfg(), e.path)) ++ops;
    QCOMPARE(ops, 23);

    // A click in the table selects the element on the canvas.
    QTableView* table = panel->tableView();
    QModelIndex first = table->model()->index(0, 0);
    QString path = first.data(views::ProfileTableModel::PathRole).toString();
    QSignalSpy clicked(panel, &views::ProfilePanel::elementClicked);
    emit table->clicked(first);
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.last().at(0).toString(), path);
    if (auto e = ir::resolvePath(*w.sdfg(), path.toStdString())) QCOMPARE(w.selection()->current(), (*e)->id());

    // Timeline bars map back to their elements.
    auto* tl = panel->timeline();
    tl->resize(1200, 400);
    QVERIFY(!report->trace.empty());
    size_t widest = 0;
    for (size_t i = 0; i < report->trace.size(); ++i)
      if (report->trace[i].durationUs > report->trace[widest].durationUs) widest = i;
    QRectF bar = tl->barRect(widest);
    QVERIFY(bar.width() > 1);
    QVERIFY(!tl->pathAt(bar.center().toPoint()).isEmpty());

    // The roofline places the elements that have a cost; a click picks the nearest one.
    auto* rf = panel->roofline();
    QVERIFY(!rf->points().empty());
    QSignalSpy picked(rf, &views::RooflineView::elementClicked);
    rf->clickNear(rf->points().front().intensity, rf->points().front().gflops);
    QCOMPARE(picked.last().at(0).toString(), rf->points().front().path);

    // Measured overlays colour the canvas.
    w.setOverlay(MainWindow::Overlay::MeasuredTime);
    QVERIFY(w.canvas()->hasOverlay());
    w.setOverlay(MainWindow::Overlay::AchievedFlops);
    QVERIFY(w.canvas()->hasOverlay());

    // Instrumenting one element: the model and that element only.
    w.setInstrumentation({"model", "main/state0/block1.conv1.Conv"});
    w.profile(2);
    QVERIFY(QTest::qWaitFor([&] { return done.count() == 2; }, 300000));
    QVERIFY2(done.last().at(0).toBool(), qPrintable(done.last().at(1).toString()));
    report = panel->report();
    QVERIFY(report->find("main/state0/block1.conv1.Conv"));
    QVERIFY(report->elements.size() <= 3);
  }

  void fpgaTargetShowsEstimates() {
    MainWindow w;
    w.setShowsDialogs(false);
    QVERIFY(openModel(w, kMlp));
    auto* panel = w.profilePanel();
    QVERIFY(panel->tabs()->indexOf(panel->fpgaTable()->parentWidget()) < 0); // no FPGA tab for a CPU profile
    QAction* fpga = w.findChild<QAction*>(QStringLiteral("actionTarget_fpga_sim"));
    QVERIFY(fpga);
    fpga->trigger();
    QCOMPARE(w.target(), std::string("fpga-sim"));
    QSignalSpy done(&w, &MainWindow::profileFinished);
    w.profile(2);
    QVERIFY(QTest::qWaitFor([&] { return done.count() == 1; }, 300000));
    QVERIFY2(done.last().at(0).toBool(), qPrintable(done.last().at(1).toString()));
    QVERIFY(panel->report() && panel->report()->fpga);
    QCOMPARE(panel->report()->target, std::string("fpga-sim"));
    QVERIFY(panel->summary().startsWith(QStringLiteral("C-simulation on this CPU")));
    QVERIFY(panel->tabs()->indexOf(panel->fpgaTable()->parentWidget()) >= 0);
    QVERIFY(panel->fpgaSummary().startsWith(QStringLiteral("Estimated, not measured, for Alveo U250")));
    QTableWidget* t = panel->fpgaTable();
    QVERIFY(t->rowCount() > 1);
    QVERIFY(t->item(0, 0)->text().startsWith(QStringLiteral("kernel ")));
    QCOMPARE(t->item(0, 1)->data(Qt::DisplayRole).toLongLong(), qlonglong(panel->report()->fpga->kernels[0].cycles));
    // A loop's row selects its map on the canvas's path.
    QSignalSpy clicked(panel, &views::ProfilePanel::elementClicked);
    emit t->cellClicked(1, 0);
    QCOMPARE(clicked.count(), 1);
    QCOMPARE(clicked.last().at(0).toString(), t->item(1, 0)->data(Qt::UserRole).toString());
    // The canvas overlay of FPGA cycles: the loops inside expansions count for their library nodes.
    QVERIFY(!w.canvas()->hasOverlay());
    w.setOverlay(MainWindow::Overlay::FpgaCycles);
    QVERIFY(w.canvas()->hasOverlay());
    w.setOverlay(MainWindow::Overlay::None);
  }

  // Run > Target offers the GPU (disabled, saying why, without the CUDA toolkit) and its simulation on
  // the CPU; a cuda-sim profile times the kernels on the GPU track and says they were simulated.
  void cudaTargetsInTheApp() {
    MainWindow w;
    w.setShowsDialogs(false);
    QVERIFY(openModel(w, kMlp));
    QAction* cuda = w.findChild<QAction*>(QStringLiteral("actionTarget_cuda"));
    QAction* sim = w.findChild<QAction*>(QStringLiteral("actionTarget_cuda_sim"));
    QVERIFY(cuda && sim);
    std::string why;
    const bool toolkit = codegen::findTarget("cuda")->available(&why);
    QCOMPARE(cuda->isEnabled(), toolkit);
    if (!toolkit) QVERIFY(cuda->text().contains(QStringLiteral("unavailable")));
    else if (!codegen::gpuPresent()) QVERIFY(cuda->text().contains(QStringLiteral("code only")));
    sim->trigger();
    QCOMPARE(w.target(), std::string("cuda-sim"));
    QSignalSpy done(&w, &MainWindow::profileFinished);
    w.profile(2);
    QVERIFY(QTest::qWaitFor([&] { return done.count() == 1; }, 300000));
    QVERIFY2(done.last().at(0).toBool(), qPrintable(done.last().at(1).toString()));
    auto* panel = w.profilePanel();
    QCOMPARE(panel->report()->target, std::string("cuda-sim"));
    QVERIFY(panel->summary().startsWith(QStringLiteral("CUDA kernels simulated on this CPU")));
    int gpuEvents = 0;
    for (auto& e : panel->report()->trace) gpuEvents += e.thread == (1u << 16) ? 1 : 0;
    QVERIFY(gpuEvents > 0);
    // The GPU memory DCW's allocations took (the MLP's device copies, at least its weights).
    QVERIFY(panel->report()->memory.gpuPeakBytes > 0);
    QVERIFY2(panel->summary().contains(QStringLiteral("GPU memory peak")), qPrintable(panel->summary()));
    // Auto-optimize for the chosen GPU target: one undoable step whose script moves the model to the GPU.
    QVERIFY(w.autoOptimize());
    QVERIFY2(QString::fromStdString(w.history()->command(w.history()->position() - 1).scriptLine()).contains("apply GpuTransform"),
             "auto-optimize for cuda-sim did not move the model onto the GPU");
  }

  // Kernels measured in RTL co-simulation show their cycles beside the estimate; the others say why not.
  void fpgaTabShowsRtlMeasuredCycles() {
    auto r = std::make_shared<codegen::ProfileReport>();
    r->target = "fpga-sim";
    codegen::FpgaEstimate e;
    e.device = &codegen::defaultFpgaDevice();
    codegen::KernelEstimate measured, refused;
    measured.statePath = "main/state0";
    measured.cycles = 784;
    measured.measuredCycles = 785;
    refused.statePath = "main/state1";
    refused.cycles = 90;
    refused.unmeasuredWhy = "the floating-point operator '/' (RTL has no floating-point divider core; C-simulation runs this kernel)";
    e.kernels = {measured, refused};
    e.measurement = "RTL co-simulation (Verilator 5.006): 1 of 2 kernels measured, outputs equal to C-simulation on all 8 elements";
    r->fpga = e;
    // Through the report's JSON, as a saved profile reopens.
    auto back = codegen::parseReport(codegen::reportJson(*r), "report");
    QVERIFY(back);
    QCOMPARE(back->fpga->kernels[0].measuredCycles, int64_t(785));
    QCOMPARE(back->fpga->kernels[1].unmeasuredWhy, refused.unmeasuredWhy);
    QCOMPARE(back->fpga->measurement, e.measurement);
    views::ProfilePanel panel;
    panel.setReport(std::make_shared<codegen::ProfileReport>(*back));
    const int tab = panel.tabs()->indexOf(panel.fpgaTable()->parentWidget());
    QVERIFY(tab >= 0);
    QCOMPARE(panel.tabs()->tabText(tab), QStringLiteral("FPGA (estimated; RTL-measured)"));
    QVERIFY(panel.fpgaSummary().contains(QStringLiteral("Measured: RTL co-simulation (Verilator 5.006): 1 of 2 kernels measured")));
    QTableWidget* t = panel.fpgaTable();
    QCOMPARE(t->horizontalHeaderItem(8)->text(), QStringLiteral("Measured cycles (RTL simulation)"));
    QCOMPARE(t->item(0, 8)->text(), QStringLiteral("785 (estimate -0.1%)"));
    QCOMPARE(t->item(1, 8)->text(), QString::fromStdString(refused.unmeasuredWhy));
  }

  // Runs timed while other processes held cores say so in the summary (a quarter core and more).
  void summarySaysWhenOtherProcessesHeldCores() {
    for (std::optional<double> busy : {std::optional<double>(1.0), std::optional<double>(0.1), std::optional<double>()}) {
      auto r = std::make_shared<codegen::ProfileReport>();
      r->otherBusyCores = busy;
      views::ProfilePanel panel;
      panel.setReport(r);
      const bool said = panel.summary().contains(QStringLiteral("Other processes kept 1.0 cores busy meanwhile: a shared machine's times"));
      QVERIFY2(said == (busy && *busy >= 0.25), qPrintable(panel.summary()));
    }
  }

  // A Winograd convolution opted in on a node (the inspector's choice, a `set` step): the profile shows
  // its error against the direct convolution, measured by the program on its first run, under the
  // summary (the program's stderr, from its worker process), and the report keeps it.
  void winogradErrorIsShownWithTheProfile() {
    MainWindow w;
    w.setShowsDialogs(false);
    QVERIFY(openModel(w, testpaths::qsource("/tests/data/winograd/winograd_block.onnx")));
    QVERIFY(w.profilePanel()->programMessages().isEmpty());
    QVERIFY(w.executeCommand("set main/state0/Conv_0 implementation=onednn_winograd"));
    QSignalSpy done(&w, &MainWindow::profileFinished);
    w.profile(2);
    QVERIFY(QTest::qWaitFor([&] { return done.count() == 1; }, 300000));
    QVERIFY2(done.last().at(0).toBool(), qPrintable(done.last().at(1).toString()));
    const QString said = w.profilePanel()->programMessages();
    QVERIFY2(said.startsWith(QStringLiteral("The program said:\ndcw: main/state0/Conv_0: Winograd convolution against the direct one "
                                            "on the first run's inputs: max |difference| ")),
             qPrintable(said));
    QVERIFY2(said.contains(QStringLiteral("(relative ")) && said.contains(QStringLiteral("; kept ")), qPrintable(said));
    const auto* report = w.profilePanel()->report();
    QVERIFY(report);
    QCOMPARE(report->messages.size(), size_t(1));
    auto back = codegen::parseReport(codegen::reportJson(*report), "report");
    QVERIFY(back);
    QCOMPARE(back->messages, report->messages);
    // Without the opt-in the program says nothing, and the panel shows no message box.
    QVERIFY(w.executeCommand("set main/state0/Conv_0 implementation=onednn"));
    w.profile(2);
    QVERIFY(QTest::qWaitFor([&] { return done.count() == 2; }, 300000));
    QVERIFY2(done.last().at(0).toBool(), qPrintable(done.last().at(1).toString()));
    QVERIFY(w.profilePanel()->programMessages().isEmpty());
  }

  void compareBeforeAndAfterAStep() {
    MainWindow w;
    w.setShowsDialogs(false);
    QVERIFY(openModel(w, kTiny));
    QVERIFY(w.executeCommand("apply ExpandLibraryNode node=main/state0/block1.conv1.Conv"));
    QVERIFY(w.executeCommand("apply MapTiling entry=main/state0/block1.conv1.Conv/compute1/conv_map tile_sizes=4"));
    QSignalSpy done(&w, &MainWindow::comparisonFinished);
    w.compareStepProfiles(2, 3);
    QVERIFY(QTest::qWaitFor([&] { return done.count() == 1; }, 300000));
    QVERIFY2(done.last().at(0).toBool(), qPrintable(done.last().at(1).toString()));
    QString text = w.profilePanel()->comparisonText();
    QVERIFY2(text.contains("Step 2") && text.contains("before (step 1)") && text.contains("after (step 2)"), qPrintable(text));
    QVERIFY(text.contains("main/state0/block1.conv1.Conv"));
  }

  void differentiateFromTheWindow() {
    MainWindow w;
    w.setShowsDialogs(false);
    QVERIFY(openModel(w, kMlp));
    QCOMPARE(QString::fromStdString(w.selectedOutput()), QString("loss"));
    views::DifferentiateDialog dialog(*w.sdfg(), "loss");
    QVERIFY(dialog.wrtList()->count() >= 4); // x and the four weight arrays
    QVERIFY(dialog.keepTable()->rowCount() >= 1);
    QString cmd = dialog.command();
    QVERIFY2(cmd.startsWith("differentiate of=loss wrt=") && cmd.contains("fc1.weight"), qPrintable(cmd));
    const std::string before = serialize::toJson(*w.sdfg());
    QVERIFY(w.executeCommand(cmd));
    QCOMPARE(w.history()->size(), size_t(1));
    QVERIFY(std::find(w.sdfg()->outputs.begin(), w.sdfg()->outputs.end(), "fc1.weight_grad") != w.sdfg()->outputs.end());
    w.undo();
    QCOMPARE(serialize::toJson(*w.sdfg()), before);
    // Nothing to differentiate: an integer input is refused with its name.
    QVERIFY(!w.executeCommand("differentiate of=loss wrt=labels"));
    QCOMPARE(w.history()->position(), size_t(0));
  }
};

QTEST_MAIN(TestProfileViews)
#include "tst_ProfileViews.moc"
