// PropertyModel: the inspector's content for one element, as a two-level Qt item model — groups
// (General, Operator, Attributes, Inputs, Outputs, Data, Memlet, Map, Cost, …) holding name/value
// rows. It shows attributes, connectors with dtypes, symbolic shapes and their concrete values under
// the user's symbol values, memlet subsets and volumes, descriptor storage and lifetime, and the
// element's static cost.
//
// The model copies text out of the IR when setElement() is called and keeps no pointer, so it can
// never dangle when the model on screen changes. Column 0 is the property, column 1 its value.
#pragma once

#include "core/ir/Element.h"
#include "views/ModuleGroups.h"

#include <QAbstractItemModel>

#include <map>
#include <string>
#include <vector>

namespace dcw::ir {
class Sdfg;
}
namespace dcw::analysis {
struct CostReport;
}

namespace dcw::views {

class PropertyModel : public QAbstractItemModel {
  Q_OBJECT
public:
  explicit PropertyModel(QObject* parent = nullptr);

  // Describes element `id` of `root` (searched in the whole tree, subgraphs included). `cost` and
  // `symbols` may be empty; concrete values use symbols (unset ones are shown symbolically only).
  void setElement(const ir::Sdfg* root, ir::ElementId id, const analysis::CostReport* cost,
                  const std::map<std::string, int64_t>& symbols);
  // The target a library node's implementation is checked for ("cpu", "cuda", "fpga": the
  // implementation target of the app's Run ▸ Target); applies from the next setElement().
  void setImplementationTarget(std::string target) { implementationTarget_ = std::move(target); }
  const std::string& implementationTarget() const { return implementationTarget_; }
  // Describes a module group (ModuleGroups): its path, op count, parameters and FLOPs.
  void setModule(const ModuleGroup& group);
  void clear();
  ir::ElementId element() const { return element_; }

  // The value of row `name` in group `group` ("" when absent): for tests and copy actions.
  QString value(const QString& group, const QString& name) const;
  QStringList groups() const;

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;

  struct Row {
    QString name, value;
  };
  struct Group {
    QString name;
    std::vector<Row> rows;
  };

private:
  std::string implementationTarget_ = "cpu";
  std::vector<Group> groups_;
  ir::ElementId element_ = ir::kNoId;
};

} // namespace dcw::views
