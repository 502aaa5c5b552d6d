#include "views/ModuleGroups.h"

#include <QHash>
#include <QStringList>

#include "core/analysis/Cost.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/ModulePath.h"
#include "core/ir/Path.h"
#include "core/ir/Sdfg.h"

#include <functional>
#include <optional>
#include <string>

namespace dcw::views {

using namespace dcw::ir;

QString ModuleGroup::counts() const {
  QString text = QStringLiteral("%1 ops").arg(ops);
  if (params > 0) text += QStringLiteral(" · %1 params").arg(QString::fromStdString(analysis::formatCount(double(params))));
  if (flops > 0) {
    const QString count = QString::fromStdString(analysis::formatCount(flops)); // "1.20 G", "512"
    text += QStringLiteral(" · %1%2FLOPs").arg(count, count.back().isLetter() ? QString() : QStringLiteral(" "));
  }
  return text;
}

ElementId moduleGroupId(ElementId state, const QString& modulePath) {
  constexpr ElementId kBase = ElementId(1) << 63; // above every IR id (provisional ones start at 2^62)
  const size_t h = std::hash<std::string>()(std::to_string(state) + '/' + modulePath.toStdString());
  return kBase | (ElementId(h) & (kBase - 1));
}

ModuleGroups groupByModule(const State& st, const Sdfg& sdfg, const std::vector<const Node*>& top,
                           const std::unordered_set<ElementId>& hidden, const std::unordered_map<ElementId, double>* flops) {
  ModuleGroups out;
  std::unordered_map<ElementId, QStringList> path;
  std::unordered_map<QString, int> count;
  auto opPath = [&](const Node* n) {
    QStringList out;
    for (auto& part : moduleOf(st, *n)) out.push_back(QString::fromStdString(part));
    return out;
  };
  const std::string statePath = pathOf(st);
  for (const Node* n : top) {
    if (hidden.count(n->id()) || n->kind() == ElementKind::AccessNode) continue;
    QStringList p = opPath(n);
    if (p.isEmpty()) continue;
    if (n->kind() != ElementKind::MapExit)
      for (qsizetype k = 1; k <= p.size(); ++k) ++count[p.mid(0, k).join(QLatin1Char('/'))];
    path[n->id()] = std::move(p);
  }
  if (path.empty()) return out;
  auto common = [](const QStringList& a, const QStringList& b) {
    qsizetype k = 0;
    while (k < a.size() && k < b.size() && a[k] == b[k]) ++k;
    return a.mid(0, k);
  };
  auto constantArray = [&](const Node* n) {
    auto* a = dynamic_cast<const AccessNode*>(n);
    const DataDescriptor* d = a ? sdfg.findData(a->data()) : nullptr;
    return d && d->constant;
  };
  for (const Node* n : top) {
    if (hidden.count(n->id()) || n->kind() != ElementKind::AccessNode) continue;
    if (st.inEdges(n->id()).empty() && !constantArray(n)) continue; // a model input
    std::optional<QStringList> shared;
    for (auto* e : st.inEdges(n->id()))
      if (!hidden.count(e->src)) shared = shared ? common(*shared, path[e->src]) : path[e->src];
    for (auto* e : st.outEdges(n->id()))
      if (!hidden.count(e->dst)) shared = shared ? common(*shared, path[e->dst]) : path[e->dst];
    if (shared && !shared->isEmpty()) path[n->id()] = *shared;
  }
  // The groups: module paths with two ops or more, each under its nearest enclosing group.
  std::unordered_map<QString, int> index;
  std::function<int(const QStringList&)> groupFor = [&](const QStringList& p) -> int {
    for (qsizetype k = p.size(); k >= 1; --k) {
      const QString key = p.mid(0, k).join(QLatin1Char('/'));
      auto c = count.find(key);
      if (c == count.end() || c->second < 2) continue;
      if (auto it = index.find(key); it != index.end()) return it->second;
      ModuleGroup g;
      g.path = key;
      g.ops = c->second;
      g.id = moduleGroupId(st.id(), key);
      g.address = QString::fromStdString(moduleAddress(statePath, key.toStdString()));
      g.parent = groupFor(p.mid(0, k - 1));
      index[key] = int(out.list.size());
      out.list.push_back(std::move(g));
      return int(out.list.size()) - 1;
    }
    return -1;
  };
  std::vector<std::unordered_set<std::string>> weights; // per group: arrays counted once
  auto chainOf = [&](int g) { // group ids from the outermost down to g
    std::vector<ElementId> chain;
    for (int k = g; k >= 0; k = out.list[size_t(k)].parent) chain.insert(chain.begin(), out.list[size_t(k)].id);
    return chain;
  };
  for (const Node* n : top) {
    auto it = path.find(n->id());
    if (it == path.end()) continue;
    int g = groupFor(it->second);
    if (g < 0) continue;
    weights.resize(out.list.size());
    out.of[n->id()] = g;
    out.chain[n->id()] = chainOf(g);
    if (n->kind() == ElementKind::AccessNode) continue;
    if (flops)
      if (auto fl = flops->find(n->id()); fl != flops->end())
        for (int k = g; k >= 0; k = out.list[size_t(k)].parent) out.list[size_t(k)].flops += fl->second;
    for (auto* e : st.inEdges(n->id())) { // the weights its ops read: constants and prepared (folded) weights
      auto* a = dynamic_cast<const AccessNode*>(st.node(e->src));
      if (!a || !(hidden.count(a->id()) || constantArray(a))) continue;
      const DataDescriptor* d = sdfg.findData(a->data());
      if (!d) continue;
      int64_t elements = 0;
      if (d->constant) {
        elements = d->constant->elementCount();
      } else if (isFloating(d->dtype)) {
        sym::Expr size(1);
        for (auto& x : d->shape) size = size * x;
        elements = size.constantValue().value_or(0);
      }
      for (int k = g; k >= 0 && elements > 0; k = out.list[size_t(k)].parent)
        if (weights[size_t(k)].insert(a->data()).second) out.list[size_t(k)].params += elements;
    }
  }
  for (const ModuleGroup& g : out.list) out.chain[g.id] = chainOf(g.parent); // a group is held by its parents
  return out;
}

} // namespace dcw::views
