// TorchInputDialog: what torch's exporter needs to turn a PyTorch model into ONNX — for a Python file
// the nn.Module class to build, and for every input of forward() its example sizes, which of its dims
// are dynamic axes (named, e.g. dim 0 `batch`), and its element type — one row per input, checked as
// it is typed (OK stays off while a row does not parse, and the row says why).
#pragma once

#include "core/io/TorchExport.h"

#include <QDialog>

#include <vector>

class QLabel;
class QLineEdit;
class QTableWidget;
class QPushButton;

namespace dcw::views {

class TorchInputDialog : public QDialog {
  Q_OBJECT
public:
  // `model`: the file's name (shown); `askClass`: a Python file, whose class is asked for too.
  TorchInputDialog(const QString& model, bool askClass, QWidget* parent = nullptr);

  void setClassName(const QString& name);
  QString className() const;
  void setInputs(const std::vector<io::TorchInput>& inputs);
  void addInput(const io::TorchInput& input);
  void removeInput(int row);
  // Fills row `row`: sizes "1x3x224x224", dynamic axes "0=batch, 2=height", type "float32".
  void setRow(int row, const QString& sizes, const QString& axes, const QString& dtype);
  // The inputs as typed; an error (naming the row) when one does not parse.
  Expected<std::vector<io::TorchInput>> inputs() const;
  bool acceptable() const; // what OK's enabled state shows

private:
  void check();

  QLineEdit* class_ = nullptr;
  QTableWidget* table_ = nullptr;
  QLabel* problem_ = nullptr;
  QPushButton* ok_ = nullptr;
};

} // namespace dcw::views
