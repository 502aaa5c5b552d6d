// SymbolsView: where a user sets the values of the model's symbols (`batch`, `seq`, …) so that the
// overlays, the status-bar totals and the inspector show concrete numbers next to symbolic ones.
// One spin box per symbol; valuesChanged() fires on every edit. Values default to 1.
#pragma once

#include <QWidget>

#include <cstdint>
#include <map>
#include <set>
#include <string>

class QFormLayout;
class QLabel;

namespace dcw::views {

class SymbolsView : public QWidget {
  Q_OBJECT
public:
  explicit SymbolsView(QWidget* parent = nullptr);
  // Shows one editor per symbol, keeping values already known for names that remain.
  void setSymbols(const std::set<std::string>& names);
  void setValue(const std::string& name, int64_t value);
  const std::map<std::string, int64_t>& values() const { return values_; }

signals:
  void valuesChanged();

private:
  QFormLayout* form_ = nullptr;
  QLabel* hint_ = nullptr;
  std::map<std::string, int64_t> values_;
};

} // namespace dcw::views
