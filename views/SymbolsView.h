// SymbolsView: where a user sets the values of the model's symbols (`batch`, `seq`, …) so that the
// overlays, the status-bar totals and the inspector show concrete numbers next to symbolic ones.
// One spin box per symbol; valuesChanged() fires on every edit. Values default to 1. A count only the
// run knows (NonZero's, Unique's, ...) is a symbol too: its value here is the count assumed for costs.
#pragma once

#include <QWidget>

#include <cstdint>
#include <map>
#include <set>
#include <string>

class QFormLayout;
class QLabel;

namespace dcw::ir {
class Sdfg;
}

namespace dcw::views {

class SymbolsView : public QWidget {
  Q_OBJECT
public:
  explicit SymbolsView(QWidget* parent = nullptr);
  // Shows one editor per symbol, keeping values already known for names that remain. `notes` says
  // more about some (a count only the run knows, core/ir/DynamicExtent.h: who counts it, its bound),
  // next to the name and as the editor's tooltip.
  void setSymbols(const std::set<std::string>& names, const std::map<std::string, std::string>& notes = {});
  void setValue(const std::string& name, int64_t value);
  // The notes for an SDFG's counts only the run knows.
  static std::map<std::string, std::string> extentNotes(const ir::Sdfg& sdfg);
  const std::map<std::string, int64_t>& values() const { return values_; }

signals:
  void valuesChanged();

private:
  QFormLayout* form_ = nullptr;
  QLabel* hint_ = nullptr;
  std::map<std::string, int64_t> values_;
};

} // namespace dcw::views
