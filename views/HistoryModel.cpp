#include "views/HistoryModel.h"

#include "core/edit/History.h"

#include <QFont>
#include <QGuiApplication>
#include <QPalette>

namespace dcw::views {

void HistoryModel::setHistory(const edit::History* history) {
  beginResetModel();
  history_ = history;
  endResetModel();
}

void HistoryModel::reset() {
  beginResetModel();
  endResetModel();
}

int HistoryModel::currentRow() const { return history_ ? int(history_->position()) : -1; }

int HistoryModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() || !history_) return 0;
  return int(history_->size()) + 1;
}

QVariant HistoryModel::data(const QModelIndex& index, int role) const {
  if (!history_ || !index.isValid() || index.row() < 0 || index.row() > int(history_->size())) return {};
  const int row = index.row();
  const bool current = size_t(row) == history_->position();
  const bool undone = size_t(row) > history_->position();
  switch (role) {
  case Qt::DisplayRole:
    if (row == 0) return tr("Imported model");
    return QStringLiteral("%1. %2").arg(row).arg(QString::fromStdString(history_->command(size_t(row - 1)).title()));
  case Qt::ToolTipRole:
  case ScriptLineRole:
    return row == 0 ? QString() : QString::fromStdString(history_->command(size_t(row - 1)).scriptLine());
  case Qt::FontRole: {
    QFont f;
    f.setBold(current);
    f.setItalic(undone);
    return f;
  }
  case Qt::ForegroundRole:
    if (undone) return QGuiApplication::palette().color(QPalette::Disabled, QPalette::Text);
    return {};
  case IsCurrentRole: return current;
  case IsUndoneRole: return undone;
  default: return {};
  }
}

} // namespace dcw::views
