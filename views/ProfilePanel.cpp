#include "views/ProfilePanel.h"

#include "core/support/MachineLoad.h"
#include "views/ProfileTableModel.h"
#include "views/RooflineView.h"
#include "views/TimelineView.h"

#include <QFontDatabase>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QTableWidget>
#include <QVBoxLayout>

namespace dcw::views {

ProfilePanel::ProfilePanel(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  summary_ = new QLabel(tr("No profile yet: Run ▸ Profile measures the model on random inputs"), this);
  summary_->setObjectName(QStringLiteral("profileSummary"));
  summary_->setWordWrap(true);
  summary_->setContentsMargins(6, 4, 6, 4);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  tabs_ = new QTabWidget(this);
  table_ = new ProfileTableModel(this);
  sorted_ = new QSortFilterProxyModel(this);
  sorted_->setSourceModel(table_);
  sorted_->setSortRole(ProfileTableModel::SortRole);
  tableView_ = new QTableView;
  tableView_->setObjectName(QStringLiteral("profileTable"));
  tableView_->setModel(sorted_);
  tableView_->setSortingEnabled(true);
  tableView_->sortByColumn(ProfileTableModel::TimeColumn, Qt::DescendingOrder);
  tableView_->setSelectionBehavior(QAbstractItemView::SelectRows);
  tableView_->setSelectionMode(QAbstractItemView::SingleSelection);
  tableView_->verticalHeader()->hide();
  tableView_->horizontalHeader()->setStretchLastSection(true);
  connect(tableView_, &QTableView::clicked, this, [this](const QModelIndex& index) {
    const QVariant group = index.data(ProfileTableModel::GroupIdRole);
    if (group.isValid()) emit moduleClicked(group.toULongLong());
    else emit elementClicked(index.data(ProfileTableModel::PathRole).toString());
  });
  timeline_ = new TimelineView;
  timeline_->setObjectName(QStringLiteral("profileTimeline"));
  auto* timelineScroll = new QScrollArea;
  timelineScroll->setWidget(timeline_);
  timelineScroll->setWidgetResizable(true);
  connect(timeline_, &TimelineView::elementClicked, this, &ProfilePanel::elementClicked);
  roofline_ = new RooflineView;
  roofline_->setObjectName(QStringLiteral("profileRoofline"));
  connect(roofline_, &RooflineView::elementClicked, this, &ProfilePanel::elementClicked);
  compare_ = new QPlainTextEdit;
  compare_->setObjectName(QStringLiteral("profileComparison"));
  compare_->setReadOnly(true);
  compare_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  compare_->setPlaceholderText(tr("Edit ▸ Compare Profiles of the Selected Step profiles the model before and after a history step"));
  tabs_->addTab(tableView_, tr("Table"));
  tabs_->addTab(timelineScroll, tr("Timeline"));
  tabs_->addTab(roofline_, tr("Roofline"));
  tabs_->addTab(compare_, tr("Compare"));
  fpga_ = new QWidget;
  fpga_->setObjectName(QStringLiteral("profileFpga"));
  auto* fl = new QVBoxLayout(fpga_);
  fl->setContentsMargins(0, 0, 0, 0);
  fpgaSummary_ = new QLabel(fpga_);
  fpgaSummary_->setWordWrap(true);
  fpgaSummary_->setContentsMargins(6, 4, 6, 4);
  fpgaSummary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  fpgaTable_ = new QTableWidget(fpga_);
  fpgaTable_->setObjectName(QStringLiteral("profileFpgaTable"));
  fpgaTable_->setColumnCount(9);
  fpgaTable_->setHorizontalHeaderLabels({tr("Kernel / loop"), tr("Est. cycles"), tr("Runs"), tr("Trips"), tr("Depth"), tr("II"),
                                         tr("Target II"), tr("What holds II back"), tr("Measured cycles (RTL simulation)")});
  fpgaTable_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  fpgaTable_->setSelectionBehavior(QAbstractItemView::SelectRows);
  fpgaTable_->verticalHeader()->hide();
  fpgaTable_->horizontalHeader()->setStretchLastSection(true);
  connect(fpgaTable_, &QTableWidget::cellClicked, this, [this](int row, int) {
    if (auto* item = fpgaTable_->item(row, 0)) emit elementClicked(item->data(Qt::UserRole).toString());
  });
  fl->addWidget(fpgaSummary_);
  fl->addWidget(fpgaTable_, 1);
  // What the program itself said during the runs (its stderr, e.g. an opted-in Winograd convolution's
  // measured error): shown under the summary, hidden when it said nothing.
  messages_ = new QLabel(this);
  messages_->setObjectName(QStringLiteral("profileMessages"));
  messages_->setWordWrap(true);
  messages_->setContentsMargins(6, 0, 6, 4);
  messages_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  messages_->setTextFormat(Qt::PlainText);
  messages_->hide();
  layout->addWidget(summary_);
  layout->addWidget(messages_);
  layout->addWidget(tabs_, 1);
}

ProfilePanel::~ProfilePanel() {
  // Views point into the report: detach them before it goes.
  table_->setReport(nullptr);
  timeline_->setReport(nullptr);
}

void ProfilePanel::setReport(std::shared_ptr<const codegen::ProfileReport> report) {
  table_->setReport(nullptr);
  timeline_->setReport(nullptr);
  roofline_->setReport(nullptr);
  report_ = std::move(report);
  table_->setReport(report_.get());
  timeline_->setReport(report_.get());
  roofline_->setReport(report_.get());
  tableView_->resizeColumnsToContents();
  showFpga(report_ && report_->fpga ? &*report_->fpga : nullptr);
  showMessages(report_ ? report_->messages : std::vector<std::string>{});
  if (!report_) return;
  const auto& r = *report_;
  QString counters = r.counters.kind == "hardware"
                         ? tr("hardware counters: %1").arg(QString::fromStdString([&] {
                             std::string s;
                             for (auto& n : r.counters.names) s += (s.empty() ? "" : ", ") + n;
                             return s;
                           }()))
                         : QString::fromStdString(r.counters.unavailable);
  // How the float32 roof was measured: "oneDNN sgemm" or "FMA loop" (the method's words before ':').
  const QString how = r.peaks ? QString::fromStdString(r.peaks->float32Method.substr(0, r.peaks->float32Method.find(':'))) : QString();
  QString peaks = r.peaks ? tr("peaks %1 GFLOP/s (float32%3), %2 GB/s")
                                .arg(r.peaks->gflopsFloat32, 0, 'f', 1)
                                .arg(r.peaks->bandwidthGBs, 0, 'f', 1)
                                .arg(how.isEmpty() ? QString() : tr(", %1").arg(how))
                          : tr("machine peaks not measured");
  // An FPGA target's times are its C-simulation's, on this CPU: said so, the board's time is the FPGA tab's.
  // cuda-sim's kernels ran thread by thread on this CPU: their times are no GPU's.
  const QString simulated = r.target.rfind("fpga", 0) == 0
                                ? tr("C-simulation on this CPU (FPGA cycles are estimated in the FPGA tab) · ")
                            : r.target == "cuda-sim" ? tr("CUDA kernels simulated on this CPU, thread by thread (times are not a GPU's) · ")
                                                     : QString();
  const QString gpuMemory =
      r.memory.gpuPeakBytes >= 0 ? tr(" · GPU memory peak %1 MiB (DCW's allocations)").arg(double(r.memory.gpuPeakBytes) / (1 << 20), 0, 'f', 1)
                                 : QString();
  const QString shared = r.otherBusyCores && *r.otherBusyCores >= MachineLoad::kNoticeable
                             ? tr("Other processes kept %1 cores busy meanwhile: a shared machine's times · ").arg(*r.otherBusyCores, 0, 'f', 1)
                             : QString();
  summary_->setText(simulated + shared + tr("Wall %1 ms median (%2 – %3) over %4 runs, %5 threads · peak memory +%6 MiB%10 · %7 elements timed · %8 · %9")
                        .arg(r.wallMs.median, 0, 'f', 3)
                        .arg(r.wallMs.min, 0, 'f', 3)
                        .arg(r.wallMs.max, 0, 'f', 3)
                        .arg(r.repeat)
                        .arg(r.threads)
                        .arg(double(r.memory.peakDeltaBytes) / (1 << 20), 0, 'f', 1)
                        .arg(r.elements.size())
                        .arg(peaks)
                        .arg(counters)
                        .arg(gpuMemory));
}

void ProfilePanel::setComparison(const QString& title, const codegen::Comparison& c, const QString& nameA, const QString& nameB) {
  compare_->setPlainText(title + "\n\n" + QString::fromStdString(codegen::formatComparison(c, nameA.toStdString(), nameB.toStdString(), 200)));
  tabs_->setCurrentWidget(compare_);
}

void ProfilePanel::setMessage(const QString& message) { summary_->setText(message); }

void ProfilePanel::showMessages(const std::vector<std::string>& lines) {
  QString text;
  const size_t shown = std::min<size_t>(lines.size(), 40);
  for (size_t k = 0; k < shown; ++k) text += (k ? "\n" : "") + QString::fromStdString(lines[k]);
  if (lines.size() > shown) text += tr("\n… and %1 more lines (the report's \"messages\")").arg(lines.size() - shown);
  messages_->setText(lines.empty() ? QString() : tr("The program said:\n%1").arg(text));
  messages_->setVisible(!lines.empty());
}

QString ProfilePanel::programMessages() const { return messages_->isHidden() ? QString() : messages_->text(); }

void ProfilePanel::highlightPath(const QString& path) {
  timeline_->setHighlightedPath(path);
  int row = table_->rowOfPath(path);
  if (row < 0) {
    tableView_->clearSelection();
    return;
  }
  QModelIndex idx = sorted_->mapFromSource(table_->index(row, 0));
  tableView_->selectRow(idx.row());
  tableView_->scrollTo(idx);
}

// The FPGA tab, present only for a profile of an FPGA target.
void ProfilePanel::showFpga(const codegen::FpgaEstimate* e) {
  const int at = tabs_->indexOf(fpga_);
  if (!e) {
    if (at >= 0) tabs_->removeTab(at);
    fpgaTable_->setRowCount(0);
    fpgaSummary_->clear();
    return;
  }
  if (at < 0) tabs_->addTab(fpga_, tr("FPGA (estimated)"));
  tabs_->setTabText(tabs_->indexOf(fpga_), e->measurement.empty() ? tr("FPGA (estimated)") : tr("FPGA (estimated; RTL-measured)"));
  const codegen::FpgaDevice* d = e->device;
  auto share = [&](int64_t used, int64_t avail) {
    return tr("%1 of %2 (%3%)").arg(used).arg(avail).arg(avail > 0 ? 100.0 * double(used) / double(avail) : 0.0, 0, 'f', 1);
  };
  QString text = tr("Estimated, not measured, for %1 at %2 MHz: %3 cycles = %4 ms per run. Resources: DSP %5, LUT %6, BRAM18K %7, URAM %8.")
                     .arg(d ? QString::fromStdString(d->part) : tr("an unknown board"))
                     .arg(d ? d->clockMHz : 0.0, 0, 'f', 0)
                     .arg(e->cycles)
                     .arg(e->seconds * 1e3, 0, 'f', 3)
                     .arg(d ? share(e->resources.dsp, d->available.dsp) : QString::number(e->resources.dsp))
                     .arg(d ? share(e->resources.lut, d->available.lut) : QString::number(e->resources.lut))
                     .arg(d ? share(e->resources.bram18k, d->available.bram18k) : QString::number(e->resources.bram18k))
                     .arg(d ? share(e->resources.uram, d->available.uram) : QString::number(e->resources.uram));
  for (auto& n : e->notes) text += QStringLiteral("\n") + tr("Note: %1").arg(QString::fromStdString(n));
  if (!e->measurement.empty()) text += QStringLiteral("\n") + tr("Measured: %1").arg(QString::fromStdString(e->measurement));
  for (auto& s : e->streams)
    text += QStringLiteral("\n") + tr("Stream %1 in C-simulation (one run): depth %2, %3 writes, largest occupancy %4 of %2; "
                                       "%5 writes waited for room, %6 reads waited for data")
                                        .arg(QString::fromStdString(s.name))
                                        .arg(s.depth)
                                        .arg(s.writes)
                                        .arg(s.maxOccupancy)
                                        .arg(s.fullWaits)
                                        .arg(s.emptyWaits);
  fpgaSummary_->setText(text);
  fpgaTable_->setSortingEnabled(false);
  fpgaTable_->setRowCount(0);
  auto add = [&](const QString& label, const std::string& path, QVector<QVariant> cells) {
    const int row = fpgaTable_->rowCount();
    fpgaTable_->insertRow(row);
    auto* first = new QTableWidgetItem(label);
    first->setData(Qt::UserRole, QString::fromStdString(path));
    first->setToolTip(QString::fromStdString(path));
    fpgaTable_->setItem(row, 0, first);
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem;
      item->setData(Qt::DisplayRole, cells[c]);
      fpgaTable_->setItem(row, c + 1, item);
    }
  };
  for (auto& k : e->kernels) {
    QVariant measured = k.measuredCycles > 0 ? QVariant(tr("%1 (estimate %2%3%)")
                                                            .arg(k.measuredCycles)
                                                            .arg(k.cycles >= k.measuredCycles ? QStringLiteral("+") : QString())
                                                            .arg(100.0 * double(k.cycles - k.measuredCycles) / double(k.measuredCycles), 0, 'f', 1))
                                           : QVariant(QString::fromStdString(k.unmeasuredWhy));
    add(tr("kernel %1").arg(QString::fromStdString(k.statePath)), k.statePath,
        {QVariant::fromValue<qlonglong>(k.cycles), QVariant::fromValue<qlonglong>(k.launches), QVariant(), QVariant(), QVariant(), QVariant(),
         QVariant(), measured});
    for (auto& l : k.loops) {
      if (!l.pipelined && !l.unrolled) continue;
      add(QStringLiteral("    ") + QString::fromStdString(l.path), l.path,
          {QVariant::fromValue<qlonglong>(l.cycles), QVariant::fromValue<qlonglong>(l.executions), QVariant::fromValue<qlonglong>(l.trips),
           QVariant::fromValue<qlonglong>(l.depth), l.unrolled ? QVariant(tr("unrolled")) : QVariant::fromValue<qlonglong>(l.ii), 1,
           QString::fromStdString(l.iiReason)});
    }
  }
  fpgaTable_->resizeColumnsToContents();
}

QString ProfilePanel::fpgaSummary() const { return fpgaSummary_->text(); }

QString ProfilePanel::summary() const { return summary_->text(); }
QString ProfilePanel::comparisonText() const { return compare_->toPlainText(); }

} // namespace dcw::views
