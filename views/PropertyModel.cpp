#include "views/PropertyModel.h"

#include "core/analysis/Cost.h"
#include "core/expansions/Implementations.h"
#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"

#include <optional>

namespace dcw::views {

using namespace dcw::ir;

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }
QString qs(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

// Where an element lives: the state holding a node or dataflow edge, and that state's SDFG.
struct Owner {
  const State* state = nullptr;
  const Sdfg* sdfg = nullptr;
};

bool findOwner(const Sdfg& s, ElementId id, Owner& out) {
  for (State* st : s.allStates()) {
    if (st->node(id) || st->edge(id)) {
      out = {st, &s};
      return true;
    }
    for (auto& n : st->nodes()) {
      if (auto* l = dynamic_cast<const LibraryNode*>(n.get())) {
        for (auto& g : l->subgraphs())
          if (g.sdfg && findOwner(*g.sdfg, id, out)) return true;
      } else if (auto* ns = dynamic_cast<const NestedSdfgNode*>(n.get())) {
        if (findOwner(ns->sdfg(), id, out)) return true;
      }
    }
  }
  return false;
}

class Describer {
public:
  Describer(std::vector<PropertyModel::Group>& out, const analysis::CostReport* cost,
            const std::map<std::string, int64_t>& symbols)
      : out_(out), cost_(cost), symbols_(symbols) {}

  void group(const QString& name) { out_.push_back({name, {}}); }
  void row(const QString& name, const QString& value) { out_.back().rows.push_back({name, value}); }

  // "batch×3 = 3 (batch=1)"-style: the symbolic text, and its value when every symbol is set.
  QString expr(const sym::Expr& e) const {
    QString text = qs(e.str());
    if (e.isConstant()) return text;
    std::map<std::string, int64_t> values;
    for (auto& s : e.freeSymbols()) {
      auto it = symbols_.find(s);
      if (it == symbols_.end()) return text;
      values[s] = it->second;
    }
    auto v = e.evaluate(values);
    return v ? QStringLiteral("%1 = %2").arg(text).arg(*v) : text;
  }

  // "[batch, 3, 224, 224]", or with concrete=true "[1, 3, 224, 224]" where the symbols are set.
  QString shape(const std::vector<sym::Expr>& dims, bool concrete) const {
    QStringList parts;
    for (auto& d : dims) {
      std::optional<int64_t> v = concrete ? value(d) : std::nullopt;
      parts << (v ? QString::number(*v) : qs(d.str()));
    }
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
  }

  std::optional<int64_t> value(const sym::Expr& e) const {
    std::map<std::string, int64_t> values;
    for (auto& s : e.freeSymbols()) {
      auto it = symbols_.find(s);
      if (it == symbols_.end()) return std::nullopt;
      values[s] = it->second;
    }
    auto v = e.evaluate(values);
    return v ? std::optional<int64_t>(*v) : std::nullopt;
  }

  void descriptor(const DataDescriptor& d, const QString& title) {
    group(title);
    row(QStringLiteral("Name"), qs(d.name()));
    row(QStringLiteral("Type"), qs(d.typeString()));
    row(QStringLiteral("Kind"), qs(dataKindName(d.dataKind)));
    row(QStringLiteral("Dtype"), qs(dtypeName(d.dtype)));
    if (d.rankKnown) {
      row(QStringLiteral("Shape"), shape(d.shape, false));
      row(QStringLiteral("Shape (concrete)"), shape(d.shape, true));
      row(QStringLiteral("Strides"), shape(d.strides, false));
      row(QStringLiteral("Layout"), d.channelBlock > 0 ? qs(d.blockedLayoutName() + " (channels in blocks of " + std::to_string(d.channelBlock) + ")")
                                    : d.isChannelsLast() ? QStringLiteral("channels-last")
                                    : d.strides.empty() || d.strides == DataDescriptor::contiguousStrides(d.shape) ? QStringLiteral("row-major")
                                                                                                                 : QStringLiteral("strided"));
      if (!(d.offset == sym::Expr(0))) row(QStringLiteral("Offset"), expr(d.offset)); // a strided view's first element in its array
      row(QStringLiteral("Elements"), expr(d.totalSize()));
      if (size_t sz = dtypeSize(d.dtype)) row(QStringLiteral("Bytes"), expr(d.totalSize() * sym::Expr(int64_t(sz))));
    } else {
      row(QStringLiteral("Shape"), QStringLiteral("unknown rank"));
    }
    row(QStringLiteral("Storage"), qs(storageName(d.storage)));
    row(QStringLiteral("Lifetime"), qs(lifetimeName(d.lifetime)));
    row(QStringLiteral("Transient"), d.transient ? QStringLiteral("yes") : QStringLiteral("no"));
    if (d.constant)
      row(QStringLiteral("Constant"), QStringLiteral("%1 elements, %2 bytes").arg(d.constant->elementCount()).arg(d.constant->byteSize()));
    if (!d.sourceName.empty()) row(QStringLiteral("Source name"), qs(d.sourceName));
  }

  void memlet(const Memlet& m, const Sdfg* sdfg) {
    group(QStringLiteral("Memlet"));
    if (m.isEmpty()) {
      row(QStringLiteral("Data"), QStringLiteral("(empty memlet: ordering only)"));
      return;
    }
    row(QStringLiteral("Memlet"), qs(m.str()));
    row(QStringLiteral("Data"), qs(m.data));
    row(QStringLiteral("Subset"), m.subset.empty() ? QStringLiteral("(whole)") : qs(m.subset.str()));
    if (m.otherSubset) row(QStringLiteral("Other subset"), qs(m.otherSubset->str()));
    row(QStringLiteral("Volume"), expr(m.volume) + (m.dynamic ? QStringLiteral(" (upper bound, dynamic)") : QString()));
    if (!m.wcr.empty()) row(QStringLiteral("Write conflict"), qs(m.wcr));
    if (const DataDescriptor* d = sdfg ? sdfg->findData(m.data) : nullptr) {
      row(QStringLiteral("Storage"), qs(storageName(d->storage)));
      if (size_t sz = dtypeSize(d->dtype)) row(QStringLiteral("Bytes moved"), expr(m.volume * sym::Expr(int64_t(sz))));
    }
  }

  void connectors(const Node& n, const Owner& o) {
    auto side = [&](bool input) {
      const auto& conns = input ? n.inConnectors() : n.outConnectors();
      if (conns.empty()) return;
      group(input ? QStringLiteral("Inputs") : QStringLiteral("Outputs"));
      for (auto& c : conns) {
        QString v = c.dtype == DType::Undefined ? QStringLiteral("any") : qs(dtypeName(c.dtype));
        const DataflowEdge* edge = nullptr;
        if (o.state)
          for (auto* e : input ? o.state->inEdges(n.id()) : o.state->outEdges(n.id()))
            if ((input ? e->dstConnector : e->srcConnector) == c.name) edge = e;
        if (edge && !edge->memlet.isEmpty()) {
          v += QStringLiteral(" · ") + qs(edge->memlet.str());
          const DataDescriptor* d = o.sdfg ? o.sdfg->findData(edge->memlet.data) : nullptr;
          if (d && d->rankKnown) v += QStringLiteral(" · ") + shape(d->shape, false) + QStringLiteral(" → ") + shape(d->shape, true);
        } else if (c.optional) {
          v += QStringLiteral(" · (optional, not connected)");
        }
        row(qs(c.name), v);
      }
    };
    side(true);
    side(false);
  }

  void costOf(ElementId id) {
    const analysis::NodeCost* c = cost_ ? cost_->find(id) : nullptr;
    if (!c) return;
    group(QStringLiteral("Cost"));
    row(QStringLiteral("FLOPs"), expr(c->flops) + (c->estimated ? QStringLiteral(" (estimate)") : QString()));
    row(QStringLiteral("Bytes read"), expr(c->bytesRead));
    row(QStringLiteral("Bytes written"), expr(c->bytesWritten));
    row(QStringLiteral("Parameters"), QString::number(c->parameters));
  }

private:
  std::vector<PropertyModel::Group>& out_;
  const analysis::CostReport* cost_;
  const std::map<std::string, int64_t>& symbols_;
};

} // namespace

PropertyModel::PropertyModel(QObject* parent) : QAbstractItemModel(parent) {}

void PropertyModel::clear() {
  beginResetModel();
  groups_.clear();
  element_ = kNoId;
  endResetModel();
}

void PropertyModel::setModule(const ModuleGroup& g) {
  beginResetModel();
  groups_.clear();
  element_ = g.id;
  groups_.push_back({QStringLiteral("General"),
                     {{QStringLiteral("Kind"), QStringLiteral("module")},
                      {QStringLiteral("Name"), g.name()},
                      {QStringLiteral("Module"), g.path},
                      {QStringLiteral("Path"), g.address}}});
  std::vector<Row> contents{{QStringLiteral("Ops"), QString::number(g.ops)},
                            {QStringLiteral("Parameters"), QString::fromStdString(analysis::formatCount(double(g.params)))}};
  if (g.flops > 0) contents.push_back({QStringLiteral("FLOPs"), QString::fromStdString(analysis::formatCount(g.flops))});
  groups_.push_back({QStringLiteral("Contents"), std::move(contents)});
  endResetModel();
}

void PropertyModel::setElement(const Sdfg* root, ElementId id, const analysis::CostReport* cost,
                               const std::map<std::string, int64_t>& symbols) {
  beginResetModel();
  groups_.clear();
  element_ = id;
  const Element* e = root && id != kNoId ? root->findElement(id) : nullptr;
  if (e) {
    Describer d(groups_, cost, symbols);
    d.group(QStringLiteral("General"));
    d.row(QStringLiteral("Kind"), qs(elementKindName(e->kind())));
    d.row(QStringLiteral("Label"), qs(e->label()));
    d.row(QStringLiteral("Path"), qs(pathOf(*root, id)));
    d.row(QStringLiteral("Id"), QString::number(id));
    Owner owner;
    findOwner(*root, id, owner);
    if (auto* a = dynamic_cast<const AccessNode*>(e)) {
      const Sdfg* s = owningSdfg(a);
      if (const DataDescriptor* desc = s ? s->findData(a->data()) : nullptr) d.descriptor(*desc, QStringLiteral("Data"));
      else d.row(QStringLiteral("Data"), QStringLiteral("undeclared '%1'").arg(qs(a->data())));
    } else if (auto* l = dynamic_cast<const LibraryNode*>(e)) {
      d.group(QStringLiteral("Operator"));
      d.row(QStringLiteral("Class"), qs(l->className()));
      d.row(QStringLiteral("Domain"), l->domain.empty() ? QStringLiteral("ai.onnx") : qs(l->domain));
      d.row(QStringLiteral("Opset"), QString::number(l->opsetVersion));
      // The choice, what the app's target uses (the choice or the default policy), and every alternative
      // with its targets, environments and whether it keeps the model differentiable.
      auto used = expansions::chooseImplementation(*l, l->implementation, implementationTarget_, pathOf(*root, id));
      QString usedText = used ? qs((*used)->implementation) : QStringLiteral("none: ") + qs(used.error().message);
      d.row(QStringLiteral("Implementation"), l->implementation.empty()
                                                  ? QStringLiteral("(not chosen; %1 uses %2)").arg(qs(implementationTarget_), usedText)
                                                  : qs(l->implementation));
      if (!l->implementation.empty() && !used) d.row(QStringLiteral("Problem"), usedText);
      if (l->opaque) d.row(QStringLiteral("Opaque"), QStringLiteral("yes: unknown schema, cannot run"));
      if (!l->sourceName.empty()) d.row(QStringLiteral("Source name"), qs(l->sourceName));
      for (auto& g : l->subgraphs()) d.row(QStringLiteral("Subgraph"), qs(g.name));
      if (auto alts = expansions::implementationsOf(l->domain, l->opType); !alts.empty()) {
        d.group(QStringLiteral("Implementations"));
        for (auto* a : alts) {
          QString text = qs(a->decl.targetsText()) + QStringLiteral(" · ") +
                         (a->decl.differentiable ? QStringLiteral("differentiable") : QStringLiteral("not differentiable"));
          for (auto& env : a->decl.environments) text += QStringLiteral(" · needs ") + qs(env);
          if (used && *used == a) text += QStringLiteral(" · used on ") + qs(implementationTarget_);
          if (!a->description.empty()) text += QStringLiteral(" — ") + qs(a->description);
          d.row(qs(a->implementation), text);
        }
      }
      if (!l->attributes.empty()) {
        d.group(QStringLiteral("Attributes"));
        for (auto& a : l->attributes) d.row(qs(a.name), qs(a.str()));
      }
      d.connectors(*l, owner);
      d.costOf(id);
    } else if (auto* t = dynamic_cast<const Tasklet*>(e)) {
      d.group(QStringLiteral("Tasklet"));
      d.row(QStringLiteral("Language"), qs(taskletLanguageName(t->language)));
      if (t->language == TaskletLanguage::Cpp) {
        QStringList envs;
        for (auto& env : t->environments) envs << qs(env);
        d.row(QStringLiteral("Environments"), envs.isEmpty() ? QStringLiteral("(none)") : envs.join(QStringLiteral(", ")));
        d.row(QStringLiteral("Declared FLOPs"), t->flops ? qs(t->flops->str()) : QStringLiteral("(not declared: unknown)"));
        for (auto& [out, in] : t->inPlace)
          d.row(QStringLiteral("In place"), qs(out) + QStringLiteral(" may take the storage of ") + qs(in));
      }
      d.row(QStringLiteral("Code"), qs(t->code));
      d.connectors(*t, owner);
      d.costOf(id);
    } else if (auto* m = dynamic_cast<const MapEntry*>(e)) {
      d.group(QStringLiteral("Map"));
      for (size_t i = 0; i < m->params.size(); ++i)
        d.row(qs(m->params[i]), i < m->range.rank() ? qs(m->range[i].str()) : QStringLiteral("?"));
      d.row(QStringLiteral("Schedule"), qs(scheduleName(m->schedule)));
      d.row(QStringLiteral("Iterations"), d.expr(m->range.volume()));
      d.connectors(*m, owner);
      d.costOf(id);
    } else if (auto* x = dynamic_cast<const MapExit*>(e)) {
      d.connectors(*x, owner);
    } else if (auto* ns = dynamic_cast<const NestedSdfgNode*>(e)) {
      d.group(QStringLiteral("Nested SDFG"));
      d.row(QStringLiteral("SDFG"), qs(ns->sdfg().name()));
      for (auto& [s, v] : ns->symbolMapping) d.row(qs(s), qs(v.str()));
      d.connectors(*ns, owner);
      d.costOf(id);
    } else if (auto* de = dynamic_cast<const DataflowEdge*>(e)) {
      d.group(QStringLiteral("Edge"));
      if (owner.state) {
        const Node* s = owner.state->node(de->src);
        const Node* t = owner.state->node(de->dst);
        d.row(QStringLiteral("From"), (s ? qs(s->label()) : QStringLiteral("?")) +
                                          (de->srcConnector.empty() ? QString() : QLatin1Char(':') + qs(de->srcConnector)));
        d.row(QStringLiteral("To"), (t ? qs(t->label()) : QStringLiteral("?")) +
                                        (de->dstConnector.empty() ? QString() : QLatin1Char(':') + qs(de->dstConnector)));
      }
      d.memlet(de->memlet, owner.sdfg);
      if (owner.sdfg && !de->memlet.isEmpty())
        if (const DataDescriptor* desc = owner.sdfg->findData(de->memlet.data)) d.descriptor(*desc, QStringLiteral("Data"));
    } else if (auto* st = dynamic_cast<const State*>(e)) {
      d.group(QStringLiteral("State"));
      d.row(QStringLiteral("Nodes"), QString::number(st->nodes().size()));
      d.row(QStringLiteral("Edges"), QString::number(st->edges().size()));
    } else if (auto* loop = dynamic_cast<const LoopRegion*>(e)) {
      d.group(QStringLiteral("Loop"));
      d.row(QStringLiteral("Variable"), qs(loop->loopVariable));
      d.row(QStringLiteral("Init"), qs(loop->init.str()));
      d.row(QStringLiteral("Condition"), qs(loop->condition.str()));
      d.row(QStringLiteral("Update"), qs(loop->update.str()));
    } else if (auto* ie = dynamic_cast<const InterstateEdge*>(e)) {
      d.group(QStringLiteral("Interstate edge"));
      d.row(QStringLiteral("Condition"), qs(ie->condition.str()));
      for (auto& [s, v] : ie->assignments) d.row(qs(s), qs(v.str()));
    } else if (auto* desc = dynamic_cast<const DataDescriptor*>(e)) {
      d.descriptor(*desc, QStringLiteral("Data"));
    } else if (auto* s = dynamic_cast<const Sdfg*>(e)) {
      d.group(QStringLiteral("SDFG"));
      d.row(QStringLiteral("Containers"), QString::number(s->data().size()));
      d.row(QStringLiteral("Blocks"), QString::number(s->blocks().size()));
      QStringList syms;
      for (auto& [n, t] : s->symbols()) syms << qs(n);
      d.row(QStringLiteral("Symbols"), syms.join(QStringLiteral(", ")));
      QStringList ins, outs;
      for (auto& n : s->inputs) ins << qs(n);
      for (auto& n : s->outputs) outs << qs(n);
      d.row(QStringLiteral("Inputs"), ins.join(QStringLiteral(", ")));
      d.row(QStringLiteral("Outputs"), outs.join(QStringLiteral(", ")));
      if (s == root && cost) {
        d.group(QStringLiteral("Cost (whole model)"));
        d.row(QStringLiteral("FLOPs"), d.expr(cost->total.flops));
        d.row(QStringLiteral("Bytes moved"), d.expr(cost->total.bytes()));
        d.row(QStringLiteral("Parameters"), QString::number(cost->total.parameters));
      }
    }
  }
  endResetModel();
}

QString PropertyModel::value(const QString& group, const QString& name) const {
  for (auto& g : groups_)
    if (g.name == group)
      for (auto& r : g.rows)
        if (r.name == name) return r.value;
  return {};
}

QStringList PropertyModel::groups() const {
  QStringList out;
  for (auto& g : groups_) out << g.name;
  return out;
}

// internalId: 0 for a group row, group index + 1 for a property row.
QModelIndex PropertyModel::index(int row, int column, const QModelIndex& parent) const {
  if (row < 0 || column < 0 || column > 1) return {};
  if (!parent.isValid()) return row < int(groups_.size()) ? createIndex(row, column, quintptr(0)) : QModelIndex();
  if (parent.internalId() != 0 || parent.column() != 0 || parent.row() >= int(groups_.size())) return {};
  if (row >= int(groups_[size_t(parent.row())].rows.size())) return {};
  return createIndex(row, column, quintptr(parent.row() + 1));
}

QModelIndex PropertyModel::parent(const QModelIndex& child) const {
  if (!child.isValid() || child.internalId() == 0) return {};
  return createIndex(int(child.internalId() - 1), 0, quintptr(0));
}

int PropertyModel::rowCount(const QModelIndex& parent) const {
  if (!parent.isValid()) return int(groups_.size());
  if (parent.internalId() != 0 || parent.column() != 0) return 0;
  return parent.row() < int(groups_.size()) ? int(groups_[size_t(parent.row())].rows.size()) : 0;
}

int PropertyModel::columnCount(const QModelIndex&) const { return 2; }

QVariant PropertyModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid)) return {};
  if (role != Qt::DisplayRole && role != Qt::ToolTipRole) return {};
  if (index.internalId() == 0) {
    if (index.column() != 0) return {};
    return groups_[size_t(index.row())].name;
  }
  const Row& r = groups_[size_t(index.internalId() - 1)].rows[size_t(index.row())];
  return index.column() == 0 ? r.name : r.value;
}

QVariant PropertyModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  return section == 0 ? tr("Property") : tr("Value");
}

Qt::ItemFlags PropertyModel::flags(const QModelIndex& index) const {
  if (!index.isValid()) return Qt::NoItemFlags;
  Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
  if (index.internalId() != 0) f |= Qt::ItemNeverHasChildren;
  return f;
}

} // namespace dcw::views
