// TransformationsPanel: what can be done to the current selection. Lists the registered
// transformations' matches touching the selection (transforms/Matcher.h): applicable ones first,
// each with its description; the others greyed with their "why not" (a failed precondition, or the
// pattern it would need). Hovering or choosing a match previews it (previewRequested: the elements it
// would touch, highlighted on the canvas, and what it will do); its options are editable before
// applying. With nothing selected it lists the whole model's applicable matches grouped by kind, each
// group with its count; with a module group selected, first what applies to all of its ops at once
// (`apply ExpandLibraryNode node=main/state0/module:block1`, transforms/ModuleScope.h), then each place. Apply emits the command as a script line (applyRequested): the window turns
// that intent into a command through the history — this panel never edits the model.
#pragma once

#include "core/ir/Element.h"

#include <QList>
#include <QWidget>

#include <string>
#include <vector>

class QFormLayout;
class QLabel;
class QPushButton;
class QTreeWidget;
class QTreeWidgetItem;

namespace dcw::ir {
class Sdfg;
}
namespace dcw::transforms {
struct Match;
}

namespace dcw::views {

class TransformationsPanel : public QWidget {
  Q_OBJECT
public:
  explicit TransformationsPanel(QWidget* parent = nullptr);
  ~TransformationsPanel() override;

  // Lists the matches touching `anchors` (nothing selected: the whole model, applicable only).
  void setContext(const ir::Sdfg* sdfg, std::vector<ir::ElementId> anchors);
  // A module group selected (`address`: main/state0/module:block1): first a row per transformation that
  // applies to its ops, acting on every op of the group in one step, then each place.
  void setModuleContext(const ir::Sdfg* sdfg, const QString& address);
  void refresh();

  QTreeWidget* list() const { return list_; }
  int applicableCount() const { return applicable_; }
  double lastListMs() const { return lastMs_; }
  // Selects the row of the first candidate named `transformation` (tests, keyboard users).
  bool choose(const QString& transformation);
  // Sets an option of the chosen candidate in the editor.
  bool setOption(const QString& name, const QString& value);
  // The script line of the chosen candidate with the edited options ("" when not applicable).
  QString currentCommand() const;
  void applyCurrent();
  // What the chosen candidate would change, as the owner measured it by a dry run ("" clears it).
  void setChangeSummary(const QString& summary);
  QString changeSummary() const;

signals:
  void applyRequested(const QString& scriptLine);
  void previewRequested(const QList<qulonglong>& elements); // empty: preview off
  void dryRunRequested(const QString& scriptLine);          // what would this command change?

private:
  struct Row;
  void showDetails(QTreeWidgetItem* item);
  void previewItem(QTreeWidgetItem* item);
  const Row* rowOf(QTreeWidgetItem* item) const;
  void revalidate(); // canApply again with the edited options
  transforms::Match editedMatch(const Row& row) const;
  QString baseDetails_;

  const ir::Sdfg* sdfg_ = nullptr;
  std::vector<ir::ElementId> anchors_;
  std::string module_; // the module group's address, or ""
  std::vector<Row> rows_;
  QTreeWidget* list_ = nullptr;
  QLabel* header_ = nullptr;
  QLabel* details_ = nullptr;
  QLabel* changes_ = nullptr;
  QWidget* optionsBox_ = nullptr;
  QFormLayout* options_ = nullptr;
  QPushButton* apply_ = nullptr;
  int applicable_ = 0;
  double lastMs_ = 0;
};

} // namespace dcw::views
