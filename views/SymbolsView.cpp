#include "views/SymbolsView.h"

#include <QFormLayout>
#include <QLabel>
#include <QSpinBox>
#include <QVBoxLayout>

namespace dcw::views {

SymbolsView::SymbolsView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("symbolsView"));
  auto* layout = new QVBoxLayout(this);
  hint_ = new QLabel(tr("The model has no symbols: every shape is concrete."), this);
  hint_->setWordWrap(true);
  layout->addWidget(hint_);
  form_ = new QFormLayout;
  layout->addLayout(form_);
  layout->addStretch(1);
}

void SymbolsView::setSymbols(const std::set<std::string>& names) {
  while (form_->rowCount() > 0) form_->removeRow(0);
  std::map<std::string, int64_t> kept;
  for (auto& n : names) {
    auto it = values_.find(n);
    kept[n] = it == values_.end() ? 1 : it->second;
  }
  values_ = std::move(kept);
  hint_->setText(names.empty() ? tr("The model has no symbols: every shape is concrete.")
                               : tr("Values of the model's symbols, used for concrete costs and shapes:"));
  for (auto& [name, value] : values_) {
    auto* box = new QSpinBox(this);
    box->setObjectName(QString::fromStdString("symbol_" + name));
    box->setRange(1, 1 << 30);
    box->setValue(int(value));
    box->setAccelerated(true);
    std::string key = name;
    connect(box, &QSpinBox::valueChanged, this, [this, key](int v) {
      values_[key] = v;
      emit valuesChanged();
    });
    form_->addRow(QString::fromStdString(name), box);
  }
}

void SymbolsView::setValue(const std::string& name, int64_t value) {
  auto* box = findChild<QSpinBox*>(QString::fromStdString("symbol_" + name));
  if (box) box->setValue(int(value)); // emits through the connection above
  else values_[name] = value;
}

} // namespace dcw::views
