#include "views/VisualGraph.h"

#include "core/analysis/Cost.h"
#include "views/FoldedElements.h"
#include "views/ModuleGroups.h"
#include "views/TextMeasure.h"

#include "core/ir/AccessNode.h"
#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Sdfg.h"
#include "core/ir/Tasklet.h"

#include <QFont>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

namespace dcw::views {

using namespace dcw::ir;

bool ExpansionState::isExpanded(ElementId id, VisualKind kind) const {
  auto it = overrides_.find(id);
  if (it != overrides_.end()) return it->second;
  switch (kind) {
  case VisualKind::Map:
  case VisualKind::Library:
  case VisualKind::NestedSdfg: return expandAll_;
  default: return true;
  }
}

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }


} // namespace

namespace detail {

// The module groups of a state, with what one build decides about each: open, and its box.
struct Groups {
  ModuleGroups groups;
  std::vector<int> visual;  // per group: its visual node once created, -1 before
  std::vector<char> open;
  bool empty() const { return groups.empty(); }
};

// What VisualGraph::build works out about one state whatever is open: the map scopes, what folds into
// its readers, module groups. Kept in a VisualGraph::Memo while the model does not change.
struct StateFacts {
  size_t nodes = 0, edges = 0; // the state's size when worked out (a guard against an edit not reported)
  bool scopesOk = false;
  std::map<ElementId, std::vector<const Node*>> inScope; // entry id (kNoId: top) -> nodes in order
  FoldedElements folded;                                 // none when constants are shown as nodes
  Groups groups;
  std::unordered_map<ElementId, QString> edgeLabels;     // filled as edges are drawn
};

} // namespace detail

struct VisualGraph::Memo {
  bool showConstants = false, moduleGroups = false, set = false;
  std::unordered_map<const State*, std::unique_ptr<detail::StateFacts>> states;
};

std::shared_ptr<VisualGraph::Memo> VisualGraph::newMemo() { return std::make_shared<Memo>(); }

namespace {

using detail::Groups;
using detail::StateFacts;

class Builder {
public:
  Builder(VisualGraph& g, const ExpansionState& x, const VisualGraph::Options& o, const QFont& font, VisualGraph::Memo* memo)
      : g_(g), x_(x), o_(o), bold_(font), small_(font), memo_(memo) {
    if (memo_ && (!memo_->set || memo_->showConstants != o.showConstants || memo_->moduleGroups != o.moduleGroups)) {
      memo_->states.clear(); // worked out under other options
      memo_->set = true;
      memo_->showConstants = o.showConstants;
      memo_->moduleGroups = o.moduleGroups;
    }
    bold_.setBold(true);
    small_.setPointSizeF(std::max(6.0, font.pointSizeF() - 1.5));
  }

  void buildRoot(const Sdfg& root) {
    int r = add(-1, VisualKind::Sdfg, root.id(), qs(root.name()), QStringLiteral("SDFG"));
    expandInto(r, root.id(), VisualKind::Sdfg);
    if (g_.nodes[0].expanded) sdfgBody(r, root);
    finishSizes();
  }

private:
  int add(int parent, VisualKind kind, ElementId element, QString label, QString detail = {}) {
    int idx = int(g_.nodes.size());
    VisualNode n;
    n.parent = parent;
    n.depth = parent < 0 ? 0 : g_.nodes[size_t(parent)].depth + 1;
    n.kind = kind;
    n.element = element;
    n.label = std::move(label);
    n.detail = std::move(detail);
    g_.nodes.push_back(std::move(n));
    if (parent >= 0) g_.nodes[size_t(parent)].children.push_back(idx);
    if (element != kNoId) g_.byElement[element] = idx;
    return idx;
  }

  // Marks node i expandable and decides whether it is open.
  bool expandInto(int i, ElementId id, VisualKind kind) {
    VisualNode& n = g_.nodes[size_t(i)];
    n.expandable = true;
    n.expanded = x_.isExpanded(id, kind);
    return n.expanded;
  }

  void sdfgBody(int parent, const Sdfg& sdfg) {
    std::unordered_map<ElementId, int> blocks;
    for (auto& b : sdfg.blocks()) blocks[b->id()] = block(parent, *b, sdfg);
    interstateEdges(parent, sdfg, blocks);
  }

  void interstateEdges(int container, const ControlFlowRegion& region, std::unordered_map<ElementId, int>& blocks) {
    for (auto& e : region.edges()) {
      auto s = blocks.find(e->src), d = blocks.find(e->dst);
      if (s == blocks.end() || d == blocks.end()) continue;
      QStringList parts;
      if (!e->isUnconditional()) parts << qs(e->condition.str());
      for (auto& [name, value] : e->assignments) parts << qs(name) + QStringLiteral(" = ") + qs(value.str());
      addEdge(container, s->second, d->second, e->id(), parts.join(QStringLiteral("; ")), true, false);
    }
  }

  int block(int parent, const ControlFlowBlock& b, const Sdfg& sdfg) {
    if (auto* st = dynamic_cast<const State*>(&b)) {
      int i = add(parent, VisualKind::State, st->id(), qs(st->label()),
                  QStringLiteral("%1 nodes").arg(st->nodes().size()));
      if (expandInto(i, st->id(), VisualKind::State)) state(i, *st, sdfg);
      return i;
    }
    if (auto* loop = dynamic_cast<const LoopRegion*>(&b)) {
      QString d = loop->loopVariable.empty()
                      ? QStringLiteral("while %1").arg(qs(loop->condition.str()))
                      : QStringLiteral("for %1 = %2; %3; %1 = %4")
                            .arg(qs(loop->loopVariable), qs(loop->init.str()), qs(loop->condition.str()), qs(loop->update.str()));
      int i = add(parent, VisualKind::Loop, loop->id(), qs(loop->label()), d);
      if (expandInto(i, loop->id(), VisualKind::Loop)) {
        std::unordered_map<ElementId, int> blocks;
        for (auto& c : loop->blocks()) blocks[c->id()] = block(i, *c, sdfg);
        interstateEdges(i, *loop, blocks);
      }
      return i;
    }
    if (auto* br = dynamic_cast<const BranchRegion*>(&b)) {
      int i = add(parent, VisualKind::Branch, br->id(), qs(br->label()),
                  br->condition ? QStringLiteral("if %1").arg(qs(br->condition->str())) : QStringLiteral("else"));
      if (expandInto(i, br->id(), VisualKind::Branch)) {
        std::unordered_map<ElementId, int> blocks;
        for (auto& c : br->blocks()) blocks[c->id()] = block(i, *c, sdfg);
        interstateEdges(i, *br, blocks);
      }
      return i;
    }
    if (auto* cond = dynamic_cast<const ConditionalRegion*>(&b)) {
      int i = add(parent, VisualKind::Conditional, cond->id(), qs(cond->label()),
                  QStringLiteral("%1 branches").arg(cond->branches().size()));
      if (expandInto(i, cond->id(), VisualKind::Conditional))
        for (auto& br : cond->branches()) block(i, *br, sdfg);
      return i;
    }
    return add(parent, VisualKind::State, b.id(), qs(b.label()));
  }

  // ---- states ---------------------------------------------------------------------------------------

  void state(int container, const State& st, const Sdfg& sdfg) {
    StateFacts& f = facts(st, sdfg);
    // Bodies of nodes in this state are built recursively: keep the outer state's maps aside.
    auto outerRep = std::exchange(rep_, {});
    auto outerFolded = std::exchange(folded_, &f.folded.listed);
    auto outerExits = std::exchange(exits_, {});
    auto outerGroups = std::exchange(groups_, &f.groups);
    // Open by default: a group with no sibling group (a lone wrapper such as `encoder`), or all under expand-all.
    const auto& list = f.groups.groups.list;
    std::unordered_map<int, int> siblings;
    for (auto& g : list) ++siblings[g.parent];
    f.groups.visual.assign(list.size(), -1);
    f.groups.open.assign(list.size(), 0);
    for (size_t k = 0; k < list.size(); ++k) {
      const bool* set = x_.explicitSetting(list[k].id);
      f.groups.open[k] = set ? *set : x_.expandAll() || siblings[list[k].parent] == 1;
    }
    for (auto& [id, chain] : f.groups.groups.chain) g_.groupChain[id] = chain;
    g_.modules.insert(g_.modules.end(), list.begin(), list.end());
    emitScope(container, kNoId, f.inScope, f.folded.hidden, st, sdfg, f.scopesOk);
    groups_ = std::move(outerGroups);
    // A folded element is shown by the box that lists it: the first visible node downstream.
    for (auto& [id, r] : f.folded.reader)
      if (auto v = rep_.find(r); v != rep_.end()) g_.foldedInto[id] = v->second;

    // Edges, placed in the innermost container holding both (visible) ends.
    std::set<std::tuple<int, int, int>> mergedSeen;
    for (auto& e : st.edges()) {
      auto s = rep_.find(e->src), d = rep_.find(e->dst);
      if (s == rep_.end() || d == rep_.end()) continue;
      int a = s->second, b = d->second;
      if (a == b) continue;
      bool collapsed = g_.nodes[size_t(a)].element != e->src || g_.nodes[size_t(b)].element != e->dst;
      // Lift both ends to children of their lowest common container.
      while (g_.nodes[size_t(a)].depth > g_.nodes[size_t(b)].depth) a = g_.nodes[size_t(a)].parent;
      while (g_.nodes[size_t(b)].depth > g_.nodes[size_t(a)].depth) b = g_.nodes[size_t(b)].parent;
      int la = a, lb = b;
      while (g_.nodes[size_t(la)].parent != g_.nodes[size_t(lb)].parent) {
        la = g_.nodes[size_t(la)].parent;
        lb = g_.nodes[size_t(lb)].parent;
      }
      if (la == lb) continue;
      int c = g_.nodes[size_t(la)].parent;
      bool merged = collapsed || la != a || lb != b;
      if (merged && !mergedSeen.insert({c, la, lb}).second) continue;
      auto [label, fresh] = f.edgeLabels.try_emplace(e->id());
      if (fresh) label->second = edgeLabel(e->memlet, sdfg);
      addEdge(c, la, lb, e->id(), label->second, false, merged);
    }
    rep_ = std::move(outerRep);
    folded_ = std::move(outerFolded);
    exits_ = std::move(outerExits);
  }

  // What the build works out about a state whatever is open (VisualGraph::Memo keeps it between builds).
  StateFacts& facts(const State& st, const Sdfg& sdfg) {
    std::unique_ptr<StateFacts>& slot = memo_ ? memo_->states[&st] : scratch_.emplace_back();
    if (slot && (slot->nodes != st.nodes().size() || slot->edges != st.edges().size())) slot.reset(); // edited unseen
    if (slot) return *slot;
    slot = std::make_unique<StateFacts>();
    StateFacts* f = slot.get();
    f->nodes = st.nodes().size();
    f->edges = st.edges().size();
    auto scopes = st.scopeOf();
    f->scopesOk = scopes.ok();
    for (auto& n : st.nodes()) { // entry id (kNoId: top) -> nodes in order
      ElementId scope = kNoId;
      if (scopes) {
        auto it = scopes->find(n->id());
        if (it != scopes->end() && it->second) scope = it->second->id();
      }
      f->inScope[scope].push_back(n.get());
    }
    // Constants, weight preparation and shape arithmetic fold into their readers unless shown as nodes.
    if (!o_.showConstants) f->folded = foldIntoReaders(st, sdfg);
    if (o_.moduleGroups) f->groups.groups = groupByModule(st, sdfg, f->inScope[kNoId], f->folded.hidden, o_.flops);
    return *f;
  }

  // The container for top-level node `id`: its group (created on first use, inside its parents), or
  // `state` when it has none; `inside` is set when a closed group hides it (the group is returned).
  int placeInGroup(int state, ElementId id, bool& inside) {
    inside = false;
    const auto& list = groups_->groups.list;
    auto it = groups_->groups.of.find(id);
    if (it == groups_->groups.of.end()) return state;
    std::vector<int> chain;
    for (int k = it->second; k >= 0; k = list[size_t(k)].parent) chain.insert(chain.begin(), k);
    int cur = state;
    for (int k : chain) {
      const ModuleGroup& g = list[size_t(k)];
      int& visual = groups_->visual[size_t(k)];
      if (visual < 0) {
        visual = add(cur, VisualKind::Group, g.id, g.name(), g.counts());
        g_.nodes[size_t(visual)].expandable = true;
        g_.nodes[size_t(visual)].expanded = groups_->open[size_t(k)];
        g_.nodes[size_t(visual)].extra = g.path.contains(QLatin1Char('/')) ? g.path : QString();
      }
      cur = visual;
      if (!groups_->open[size_t(k)]) {
        inside = true;
        return cur;
      }
    }
    return cur;
  }

  void emitScope(int container, ElementId scope, const std::map<ElementId, std::vector<const Node*>>& inScope,
                 const std::unordered_set<ElementId>& hidden, const State& st, const Sdfg& sdfg, bool scopesOk) {
    auto it = inScope.find(scope);
    if (it == inScope.end()) return;
    const int outer = container;
    for (const Node* n : it->second) {
      if (hidden.count(n->id())) continue;
      if (scope == kNoId && !groups_->empty()) {
        bool inside = false;
        container = placeInGroup(outer, n->id(), inside);
        if (inside) { // in a closed group: its box stands for the node (and a map's insides)
          rep_[n->id()] = container;
          if (n->kind() == ElementKind::MapEntry) hideScope(n->id(), container, inScope);
          continue;
        }
      }
      if (n->kind() == ElementKind::MapExit) {
        if (scope == kNoId) rep_[n->id()] = add(container, VisualKind::MapExit, n->id(), qs(n->label()));
        else if (static_cast<const MapExit*>(n)->entryId == scope) exits_.push_back(n);
        else rep_[n->id()] = add(container, VisualKind::MapExit, n->id(), qs(n->label()));
        continue;
      }
      if (auto* m = dynamic_cast<const MapEntry*>(n)) {
        QString ranges = mapRanges(*m);
        int i = add(container, VisualKind::Map, m->id(), qs(m->label()), ranges);
        rep_[m->id()] = i;
        if (!scopesOk || m->id() == scope) continue;
        if (expandInto(i, m->id(), VisualKind::Map)) {
          rep_[m->id()] = add(i, VisualKind::MapEntry, m->id(), qs(m->label()), ranges);
          size_t exitMark = exits_.size();
          emitScope(i, m->id(), inScope, hidden, st, sdfg, scopesOk);
          for (size_t k = exitMark; k < exits_.size(); ++k)
            rep_[exits_[k]->id()] = add(i, VisualKind::MapExit, exits_[k]->id(), qs(exits_[k]->label()));
          exits_.resize(exitMark);
        } else {
          hideScope(m->id(), i, inScope);
        }
        continue;
      }
      rep_[n->id()] = node(container, *n, sdfg);
    }
  }

  // Everything inside a collapsed map is represented by the map's box.
  void hideScope(ElementId scope, int rep, const std::map<ElementId, std::vector<const Node*>>& inScope) {
    auto it = inScope.find(scope);
    if (it == inScope.end()) return;
    for (const Node* n : it->second) {
      rep_[n->id()] = rep;
      if (n->kind() == ElementKind::MapEntry && n->id() != scope) hideScope(n->id(), rep, inScope);
    }
  }

  int node(int container, const Node& n, const Sdfg& sdfg) {
    if (auto* a = dynamic_cast<const AccessNode*>(&n)) {
      const DataDescriptor* d = sdfg.findData(a->data());
      int i = add(container, VisualKind::Access, a->id(), qs(a->label()), d ? qs(d->typeString()) : QString());
      if (d) {
        g_.nodes[size_t(i)].constant = bool(d->constant);
        g_.nodes[size_t(i)].transient = d->transient;
      }
      return i;
    }
    if (auto* t = dynamic_cast<const Tasklet*>(&n)) {
      QString code = qs(t->code).simplified();
      return add(container, VisualKind::Tasklet, t->id(), qs(t->label()), code);
    }
    if (auto* l = dynamic_cast<const LibraryNode*>(&n)) {
      QString name = qs(l->label());
      int i = add(container, VisualKind::Library, l->id(), qs(l->className()), name);
      g_.nodes[size_t(i)].category = opCategory(l->opType);
      auto f = folded_->find(l->id());
      if (f != folded_->end()) g_.nodes[size_t(i)].extra = f->second.join(QStringLiteral(" · "));
      const bool mayExpand = o_.expansions && (!o_.canExpand || o_.canExpand(*l));
      if (l->subgraphs().empty() && !mayExpand) return i;
      if (expandInto(i, l->id(), VisualKind::Library)) {
        const Sdfg* pure = mayExpand ? o_.expansions(*l) : nullptr;
        for (auto& sg : l->subgraphs()) {
          if (!sg.sdfg) continue;
          int s = add(i, VisualKind::Sdfg, sg.sdfg->id(), qs(sg.name), QStringLiteral("subgraph"));
          if (expandInto(s, sg.sdfg->id(), VisualKind::Sdfg)) sdfgBody(s, *sg.sdfg);
        }
        if (pure) {
          QString impl = l->implementation.empty() ? QStringLiteral("pure") : qs(l->implementation);
          int s = add(i, VisualKind::Sdfg, pure->id(), impl, QStringLiteral("implementation"));
          if (expandInto(s, pure->id(), VisualKind::Sdfg)) sdfgBody(s, *pure);
        }
      }
      return i;
    }
    if (auto* ns = dynamic_cast<const NestedSdfgNode*>(&n)) {
      int i = add(container, VisualKind::NestedSdfg, ns->id(), qs(ns->label()), QStringLiteral("nested SDFG"));
      if (expandInto(i, ns->id(), VisualKind::NestedSdfg)) {
        const Sdfg& inner = ns->sdfg();
        int s = add(i, VisualKind::Sdfg, inner.id(), qs(inner.name()), QStringLiteral("SDFG"));
        if (expandInto(s, inner.id(), VisualKind::Sdfg)) sdfgBody(s, inner);
      }
      return i;
    }
    return add(container, VisualKind::Tasklet, n.id(), qs(n.label()));
  }

  static QString mapRanges(const MapEntry& m) {
    QStringList r;
    for (size_t i = 0; i < m.params.size(); ++i)
      r << qs(m.params[i]) + QLatin1Char('=') + (i < m.range.rank() ? qs(m.range[i].str()) : QStringLiteral("?"));
    return QLatin1Char('[') + r.join(QStringLiteral(", ")) + QLatin1Char(']');
  }

  QString edgeLabel(const Memlet& m, const Sdfg& sdfg) {
    if (m.isEmpty()) return {};
    const DataDescriptor* d = sdfg.findData(m.data);
    QString text = qs(m.data);
    // The whole array (0:d for every dim d of its shape): no subset shown, and the shape is its size.
    bool full = d && d->rankKnown && m.subset.rank() == d->shape.size();
    for (size_t i = 0; full && i < m.subset.rank(); ++i) {
      const Range& r = m.subset[i];
      full = r.begin.isConstant() && *r.begin.constantValue() == 0 && r.step.isConstant() && *r.step.constantValue() == 1 &&
             r.end == d->shape[i];
    }
    if (!full && !m.subset.empty()) text += QLatin1Char('[') + qs(m.subset.str()) + QLatin1Char(']');
    if (d && !d->rankKnown) return text + QStringLiteral(" · ?");
    if (!m.subset.empty() || (d && d->shape.empty())) {
      if (full) { // an array's shape is written once per build, not once per edge
        auto [it, fresh] = shapeText_.try_emplace(d);
        if (fresh) it->second = dimsText(d->shape);
        text += QStringLiteral(" · ") + it->second;
      } else {
        text += QStringLiteral(" · ") + dimsText(m.subset.sizes());
      }
    }
    if (m.dynamic) text += QStringLiteral(" (dyn)");
    if (!m.wcr.empty()) text += QStringLiteral(" (CR: %1)").arg(qs(m.wcr));
    return text;
  }

  void addEdge(int container, int src, int dst, ElementId id, QString label, bool interstate, bool merged) {
    VisualEdge e;
    e.src = src;
    e.dst = dst;
    e.container = container;
    e.element = id;
    e.label = std::move(label);
    e.interstate = interstate;
    e.merged = merged;
    g_.nodes[size_t(container)].edges.push_back(int(g_.edges.size()));
    g_.edges.push_back(std::move(e));
  }

  // Leaf sizes from the text they show (containers get theirs from layout).
  void finishSizes() {
    TextMeasure fb(bold_), fs(small_);
    const double maxText = 240;
    for (auto& e : g_.edges) e.label = fs.elided(e.label, Qt::ElideMiddle, 260);
    for (auto& n : g_.nodes) {
      if (n.expanded) { // a container: layout sizes it; keep room for its title
        n.size = QSizeF(fb.width(n.label) + fs.width(n.detail) + 2 * VisualGraph::kPad + 40, 0);
        continue;
      }
      n.detail = fs.elided(n.detail, Qt::ElideRight, maxText);
      n.extra = fs.elided(n.extra, Qt::ElideRight, maxText);
      n.label = fb.elided(n.label, Qt::ElideMiddle, maxText);
      double w = fb.width(n.label);
      int lines = 1;
      if (!n.detail.isEmpty()) w = std::max(w, fs.width(n.detail)), ++lines;
      if (!n.extra.isEmpty()) w = std::max(w, fs.width(n.extra)), ++lines;
      double h = fb.height() + (lines - 1) * fs.height() + 12;
      switch (n.kind) {
      case VisualKind::Access: w += 36; h += 4; break;
      case VisualKind::Tasklet: w += 28; break;
      case VisualKind::Map:
      case VisualKind::MapEntry:
      case VisualKind::MapExit: w += 44; break;
      default: w += 20; break;
      }
      if (n.expandable) w += 16; // room for the expand marker
      n.size = QSizeF(std::max(w, 56.0), std::max(h, 30.0));
    }
  }

  VisualGraph& g_;
  const ExpansionState& x_;
  const VisualGraph::Options& o_;
  QFont bold_, small_;
  std::unordered_map<ElementId, int> rep_;              // IR node -> visual node showing it (per state)
  const std::unordered_map<ElementId, QStringList>* folded_ = nullptr; // reader -> folded constant descriptions
  VisualGraph::Memo* memo_ = nullptr;                   // facts kept between builds, or none
  std::unordered_map<const DataDescriptor*, QString> shapeText_; // `64×56×56` per array, this build
  std::deque<std::unique_ptr<StateFacts>> scratch_;     // facts of this build when there is no memo
  Groups* groups_ = nullptr;                            // the current state's module groups
  std::vector<const Node*> exits_;                      // exits waiting for their scope to close
};

} // namespace

VisualGraph VisualGraph::build(const Sdfg& root, const ExpansionState& expansion, const Options& options,
                               const QFont& font, Memo* memo) {
  VisualGraph g;
  Builder(g, expansion, options, font, memo).buildRoot(root);
  return g;
}

int VisualGraph::find(ElementId id) const {
  auto it = byElement.find(id);
  return it == byElement.end() ? -1 : it->second;
}

const std::vector<ElementId>& VisualGraph::groupsHolding(ElementId id) const {
  static const std::vector<ElementId> none;
  auto it = groupChain.find(id);
  return it == groupChain.end() ? none : it->second;
}


int VisualGraph::shownAs(ElementId id) const {
  if (int v = find(id); v >= 0) return v;
  auto it = foldedInto.find(id);
  return it == foldedInto.end() ? -1 : it->second;
}

std::vector<int> VisualGraph::predecessors(int i) const {
  std::vector<int> out;
  int p = nodes[size_t(i)].parent;
  if (p < 0) return out;
  for (int e : nodes[size_t(p)].edges)
    if (edges[size_t(e)].dst == i) out.push_back(edges[size_t(e)].src);
  return out;
}

std::vector<int> VisualGraph::successors(int i) const {
  std::vector<int> out;
  int p = nodes[size_t(i)].parent;
  if (p < 0) return out;
  for (int e : nodes[size_t(p)].edges)
    if (edges[size_t(e)].src == i) out.push_back(edges[size_t(e)].dst);
  return out;
}

QPointF VisualGraph::scenePos(int i) const {
  QPointF pos;
  while (i >= 0) {
    const VisualNode& n = nodes[size_t(i)];
    pos += n.center - QPointF(n.size.width() / 2, n.size.height() / 2);
    if (n.parent >= 0) pos += contentOrigin();
    i = n.parent;
  }
  return pos;
}

} // namespace dcw::views
