// DifferentiateDialog: "Differentiate with respect to…" for a selected output of the model — which
// inputs and weights to differentiate (float ones; the weights are pre-selected), whether to take the
// gradient of the summed output or to add seed inputs, and, per intermediate the backward pass needs,
// Store (keep it alive) or Recompute (re-run its producer), with the bytes each keeps alive and the
// total. The preview line is the exact `differentiate …` command the window executes (and records in
// the history and the script); this dialog changes nothing itself.
#pragma once

#include <QDialog>

#include <string>

class QCheckBox;
class QLabel;
class QListWidget;
class QTableWidget;

namespace dcw::ir {
class Sdfg;
}

namespace dcw::views {

class DifferentiateDialog : public QDialog {
  Q_OBJECT
public:
  DifferentiateDialog(const ir::Sdfg& model, const std::string& output, QWidget* parent = nullptr);

  QString command() const;          // the script line; "" when nothing is selected to differentiate
  QListWidget* wrtList() const { return wrt_; }
  QTableWidget* keepTable() const { return keep_; }
  // Recomputes the memory figures and the preview (after the choices changed).
  void refresh();

private:
  const ir::Sdfg& model_;
  std::string output_;
  QListWidget* wrt_ = nullptr;
  QCheckBox* seeds_ = nullptr;
  QTableWidget* keep_ = nullptr;
  QLabel* memory_ = nullptr;
  QLabel* preview_ = nullptr;
  bool filling_ = false;
};

} // namespace dcw::views
