#include "views/TorchInputDialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace dcw::views {

namespace {

enum Column { SizesColumn, AxesColumn, TypeColumn };
const char* const kTypes[] = {"float32", "float64", "int64", "int32", "bool"};

} // namespace

TorchInputDialog::TorchInputDialog(const QString& model, bool askClass, QWidget* parent) : QDialog(parent) {
  setObjectName(QStringLiteral("torchInputDialog"));
  setWindowTitle(tr("Open PyTorch Model"));
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(tr("<b>%1</b> is exported to ONNX by torch (torch.onnx.export, opset 17), with an example "
                              "input of these sizes for each argument of <tt>forward()</tt>. A dynamic axis keeps "
                              "its dim symbolic in the model (<tt>0=batch</tt>).")
                               .arg(model.toHtmlEscaped()));
  intro->setWordWrap(true);
  layout->addWidget(intro);
  if (askClass) {
    auto* form = new QFormLayout;
    class_ = new QLineEdit;
    class_->setObjectName(QStringLiteral("torchClass"));
    class_->setPlaceholderText(QStringLiteral("Net"));
    class_->setToolTip(tr("The nn.Module class of the file to build, with its constructor's literal arguments if it takes any: Net(3, hidden=64)"));
    form->addRow(tr("Model class:"), class_);
    layout->addLayout(form);
    connect(class_, &QLineEdit::textChanged, this, &TorchInputDialog::check);
  }
  table_ = new QTableWidget(0, 3);
  table_->setObjectName(QStringLiteral("torchInputs"));
  table_->setHorizontalHeaderLabels({tr("Sizes"), tr("Dynamic axes"), tr("Type")});
  table_->horizontalHeader()->setSectionResizeMode(SizesColumn, QHeaderView::Stretch);
  table_->horizontalHeader()->setSectionResizeMode(AxesColumn, QHeaderView::Stretch);
  table_->setToolTip(tr("Sizes: 1x3x224x224. Dynamic axes: DIM=NAME, comma separated (0=batch, 1=sequence)."));
  layout->addWidget(table_);
  auto* rows = new QHBoxLayout;
  auto* add = new QPushButton(tr("Add Input"));
  auto* remove = new QPushButton(tr("Remove Input"));
  rows->addWidget(add);
  rows->addWidget(remove);
  rows->addStretch();
  layout->addLayout(rows);
  connect(add, &QPushButton::clicked, this, [this] { addInput(io::TorchInput{{1}, {""}, "float32"}); });
  connect(remove, &QPushButton::clicked, this, [this] { removeInput(table_->currentRow()); });
  problem_ = new QLabel;
  problem_->setObjectName(QStringLiteral("torchInputProblem"));
  problem_->setWordWrap(true);
  layout->addWidget(problem_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  ok_ = buttons->button(QDialogButtonBox::Ok);
  ok_->setText(tr("Export and Open"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  connect(table_, &QTableWidget::itemChanged, this, &TorchInputDialog::check);
  resize(560, 320);
  check();
}

void TorchInputDialog::setClassName(const QString& name) {
  if (class_) class_->setText(name);
}

QString TorchInputDialog::className() const { return class_ ? class_->text().trimmed() : QString(); }

void TorchInputDialog::setInputs(const std::vector<io::TorchInput>& inputs) {
  table_->setRowCount(0);
  for (auto& in : inputs) addInput(in);
  check();
}

void TorchInputDialog::addInput(const io::TorchInput& in) {
  const int row = table_->rowCount();
  table_->insertRow(row);
  QStringList sizes, axes;
  for (size_t k = 0; k < in.shape.size(); ++k) {
    sizes << QString::number(in.shape[k]);
    if (k < in.dimNames.size() && !in.dimNames[k].empty())
      axes << QStringLiteral("%1=%2").arg(k).arg(QString::fromStdString(in.dimNames[k]));
  }
  auto* type = new QComboBox;
  for (const char* t : kTypes) type->addItem(QString::fromLatin1(t));
  connect(type, &QComboBox::currentTextChanged, this, &TorchInputDialog::check);
  table_->setCellWidget(row, TypeColumn, type);
  setRow(row, sizes.join(QLatin1Char('x')), axes.join(QStringLiteral(", ")), QString::fromStdString(in.dtype));
}

void TorchInputDialog::removeInput(int row) {
  if (row < 0 || row >= table_->rowCount()) return;
  table_->removeRow(row);
  check();
}

void TorchInputDialog::setRow(int row, const QString& sizes, const QString& axes, const QString& dtype) {
  if (row < 0 || row >= table_->rowCount()) return;
  table_->setItem(row, SizesColumn, new QTableWidgetItem(sizes));
  table_->setItem(row, AxesColumn, new QTableWidgetItem(axes));
  if (auto* type = qobject_cast<QComboBox*>(table_->cellWidget(row, TypeColumn))) {
    const int at = type->findText(dtype);
    type->setCurrentIndex(at >= 0 ? at : 0);
  }
  check();
}

Expected<std::vector<io::TorchInput>> TorchInputDialog::inputs() const {
  std::vector<io::TorchInput> out;
  if (table_->rowCount() == 0) return fail("inputs", "no input: forward() takes at least one", "add one with Add Input");
  for (int row = 0; row < table_->rowCount(); ++row) {
    const std::string where = "input " + std::to_string(row + 1);
    io::TorchInput in;
    const QString sizes = table_->item(row, SizesColumn) ? table_->item(row, SizesColumn)->text().trimmed() : QString();
    if (sizes.isEmpty()) return fail(where, "no sizes", "e.g. 1x3x224x224");
    for (const QString& part : sizes.split(QLatin1Char('x'))) {
      bool ok = false;
      const qlonglong v = part.trimmed().toLongLong(&ok);
      if (!ok || v < 0) return fail(where, "size '" + part.toStdString() + "' is not a whole number", "sizes are joined by x: 1x3x224x224");
      in.shape.push_back(v);
    }
    in.dimNames.assign(in.shape.size(), "");
    const QString axes = table_->item(row, AxesColumn) ? table_->item(row, AxesColumn)->text() : QString();
    for (const QString& part : axes.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
      const QStringList kv = part.split(QLatin1Char('='));
      bool ok = false;
      const int dim = kv.size() == 2 ? kv[0].trimmed().toInt(&ok) : -1;
      const QString name = kv.size() == 2 ? kv[1].trimmed() : QString();
      static const QRegularExpression identifier(QStringLiteral("^[A-Za-z_][A-Za-z0-9_]*$"));
      if (!ok || dim < 0 || dim >= int(in.shape.size()) || !identifier.match(name).hasMatch())
        return fail(where, "dynamic axis '" + part.trimmed().toStdString() + "' is not DIM=NAME for one of its " +
                               std::to_string(in.shape.size()) + " dims",
                    "e.g. 0=batch");
      in.dimNames[size_t(dim)] = name.toStdString();
    }
    if (auto* type = qobject_cast<QComboBox*>(table_->cellWidget(row, TypeColumn))) in.dtype = type->currentText().toStdString();
    out.push_back(std::move(in));
  }
  return out;
}

bool TorchInputDialog::acceptable() const { return ok_->isEnabled(); }

void TorchInputDialog::check() {
  if (!ok_) return;
  QString why;
  if (class_ && className().isEmpty()) why = tr("Name the model's class.");
  else if (auto in = inputs(); !in) why = QString::fromStdString(in.error().str());
  problem_->setText(why);
  ok_->setEnabled(why.isEmpty());
}

} // namespace dcw::views
