// HistoryModel: the steps of a model's history as a list — row 0 is the model as imported, row k
// the k-th command (its title; the tooltip is its script line). The row of the current position is
// bold, undone steps are greyed. Clicking a row asks to jump there (the window does it through the
// history; this model only reads it). Call reset() after the history changed.
#pragma once

#include <QAbstractListModel>

namespace dcw::edit {
class History;
}

namespace dcw::views {

class HistoryModel : public QAbstractListModel {
  Q_OBJECT
public:
  enum Roles { ScriptLineRole = Qt::UserRole + 1, IsCurrentRole, IsUndoneRole };
  explicit HistoryModel(QObject* parent = nullptr) : QAbstractListModel(parent) {}

  void setHistory(const edit::History* history);
  void reset(); // the history changed (a command, undo, redo, jump)
  int currentRow() const;

  int rowCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;

private:
  const edit::History* history_ = nullptr;
};

} // namespace dcw::views
