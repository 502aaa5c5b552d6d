#include "views/ProfilePanel.h"

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
    emit elementClicked(index.data(ProfileTableModel::PathRole).toString());
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
  layout->addWidget(summary_);
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
  summary_->setText(tr("Wall %1 ms median (%2 – %3) over %4 runs, %5 threads · peak memory +%6 MiB · %7 elements timed · %8 · %9")
                        .arg(r.wallMs.median, 0, 'f', 3)
                        .arg(r.wallMs.min, 0, 'f', 3)
                        .arg(r.wallMs.max, 0, 'f', 3)
                        .arg(r.repeat)
                        .arg(r.threads)
                        .arg(double(r.memory.peakDeltaBytes) / (1 << 20), 0, 'f', 1)
                        .arg(r.elements.size())
                        .arg(peaks)
                        .arg(counters));
}

void ProfilePanel::setComparison(const QString& title, const codegen::Comparison& c, const QString& nameA, const QString& nameB) {
  compare_->setPlainText(title + "\n\n" + QString::fromStdString(codegen::formatComparison(c, nameA.toStdString(), nameB.toStdString(), 200)));
  tabs_->setCurrentWidget(compare_);
}

void ProfilePanel::setMessage(const QString& message) { summary_->setText(message); }

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

QString ProfilePanel::summary() const { return summary_->text(); }
QString ProfilePanel::comparisonText() const { return compare_->toPlainText(); }

} // namespace dcw::views
