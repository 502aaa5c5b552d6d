// ProfileTableModel: a measured profile (codegen/run/ProfileReport) as a sortable table — one row
// per timed element: name, kind, median time per run, its spread (min–max), calls, share of the
// whole model, achieved GFLOP/s and GB/s, and the element path. SortRole gives numbers, so a
// QSortFilterProxyModel sorts by time; PathRole lets a click select the element on the canvas.
#pragma once

#include "codegen/run/ProfileReport.h"

#include <QAbstractTableModel>

namespace dcw::views {

class ProfileTableModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { NameColumn, KindColumn, TimeColumn, SpreadColumn, CallsColumn, ShareColumn, GflopsColumn, GbsColumn,
                PathColumn, ColumnCount };
  enum Roles { SortRole = Qt::UserRole + 1, PathRole };
  explicit ProfileTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

  void setReport(const codegen::ProfileReport* report); // nullptr: empty; must outlive its use
  const codegen::ProfileReport* report() const { return report_; }
  int rowOfPath(const QString& path) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
  const codegen::ProfileReport* report_ = nullptr;
};

} // namespace dcw::views
