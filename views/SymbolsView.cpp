#include "views/SymbolsView.h"

#include "core/ir/DynamicExtent.h"

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

void SymbolsView::setSymbols(const std::set<std::string>& names, const std::map<std::string, std::string>& notes) {
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
    auto note = notes.find(name);
    QString label = QString::fromStdString(name);
    if (note != notes.end()) {
      box->setToolTip(QString::fromStdString(note->second));
      label += tr(" (counted at run time)");
    }
    form_->addRow(label, box);
  }
}

void SymbolsView::setValue(const std::string& name, int64_t value) {
  auto* box = findChild<QSpinBox*>(QString::fromStdString("symbol_" + name));
  if (box) box->setValue(int(value)); // emits through the connection above
  else values_[name] = value;
}

std::map<std::string, std::string> SymbolsView::extentNotes(const ir::Sdfg& sdfg) {
  std::map<std::string, std::string> notes;
  for (auto& e : ir::dynamicExtents(sdfg))
    notes[e.symbol] = "Counted at run time by " + e.node + " (at most " + e.bound.str() + "); the value here is the count assumed for costs.";
  return notes;
}

} // namespace dcw::views
