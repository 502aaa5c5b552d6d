// ProfilePanel: the measured profile of the model in three views that share one selection — a
// sortable table of elements by time, the timeline of one run, and the roofline — plus a summary
// (wall time, peak memory, counters or why there are none) and a comparison of two profiles (before
// and after a history step). A profile of an FPGA target adds the FPGA tab: per kernel and loop the
// estimated cycles, trips, depth and achieved II against the target (and what holds it back), and the
// resources against the board — labelled as estimates, never mixed with the C-simulation's times.
// Clicking an element in any of them emits elementClicked(path).
#pragma once

#include "codegen/run/ProfileReport.h"

#include <QWidget>

#include <memory>

class QLabel;
class QSortFilterProxyModel;
class QTabWidget;
class QTableView;
class QTableWidget;
class QPlainTextEdit;

namespace dcw::views {

class ProfileTableModel;
class RooflineView;
class TimelineView;

class ProfilePanel : public QWidget {
  Q_OBJECT
public:
  explicit ProfilePanel(QWidget* parent = nullptr);
  ~ProfilePanel() override;

  void setReport(std::shared_ptr<const codegen::ProfileReport> report);
  const codegen::ProfileReport* report() const { return report_.get(); }
  void setComparison(const QString& title, const codegen::Comparison& comparison, const QString& nameA, const QString& nameB);
  void setMessage(const QString& message);
  // The program's own messages as shown (empty when hidden).
  QString programMessages() const;
  void highlightPath(const QString& path); // follow the selection

  ProfileTableModel* tableModel() const { return table_; }
  QTableView* tableView() const { return tableView_; }
  TimelineView* timeline() const { return timeline_; }
  RooflineView* roofline() const { return roofline_; }
  QTabWidget* tabs() const { return tabs_; }
  QTableWidget* fpgaTable() const { return fpgaTable_; }
  QString fpgaSummary() const;
  QString summary() const;
  QString comparisonText() const;

signals:
  void elementClicked(const QString& path);
  void moduleClicked(qulonglong groupId); // a module group's row in the table

private:
  std::shared_ptr<const codegen::ProfileReport> report_;
  QLabel* summary_ = nullptr;
  QLabel* messages_ = nullptr; // what the program wrote to stderr (ProfileReport::messages)
  QTabWidget* tabs_ = nullptr;
  ProfileTableModel* table_ = nullptr;
  QSortFilterProxyModel* sorted_ = nullptr;
  QTableView* tableView_ = nullptr;
  TimelineView* timeline_ = nullptr;
  RooflineView* roofline_ = nullptr;
  QPlainTextEdit* compare_ = nullptr;
  QWidget* fpga_ = nullptr;
  QLabel* fpgaSummary_ = nullptr;
  QTableWidget* fpgaTable_ = nullptr;
  void showFpga(const codegen::FpgaEstimate* e);
  void showMessages(const std::vector<std::string>& lines);
};

} // namespace dcw::views
