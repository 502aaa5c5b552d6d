#include "views/OutlineModel.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"
#include "views/FoldedElements.h"

#include <algorithm>
#include <functional>
#include <set>

namespace dcw::views {

using namespace dcw::ir;

namespace {

QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

// Cuts long details (tasklet code, attribute lists) to one short line.
QString oneLine(QString s, int max = 120) {
  s.replace(QLatin1Char('\n'), QLatin1String(" ⏎ "));
  if (s.size() > max) s = s.left(max - 1) + QStringLiteral("…");
  return s;
}

QString countOf(size_t n, const char* one, const char* many) {
  return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
}

} // namespace

OutlineModel::OutlineModel(QObject* parent) : QAbstractItemModel(parent) { items_.emplace_back(); }

OutlineModel::~OutlineModel() = default;

void OutlineModel::setFoldIntoReaders(bool on) {
  if (foldIntoReaders_ == on) return;
  foldIntoReaders_ = on;
  setSdfg(sdfg_);
}

void OutlineModel::setModuleGroups(bool on) {
  if (moduleGroups_ == on) return;
  moduleGroups_ = on;
  setSdfg(sdfg_);
}

void OutlineModel::setSdfg(const Sdfg* sdfg) {
  beginResetModel();
  sdfg_ = sdfg;
  items_.clear();
  byId_.clear();
  modules_.clear();
  paths_.reset();
  items_.emplace_back(); // invisible root
  if (sdfg_) {
    int root = addItem(0, ItemType::Sdfg, sdfg_);
    buildSdfgBody(root, *sdfg_);
  }
  endResetModel();
}

int OutlineModel::addItem(int parent, ItemType type, const Element* element) {
  int idx = int(items_.size());
  Item it;
  it.element = element;
  it.parent = parent;
  it.type = type;
  it.row = int(items_[size_t(parent)].children.size());
  items_.push_back(std::move(it));
  items_[size_t(parent)].children.push_back(idx);
  if (element && element->id() != kNoId) byId_.emplace(element->id(), idx); // first occurrence wins
  return idx;
}

void OutlineModel::buildSdfgBody(int parent, const Sdfg& sdfg) {
  DataMap data;
  data.reserve(sdfg.data().size());
  if (!sdfg.data().empty()) {
    std::set<std::string_view> ins(sdfg.inputs.begin(), sdfg.inputs.end());
    std::set<std::string_view> outs(sdfg.outputs.begin(), sdfg.outputs.end());
    int group = addItem(parent, ItemType::DataGroup, nullptr);
    for (auto& d : sdfg.data()) {
      int idx = addItem(group, ItemType::Data, d.get());
      Item& it = items_[size_t(idx)];
      it.desc = d.get();
      // The same order of precedence as analysis::summarize(), so both views agree.
      it.role = d->constant                 ? DataRole::Constant
                : ins.count(d->name())      ? DataRole::Input
                : outs.count(d->name())     ? DataRole::Output
                : d->transient              ? DataRole::Transient
                                            : DataRole::Argument;
      data.emplace(d->name(), d.get());
    }
  }
  for (auto& b : sdfg.blocks()) buildBlock(parent, *b, sdfg, data);
}

void OutlineModel::buildBlock(int parent, const ControlFlowBlock& block, const Sdfg& sdfg, const DataMap& data) {
  int idx = addItem(parent, ItemType::Block, &block);
  if (auto* st = dynamic_cast<const State*>(&block)) {
    buildState(idx, *st, sdfg, data);
  } else if (auto* region = dynamic_cast<const ControlFlowRegion*>(&block)) {
    for (auto& b : region->blocks()) buildBlock(idx, *b, sdfg, data);
  } else if (auto* cond = dynamic_cast<const ConditionalRegion*>(&block)) {
    for (auto& br : cond->branches()) buildBlock(idx, *br, sdfg, data);
  }
}

void OutlineModel::buildState(int parent, const State& state, const Sdfg& sdfg, const DataMap& data) {
  // Nodes inside a map scope hang under their MapEntry (the MapExit last), as in DaCe's scope tree.
  // If the scopes are malformed (validation reports that), the nodes are listed flat instead.
  std::unordered_map<ElementId, std::vector<const Node*>> inScope; // entry id (kNoId: top) -> nodes
  auto scopes = state.scopeOf();
  for (auto& n : state.nodes()) {
    ElementId scope = kNoId;
    if (scopes) {
      auto it = scopes->find(n->id());
      if (it != scopes->end() && it->second) scope = it->second->id();
    }
    inScope[scope].push_back(n.get());
  }
  for (auto& [scope, nodes] : inScope)
    std::stable_partition(nodes.begin(), nodes.end(), [](const Node* n) { return !n->isScopeExit(); });

  // As on the canvas: weights, their preparation and shape arithmetic hang under the op that reads
  // them (unless shown as nodes), the other top-level nodes under their module groups (created as
  // their first node comes).
  const FoldedElements folded = foldIntoReaders_ ? foldIntoReaders(state, sdfg) : FoldedElements();
  const ModuleGroups groups = moduleGroups_ ? groupByModule(state, sdfg, inScope[kNoId], folded.hidden, nullptr) : ModuleGroups();
  std::vector<int> groupItem(groups.list.size(), -1);
  std::function<int(int)> itemOfGroup = [&](int g) -> int {
    if (groupItem[size_t(g)] >= 0) return groupItem[size_t(g)];
    const int at = groups.list[size_t(g)].parent < 0 ? parent : itemOfGroup(groups.list[size_t(g)].parent);
    const int idx = addItem(at, ItemType::Module, nullptr);
    items_[size_t(idx)].module = int(modules_.size());
    modules_.push_back(groups.list[size_t(g)]);
    byId_.emplace(groups.list[size_t(g)].id, idx);
    return groupItem[size_t(g)] = idx;
  };
  auto placeOf = [&](int at, ElementId scope, const Node* n) {
    if (scope != kNoId) return at;
    auto g = groups.of.find(n->id());
    return g == groups.of.end() ? at : itemOfGroup(g->second);
  };

  size_t emitted = 0;
  std::set<ElementId> done;
  std::unordered_map<ElementId, int> rowOf; // this state's node rows (byId_ may hold a descriptor of the same id)
  // Iterative depth-first emission: (item to attach to, scope whose nodes go there).
  std::vector<std::pair<int, ElementId>> work{{parent, kNoId}};
  while (!work.empty()) {
    auto [at, scope] = work.back();
    work.pop_back();
    auto it = inScope.find(scope);
    if (it == inScope.end()) continue;
    for (const Node* n : it->second) {
      if (folded.hidden.count(n->id()) || !done.insert(n->id()).second) continue;
      int idx = addNode(placeOf(at, scope, n), *n, data);
      rowOf[n->id()] = idx;
      ++emitted;
      if (n->isScopeEntry() && n->id() != kNoId && n->id() != scope) work.emplace_back(idx, n->id());
    }
  }
  // Folded nodes under each node that reads them (a shared weight under every reader; a weight under
  // the Identity that prepares it, under the op), readers first.
  std::vector<const Node*> pending;
  for (auto& n : state.nodes())
    if (folded.hidden.count(n->id()) && !done.count(n->id())) pending.push_back(n.get());
  for (bool progress = true; progress && !pending.empty();) {
    progress = false;
    std::vector<const Node*> later;
    for (const Node* n : pending) {
      std::vector<int> under;
      bool waiting = false;
      for (auto* e : state.outEdges(n->id())) {
        auto r = rowOf.find(e->dst);
        if (r != rowOf.end()) under.push_back(r->second);
        else waiting = waiting || folded.hidden.count(e->dst);
      }
      if (waiting || under.empty()) {
        later.push_back(n);
        continue;
      }
      std::sort(under.begin(), under.end());
      under.erase(std::unique(under.begin(), under.end()), under.end());
      for (int at : under) rowOf.try_emplace(n->id(), addNode(at, *n, data));
      done.insert(n->id());
      ++emitted;
      progress = true;
    }
    pending.swap(later);
  }
  for (const Node* n : pending) { // read by nothing shown, or in a cycle: in the state
    if (!done.insert(n->id()).second) continue;
    addNode(parent, *n, data);
    ++emitted;
  }
  if (emitted < state.nodes().size()) // nodes in a scope whose entry is not in this state
    for (auto& n : state.nodes())
      if (!done.count(n->id())) addNode(parent, *n, data);
}

int OutlineModel::addNode(int parent, const Node& node, const DataMap& data) {
  int idx = addItem(parent, ItemType::Node, &node);
  if (auto* a = dynamic_cast<const AccessNode*>(&node)) {
    auto it = data.find(a->data());
    if (it != data.end()) items_[size_t(idx)].desc = it->second;
  } else if (auto* l = dynamic_cast<const LibraryNode*>(&node)) {
    for (auto& g : l->subgraphs()) {
      if (!g.sdfg) continue;
      int sub = addItem(idx, ItemType::Subgraph, g.sdfg.get());
      items_[size_t(sub)].extra = &g.name;
      buildSdfgBody(sub, *g.sdfg);
    }
  } else if (auto* ns = dynamic_cast<const NestedSdfgNode*>(&node)) {
    int sub = addItem(idx, ItemType::Sdfg, &ns->sdfg());
    buildSdfgBody(sub, ns->sdfg());
  }
  return idx;
}

// ---- QAbstractItemModel ---------------------------------------------------------------------------

const OutlineModel::Item* OutlineModel::itemOf(const QModelIndex& index) const {
  if (!index.isValid()) return &items_[0];
  size_t i = size_t(index.internalId());
  return i < items_.size() ? &items_[i] : nullptr;
}

QModelIndex OutlineModel::index(int row, int column, const QModelIndex& parent) const {
  if (column < 0 || column >= ColumnCount || row < 0) return {};
  if (parent.isValid() && parent.column() != 0) return {};
  const Item* p = itemOf(parent);
  if (!p || row >= int(p->children.size())) return {};
  return createIndex(row, column, quintptr(p->children[size_t(row)]));
}

QModelIndex OutlineModel::parent(const QModelIndex& child) const {
  if (!child.isValid()) return {};
  const Item* c = itemOf(child);
  if (!c || c->parent <= 0) return {};
  const Item& p = items_[size_t(c->parent)];
  return createIndex(p.row, 0, quintptr(c->parent));
}

int OutlineModel::rowCount(const QModelIndex& parent) const {
  if (parent.isValid() && parent.column() != 0) return 0;
  const Item* p = itemOf(parent);
  return p ? int(p->children.size()) : 0;
}

int OutlineModel::columnCount(const QModelIndex&) const { return ColumnCount; }

Qt::ItemFlags OutlineModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::NoItemFlags;
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  if (rowCount(index) == 0) f |= Qt::ItemNeverHasChildren;
  return f;
}

QVariant OutlineModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
  case NameColumn: return tr("Name");
  case KindColumn: return tr("Kind");
  case DetailsColumn: return tr("Type/Details");
  default: return {};
  }
}

QHash<int, QByteArray> OutlineModel::roleNames() const {
  auto names = QAbstractItemModel::roleNames();
  names[ElementIdRole] = "elementId";
  names[PathRole] = "path";
  names[ElementKindRole] = "elementKind";
  return names;
}

QVariant OutlineModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  const Item* it = itemOf(index);
  if (!it || it->type == ItemType::Root) return {};
  switch (role) {
  case Qt::DisplayRole:
    switch (index.column()) {
    case NameColumn: return nameOf(*it);
    case KindColumn: return kindOf(*it);
    case DetailsColumn: return detailsOf(*it);
    default: return {};
    }
  case Qt::ToolTipRole: {
    QString path = it->type == ItemType::Module ? modules_[size_t(it->module)].path : pathOf(*it);
    QString details = detailsOf(*it);
    if (path.isEmpty()) return details;
    return details.isEmpty() ? path : path + QLatin1Char('\n') + details;
  }
  case ElementIdRole:
    if (it->type == ItemType::Module) return QVariant::fromValue(qulonglong(modules_[size_t(it->module)].id));
    if (!it->element) return {};
    return QVariant::fromValue(qulonglong(it->element->id()));
  case PathRole:
    if (!it->element) return {};
    return pathOf(*it);
  case ElementKindRole:
    if (!it->element) return {};
    return int(it->element->kind());
  default:
    return {};
  }
}

QModelIndex OutlineModel::indexForId(ElementId id) const {
  auto found = byId_.find(id);
  if (found == byId_.end()) return {};
  const Item& it = items_[size_t(found->second)];
  return createIndex(it.row, 0, quintptr(found->second));
}

ElementId OutlineModel::idForIndex(const QModelIndex& index) const {
  if (!index.isValid()) return kNoId;
  const Item* it = itemOf(index);
  if (it && it->type == ItemType::Module) return modules_[size_t(it->module)].id;
  return it && it->element ? it->element->id() : kNoId;
}

// ---- display text -----------------------------------------------------------------------------------

QString OutlineModel::pathOf(const Item& it) const {
  if (!it.element || !sdfg_) return {};
  // Built on the first request only: a model edit resets the outline, and most resets never show a path.
  if (!paths_) paths_ = std::make_unique<PathIndex>(*sdfg_);
  return QString::fromStdString(paths_->pathOf(it.element->id()));
}

QString OutlineModel::nameOf(const Item& it) const {
  switch (it.type) {
  case ItemType::DataGroup: return tr("Data");
  case ItemType::Module: return modules_[size_t(it.module)].name();
  case ItemType::Subgraph: return QString::fromStdString(*static_cast<const std::string*>(it.extra));
  default: return it.element ? QString::fromStdString(it.element->label()) : QString();
  }
}

QString OutlineModel::kindOf(const Item& it) const {
  switch (it.type) {
  case ItemType::Root:
  case ItemType::DataGroup: return {};
  case ItemType::Sdfg: return QStringLiteral("sdfg");
  case ItemType::Subgraph: return QStringLiteral("subgraph");
  case ItemType::Module: return QStringLiteral("module");
  case ItemType::Data:
    switch (it.role) {
    case DataRole::Input: return QStringLiteral("input");
    case DataRole::Output: return QStringLiteral("output");
    case DataRole::Constant: return QStringLiteral("constant");
    case DataRole::Transient: return QStringLiteral("transient");
    case DataRole::Argument:
    case DataRole::None: return QStringLiteral("argument");
    }
    return {};
  case ItemType::Block: return qs(elementKindName(it.element->kind()));
  case ItemType::Node:
    switch (it.element->kind()) {
    case ElementKind::AccessNode: return QStringLiteral("access");
    case ElementKind::Tasklet: return QStringLiteral("tasklet");
    case ElementKind::MapEntry: return QStringLiteral("map");
    case ElementKind::MapExit: return QStringLiteral("map exit");
    case ElementKind::NestedSdfg: return QStringLiteral("nested sdfg");
    case ElementKind::LibraryNode:
      // The op class is what a reader scans for ("Conv", "com.example::MyOp").
      return QString::fromStdString(static_cast<const LibraryNode*>(it.element)->className());
    default: return qs(elementKindName(it.element->kind()));
    }
  }
  return {};
}

QString OutlineModel::detailsOf(const Item& it) const {
  switch (it.type) {
  case ItemType::Root: return {};
  case ItemType::DataGroup: return countOf(it.children.size(), "container", "containers");
  case ItemType::Module: return modules_[size_t(it.module)].counts();
  case ItemType::Data: return QString::fromStdString(it.desc->typeString());
  case ItemType::Sdfg:
  case ItemType::Subgraph: {
    auto* s = static_cast<const Sdfg*>(it.element);
    QString d = countOf(s->data().size(), "container", "containers") + QStringLiteral(", ") +
                countOf(s->blocks().size(), "block", "blocks");
    if (it.type == ItemType::Subgraph || s->parentNode()) d = QString::fromStdString(s->name()) + QStringLiteral(": ") + d;
    return d;
  }
  case ItemType::Block:
    if (auto* st = dynamic_cast<const State*>(it.element))
      return countOf(st->nodes().size(), "node", "nodes") + QStringLiteral(", ") +
             countOf(st->edges().size(), "edge", "edges");
    if (auto* loop = dynamic_cast<const LoopRegion*>(it.element)) {
      if (loop->loopVariable.empty()) return QStringLiteral("while %1").arg(QString::fromStdString(loop->condition.str()));
      return QStringLiteral("for %1 = %2; %3; %1 = %4")
          .arg(QString::fromStdString(loop->loopVariable), QString::fromStdString(loop->init.str()),
               QString::fromStdString(loop->condition.str()), QString::fromStdString(loop->update.str()));
    }
    if (auto* br = dynamic_cast<const BranchRegion*>(it.element))
      return br->condition ? QStringLiteral("if %1").arg(QString::fromStdString(br->condition->str())) : QStringLiteral("else");
    if (auto* c = dynamic_cast<const ConditionalRegion*>(it.element))
      return countOf(c->branches().size(), "branch", "branches");
    return {};
  case ItemType::Node:
    break;
  }

  const Element* e = it.element;
  switch (e->kind()) {
  case ElementKind::AccessNode:
    if (it.desc) return QString::fromStdString(it.desc->typeString());
    return tr("undeclared data '%1'").arg(QString::fromStdString(static_cast<const AccessNode*>(e)->data()));
  case ElementKind::Tasklet: return oneLine(QString::fromStdString(static_cast<const Tasklet*>(e)->code));
  case ElementKind::MapEntry: {
    auto* m = static_cast<const MapEntry*>(e);
    QStringList ranges;
    for (size_t i = 0; i < m->params.size(); ++i) {
      QString r = i < m->range.rank() ? QString::fromStdString(m->range[i].str()) : QStringLiteral("?");
      ranges << QString::fromStdString(m->params[i]) + QLatin1Char('=') + r;
    }
    return QStringLiteral("[%1] %2").arg(ranges.join(QStringLiteral(", ")), qs(scheduleName(m->schedule)));
  }
  case ElementKind::MapExit: return {};
  case ElementKind::LibraryNode: {
    auto* l = static_cast<const LibraryNode*>(e);
    QStringList parts;
    if (l->opaque) parts << tr("opaque");
    if (!l->implementation.empty()) parts << QStringLiteral("impl %1").arg(QString::fromStdString(l->implementation));
    QStringList attrs;
    for (auto& a : l->attributes)
      attrs << QString::fromStdString(a.name) + QLatin1Char('=') + QString::fromStdString(a.str());
    if (!attrs.isEmpty()) parts << attrs.join(QStringLiteral(", "));
    return oneLine(parts.join(QStringLiteral("; ")));
  }
  case ElementKind::NestedSdfg: {
    auto* n = static_cast<const NestedSdfgNode*>(e);
    QStringList map;
    for (auto& [sym, val] : n->symbolMapping)
      map << QString::fromStdString(sym) + QLatin1Char('=') + QString::fromStdString(val.str());
    QString d = QString::fromStdString(n->sdfg().name());
    if (!map.isEmpty()) d += QStringLiteral(" {") + map.join(QStringLiteral(", ")) + QLatin1Char('}');
    return oneLine(d);
  }
  default: return {};
  }
}

} // namespace dcw::views
