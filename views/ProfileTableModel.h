// ProfileTableModel: a measured profile (codegen/run/ProfileReport) as a sortable table — one row
// per timed element: name, kind, median time per run, its spread (min–max), calls, share of the
// whole model, achieved GFLOP/s and GB/s, and the element path — then one row per module group of the
// model (ModuleGroups: `encoder/layers.3`) with the time of the ops in it. SortRole gives numbers, so a
// QSortFilterProxyModel sorts by time; PathRole (elements) and GroupIdRole (modules) let a click select
// it on the canvas.
#pragma once

#include "codegen/run/ProfileReport.h"

#include "core/ir/Element.h"

#include <QAbstractTableModel>

#include <vector>

namespace dcw::views {

class ProfileTableModel : public QAbstractTableModel {
  Q_OBJECT
public:
  enum Column { NameColumn, KindColumn, TimeColumn, SpreadColumn, CallsColumn, ShareColumn, GflopsColumn, GbsColumn,
                PathColumn, ColumnCount };
  enum Roles { SortRole = Qt::UserRole + 1, PathRole, GroupIdRole };
  struct ModuleTime {
    QString name, path;       // "layers.3", "encoder/layers.3"
    ir::ElementId id = ir::kNoId;
    double ms = 0;            // the median times of the timed top-level ops in it, summed
    int timed = 0;            // how many
  };
  explicit ProfileTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}

  void setReport(const codegen::ProfileReport* report); // nullptr: empty; must outlive its use
  void setModules(std::vector<ModuleTime> modules);      // rows after the elements
  const codegen::ProfileReport* report() const { return report_; }
  int rowOfPath(const QString& path) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
  const codegen::ProfileReport* report_ = nullptr;
  std::vector<ModuleTime> modules_;
  QVariant moduleData(const ModuleTime& m, int column, int role, double total) const;
  int elementRows() const { return report_ ? int(report_->elements.size()) : 0; }
};

} // namespace dcw::views
