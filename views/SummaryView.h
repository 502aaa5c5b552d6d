// SummaryView: the first facts about a model at a glance — operations by type (a sortable table),
// node/state counts, parameter count and bytes, symbols, inputs and outputs with their types, graph
// depth and nesting, and the source model's metadata. It shows a value (analysis::ModelSummary,
// computed by core/analysis) and holds no pointer into the SDFG, so it never outlives its data.
#pragma once

#include <QWidget>

class QLabel;
class QTreeWidget;

namespace dcw::analysis {
struct ModelSummary;
}

namespace dcw::views {

class SummaryView : public QWidget {
  Q_OBJECT
public:
  explicit SummaryView(QWidget* parent = nullptr);

  void setSummary(const analysis::ModelSummary& summary);
  void clear(); // shows "no model"

  // The parts, for tests and for the main window's own wiring.
  QTreeWidget* opsTree() const { return ops_; }
  QTreeWidget* ioTree() const { return io_; }
  QLabel* factsLabel() const { return facts_; }

private:
  QLabel* title_ = nullptr;
  QLabel* facts_ = nullptr;
  QTreeWidget* ops_ = nullptr;
  QTreeWidget* io_ = nullptr;
};

} // namespace dcw::views
