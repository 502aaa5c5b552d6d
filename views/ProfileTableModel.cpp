#include "views/ProfileTableModel.h"

namespace dcw::views {

void ProfileTableModel::setReport(const codegen::ProfileReport* report) {
  beginResetModel();
  report_ = report;
  modules_.clear();
  endResetModel();
}

void ProfileTableModel::setModules(std::vector<ModuleTime> modules) {
  beginResetModel();
  modules_ = report_ ? std::move(modules) : std::vector<ModuleTime>();
  endResetModel();
}

int ProfileTableModel::rowOfPath(const QString& path) const {
  if (!report_) return -1;
  const std::string p = path.toStdString();
  for (size_t i = 0; i < report_->elements.size(); ++i)
    if (report_->elements[i].path == p) return int(i);
  return -1;
}

int ProfileTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !report_ ? 0 : elementRows() + int(modules_.size());
}

int ProfileTableModel::columnCount(const QModelIndex& parent) const { return parent.isValid() ? 0 : ColumnCount; }

QVariant ProfileTableModel::data(const QModelIndex& index, int role) const {
  if (!report_ || !index.isValid() || index.row() >= rowCount()) return {};
  const double total = report_->elements.empty() ? 0 : report_->elements.front().timeMs.median;
  if (index.row() >= elementRows()) return moduleData(modules_[size_t(index.row() - elementRows())], index.column(), role, total);
  const auto& e = report_->elements[size_t(index.row())];
  if (role == PathRole) return QString::fromStdString(e.path);
  if (role == Qt::ToolTipRole) return QString::fromStdString(e.path);
  if (role == Qt::TextAlignmentRole && index.column() >= TimeColumn && index.column() <= GbsColumn)
    return int(Qt::AlignRight | Qt::AlignVCenter);
  const bool sort = role == SortRole;
  if (role != Qt::DisplayRole && !sort) return {};
  auto opt = [&](const std::optional<double>& v, int prec) -> QVariant {
    if (!v) return sort ? QVariant(-1.0) : QVariant(QStringLiteral("—"));
    return sort ? QVariant(*v) : QVariant(QString::number(*v, 'f', prec));
  };
  switch (index.column()) {
  case NameColumn: return QString::fromStdString(e.label.empty() ? e.path : e.label);
  case KindColumn: return QString::fromStdString(e.kind) + (e.masterOnly ? QStringLiteral(" (thread 0)") : QString());
  case TimeColumn: return sort ? QVariant(e.timeMs.median) : QVariant(QString::number(e.timeMs.median, 'f', 3));
  case SpreadColumn:
    return sort ? QVariant(e.timeMs.max - e.timeMs.min)
                : QVariant(QStringLiteral("%1 – %2").arg(e.timeMs.min, 0, 'f', 3).arg(e.timeMs.max, 0, 'f', 3));
  case CallsColumn: return sort ? QVariant(e.callsPerRun) : QVariant(QString::number(e.callsPerRun, 'g', 6));
  case ShareColumn: {
    double share = total > 0 ? 100.0 * e.timeMs.median / total : 0;
    return sort ? QVariant(share) : QVariant(QString::number(share, 'f', 1) + QStringLiteral(" %"));
  }
  case GflopsColumn: return opt(e.gflopsPerSecond, 2);
  case GbsColumn: return opt(e.gbPerSecond, 2);
  case PathColumn: return QString::fromStdString(e.path);
  default: return {};
  }
}

QVariant ProfileTableModel::moduleData(const ModuleTime& m, int column, int role, double total) const {
  if (role == GroupIdRole) return QVariant::fromValue(qulonglong(m.id));
  if (role == PathRole) return QString();
  if (role == Qt::ToolTipRole) return tr("%1: %2 timed ops").arg(m.path).arg(m.timed);
  if (role == Qt::TextAlignmentRole && column >= TimeColumn && column <= GbsColumn) return int(Qt::AlignRight | Qt::AlignVCenter);
  const bool sort = role == SortRole;
  if (role != Qt::DisplayRole && !sort) return {};
  const QVariant none = sort ? QVariant(-1.0) : QVariant(QStringLiteral("—"));
  switch (column) {
  case NameColumn: return m.name;
  case KindColumn: return QStringLiteral("module");
  case TimeColumn: return sort ? QVariant(m.ms) : QVariant(QString::number(m.ms, 'f', 3));
  case ShareColumn: {
    const double share = total > 0 ? 100.0 * m.ms / total : 0;
    return sort ? QVariant(share) : QVariant(QString::number(share, 'f', 1) + QStringLiteral(" %"));
  }
  case PathColumn: return m.path;
  default: return none;
  }
}

QVariant ProfileTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
  case NameColumn: return tr("Element");
  case KindColumn: return tr("Kind");
  case TimeColumn: return tr("Time (ms)");
  case SpreadColumn: return tr("Min – max (ms)");
  case CallsColumn: return tr("Calls");
  case ShareColumn: return tr("Share");
  case GflopsColumn: return tr("GFLOP/s");
  case GbsColumn: return tr("GB/s");
  case PathColumn: return tr("Path");
  default: return {};
  }
}

} // namespace dcw::views
