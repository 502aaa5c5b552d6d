// OutlineModel: the SDFG hierarchy as a Qt item model, for the outline tree of dcw-gui.
//
//   main                       sdfg
//   ├─ Data (12)               the SDFG's data descriptors: name · role · type string
//   │  └─ X                    input    float32[1, 3, 224, 224]
//   └─ state0                  state
//      ├─ X                    access   float32[1, 3, 224, 224]
//      ├─ Conv_3               library  Conv
//      │  └─ body              subgraph (a library node's graph attribute, expanded like an SDFG)
//      ├─ map_oc               map      [oc=0:64] cpu_multicore
//      │  └─ t                 tasklet  (nodes inside a map scope hang under its MapEntry)
//      └─ layer1               module   10 ops · 215 k params (the model's modules, as on the canvas)
//         └─ layer1.0          module   …
//
// Columns: Name, Kind, Type/Details. Every row except the "Data" group maps to one IR element:
// ElementIdRole gives its stable id (qulonglong), PathRole its readable path (core/ir/Path.h); a
// module row gives its group's id (the one the canvas selects), no path and no element kind. Views
// select and report elements by id, never by row, because ids survive edits and rows do not.
//
// The model observes a `const ir::Sdfg*` owned elsewhere; the owner calls setSdfg() (also with the
// same pointer after an edit, or nullptr) and must keep the SDFG alive and unchanged in between.
// setSdfg() walks the SDFG once and builds a flat vector of small items (element pointer, parent,
// row, children); index()/parent()/rowCount() only read that vector, so large graphs stay cheap, and
// the display text is computed on demand in data().
#pragma once

#include "core/ir/Element.h"
#include "views/ModuleGroups.h"

#include <QAbstractItemModel>

#include <memory>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace dcw::ir {
class Sdfg;
class ControlFlowBlock;
class DataDescriptor;
class Node;
class State;
class PathIndex;
} // namespace dcw::ir

namespace dcw::views {

class OutlineModel : public QAbstractItemModel {
  Q_OBJECT
public:
  enum Column { NameColumn = 0, KindColumn, DetailsColumn, ColumnCount };
  enum Role {
    ElementIdRole = Qt::UserRole + 1, // qulonglong; invalid QVariant for group rows
    PathRole,                         // QString, e.g. "main/state0/Conv_3"; invalid for group rows
    ElementKindRole,                  // int(ir::ElementKind); invalid for group rows
  };

  explicit OutlineModel(QObject* parent = nullptr);
  ~OutlineModel() override;

  // Shows `sdfg` (nullptr: empty model). Resets the model; keep the SDFG alive while it is shown.
  void setSdfg(const ir::Sdfg* sdfg);
  const ir::Sdfg* sdfg() const { return sdfg_; }
  // Folded elements (FoldedElements: weights, weight preparation, shape arithmetic) as rows under the
  // op that reads them, as the canvas draws them (default); off: where they are in the state.
  void setFoldIntoReaders(bool on);
  // A state's nodes under rows for their module groups (ModuleGroups), as on the canvas (default).
  void setModuleGroups(bool on);

  // The row (column 0) of element `id`, or an invalid index when it is not shown.
  QModelIndex indexForId(ir::ElementId id) const;
  // The element id of a row (kNoId for groups and invalid indexes).
  ir::ElementId idForIndex(const QModelIndex& index) const;
  // Number of rows in the whole tree (for tests and status messages).
  int totalRows() const { return items_.empty() ? 0 : int(items_.size()) - 1; }

  QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
  QModelIndex parent(const QModelIndex& child) const override;
  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  QHash<int, QByteArray> roleNames() const override;

private:
  enum class ItemType : unsigned char {
    Root,      // invisible root (items_[0])
    Sdfg,      // the root SDFG, a NestedSdfgNode's SDFG
    Subgraph,  // a library node's subgraph (an SDFG named by its graph attribute)
    DataGroup, // the "Data" group of an SDFG
    Data,      // a data descriptor
    Block,     // state, loop, conditional, branch
    Node,      // any dataflow node
    Module,    // a module group of a state's nodes (ModuleGroups), e.g. `encoder/layers.0`
  };
  enum class DataRole : unsigned char { None, Input, Output, Constant, Transient, Argument };

  struct Item {
    const ir::Element* element = nullptr;   // nullptr for Root and DataGroup
    const ir::DataDescriptor* desc = nullptr; // Data rows, and access nodes (their container)
    const void* extra = nullptr;            // Subgraph rows: the attribute name (const std::string*)
    int parent = -1;
    int row = 0;
    ItemType type = ItemType::Root;
    DataRole role = DataRole::None;
    int module = -1;                         // Module rows: index into modules_
    std::vector<int> children;
  };

  // Container name -> descriptor of the SDFG being built (to describe its access nodes).
  using DataMap = std::unordered_map<std::string_view, const ir::DataDescriptor*>;

  int addItem(int parent, ItemType type, const ir::Element* element);
  void buildSdfgBody(int parent, const ir::Sdfg& sdfg);
  void buildBlock(int parent, const ir::ControlFlowBlock& block, const ir::Sdfg& sdfg, const DataMap& data);
  void buildState(int parent, const ir::State& state, const ir::Sdfg& sdfg, const DataMap& data);
  int addNode(int parent, const ir::Node& node, const DataMap& data);
  QString nameOf(const Item& it) const;
  QString kindOf(const Item& it) const;
  QString detailsOf(const Item& it) const;
  QString pathOf(const Item& it) const;
  const Item* itemOf(const QModelIndex& index) const;

  const ir::Sdfg* sdfg_ = nullptr;
  std::vector<Item> items_;                         // items_[0] is the invisible root
  std::unordered_map<ir::ElementId, int> byId_;     // element id (or module group id) -> item
  std::vector<ModuleGroup> modules_;                // the module groups shown
  bool foldIntoReaders_ = true, moduleGroups_ = true;
  mutable std::unique_ptr<ir::PathIndex> paths_; // lazily, see pathOf
};

} // namespace dcw::views
