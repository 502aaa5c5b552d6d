// Transformation headers before Qt's (Qt defines `slots` as a macro).
#include "transforms/autodiff/Autodiff.h"
#include "transforms/autodiff/Differentiate.h"

#include "core/ir/Sdfg.h"
#include "views/DifferentiateDialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace dcw::views {

namespace {
bool isFloat(ir::DType t) {
  return t == ir::DType::Float32 || t == ir::DType::Float64 || t == ir::DType::Float16 || t == ir::DType::BFloat16;
}
QString bytesText(int64_t b) {
  if (b >= (1 << 20)) return QStringLiteral("%1 MiB").arg(double(b) / (1 << 20), 0, 'f', 2);
  if (b >= (1 << 10)) return QStringLiteral("%1 KiB").arg(double(b) / (1 << 10), 0, 'f', 1);
  return QStringLiteral("%1 B").arg(b);
}
} // namespace

DifferentiateDialog::DifferentiateDialog(const ir::Sdfg& model, const std::string& output, QWidget* parent)
    : QDialog(parent), model_(model), output_(output) {
  setWindowTitle(tr("Differentiate %1 with respect to…").arg(QString::fromStdString(output)));
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel(tr("Gradient of <b>%1</b> with respect to:").arg(QString::fromStdString(output).toHtmlEscaped()), this));
  wrt_ = new QListWidget(this);
  wrt_->setObjectName(QStringLiteral("wrtList"));
  for (auto& name : model.inputs)
    if (auto* d = model.findData(name); d && isFloat(d->dtype)) {
      auto* item = new QListWidgetItem(QString::fromStdString(name) + tr("  (input, %1)").arg(QString::fromStdString(d->typeString())), wrt_);
      item->setData(Qt::UserRole, QString::fromStdString(name));
      item->setCheckState(Qt::Unchecked);
    }
  for (auto& d : model.data())
    if (d->constant && isFloat(d->dtype) && !d->shape.empty()) {
      auto* item = new QListWidgetItem(QString::fromStdString(d->name()) + tr("  (weights, %1)").arg(QString::fromStdString(d->typeString())), wrt_);
      item->setData(Qt::UserRole, QString::fromStdString(d->name()));
      item->setCheckState(Qt::Checked);
    }
  layout->addWidget(wrt_, 1);
  seeds_ = new QCheckBox(tr("Take seed gradients as a new input (otherwise: the gradient of the output, summed over its elements when it is not a scalar)"), this);
  layout->addWidget(seeds_);
  layout->addWidget(new QLabel(tr("Intermediates the backward pass reads:"), this));
  keep_ = new QTableWidget(0, 3, this);
  keep_->setObjectName(QStringLiteral("keepTable"));
  keep_->setHorizontalHeaderLabels({tr("Intermediate"), tr("Kept alive"), tr("Choice")});
  keep_->horizontalHeader()->setStretchLastSection(true);
  keep_->verticalHeader()->hide();
  layout->addWidget(keep_, 1);
  memory_ = new QLabel(this);
  memory_->setObjectName(QStringLiteral("memorySummary"));
  preview_ = new QLabel(this);
  preview_->setObjectName(QStringLiteral("commandPreview"));
  preview_->setWordWrap(true);
  preview_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(memory_);
  layout->addWidget(preview_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Differentiate"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
  connect(wrt_, &QListWidget::itemChanged, this, [this] {
    if (!filling_) refresh();
  });
  connect(seeds_, &QCheckBox::toggled, this, [this] { refresh(); });
  resize(640, 560);
  refresh();
}

QString DifferentiateDialog::command() const {
  autodiff::Request r;
  r.of = {output_};
  for (int i = 0; i < wrt_->count(); ++i)
    if (wrt_->item(i)->checkState() == Qt::Checked) r.wrt.push_back(wrt_->item(i)->data(Qt::UserRole).toString().toStdString());
  if (r.wrt.empty()) return {};
  r.sumOutputs = !seeds_->isChecked();
  // A scalar loss needs no sum=true on the line; a non-scalar output is summed explicitly.
  if (const ir::DataDescriptor* d = model_.findData(output_)) r.requireScalar = d->totalSize() == sym::Expr(1);
  for (int row = 0; row < keep_->rowCount(); ++row) {
    auto* combo = qobject_cast<QComboBox*>(keep_->cellWidget(row, 2));
    if (combo && combo->currentIndex() == 1) r.keep[keep_->item(row, 0)->text().toStdString()] = autodiff::Keep::Recompute;
  }
  return QString::fromStdString(autodiff::Differentiate(r).scriptLine());
}

void DifferentiateDialog::refresh() {
  // The table lists what the backward pass needs for the current choice of wrt; choices are kept.
  std::map<std::string, int> chosen;
  for (int row = 0; row < keep_->rowCount(); ++row)
    if (auto* combo = qobject_cast<QComboBox*>(keep_->cellWidget(row, 2)))
      chosen[keep_->item(row, 0)->text().toStdString()] = combo->currentIndex();
  autodiff::Request r;
  r.of = {output_};
  for (int i = 0; i < wrt_->count(); ++i)
    if (wrt_->item(i)->checkState() == Qt::Checked) r.wrt.push_back(wrt_->item(i)->data(Qt::UserRole).toString().toStdString());
  r.sumOutputs = !seeds_->isChecked();
  keep_->setRowCount(0);
  if (r.wrt.empty()) {
    memory_->setText(tr("Choose at least one input or weight"));
    preview_->clear();
    return;
  }
  auto needed = autodiff::intermediatesNeeded(model_, r);
  if (!needed) {
    memory_->setText(tr("Cannot differentiate: %1").arg(QString::fromStdString(needed.error().str())));
    preview_->clear();
    return;
  }
  int64_t stored = 0;
  for (auto& [name, bytes] : *needed) {
    int row = keep_->rowCount();
    keep_->insertRow(row);
    keep_->setItem(row, 0, new QTableWidgetItem(QString::fromStdString(name)));
    keep_->setItem(row, 1, new QTableWidgetItem(bytesText(bytes)));
    auto* combo = new QComboBox(keep_);
    combo->addItems({tr("Store"), tr("Recompute")});
    combo->setCurrentIndex(chosen.count(name) ? chosen[name] : 0);
    if (combo->currentIndex() == 0) stored += bytes;
    // Queued: refresh() rebuilds the table, deleting this combo box.
    connect(combo, &QComboBox::currentIndexChanged, this, [this] { refresh(); }, Qt::QueuedConnection);
    keep_->setCellWidget(row, 2, combo);
  }
  memory_->setText(tr("The backward pass keeps %1 of intermediates alive (symbolic dims taken as 1)").arg(bytesText(stored)));
  preview_->setText(tr("Command: <code>%1</code>").arg(command().toHtmlEscaped()));
}

} // namespace dcw::views
