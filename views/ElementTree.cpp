#include "views/ElementTree.h"

#include "core/ir/LibraryNode.h"
#include "core/ir/MapNodes.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Sdfg.h"

#include <algorithm>

namespace dcw::views {

using namespace dcw::ir;

namespace {

class Indexer {
public:
  explicit Indexer(std::vector<ElementEntry>& out) : out_(out) {}

  void sdfg(const Sdfg& s, ElementId container) {
    add(s, container, QStringLiteral("sdfg"));
    for (auto& b : s.blocks()) block(*b, s.id());
  }

private:
  void add(const Element& e, ElementId container, QString opType) {
    out_.push_back(ElementEntry{e.id(), container, e.kind(), QString::fromStdString(e.label()), std::move(opType)});
  }

  void block(const ControlFlowBlock& b, ElementId container) {
    add(b, container, QString::fromUtf8(elementKindName(b.kind()).data()));
    if (auto* st = dynamic_cast<const State*>(&b)) {
      state(*st);
    } else if (auto* r = dynamic_cast<const ControlFlowRegion*>(&b)) {
      for (auto& c : r->blocks()) block(*c, b.id());
    } else if (auto* c = dynamic_cast<const ConditionalRegion*>(&b)) {
      for (auto& br : c->branches()) block(*br, b.id());
    }
  }

  void state(const State& st) {
    auto scopes = st.scopeOf();
    for (auto& n : st.nodes()) {
      ElementId container = st.id();
      if (scopes) {
        auto it = scopes->find(n->id());
        // A MapExit belongs inside its own map's frame; every other node inside its innermost scope.
        if (it != scopes->end() && it->second && it->second->id() != n->id()) container = it->second->id();
      }
      QString op;
      if (auto* l = dynamic_cast<const LibraryNode*>(n.get())) op = QString::fromStdString(l->className());
      else op = QString::fromUtf8(elementKindName(n->kind()).data());
      add(*n, container, op);
      if (auto* l = dynamic_cast<const LibraryNode*>(n.get())) {
        for (auto& g : l->subgraphs())
          if (g.sdfg) sdfg(*g.sdfg, l->id());
      } else if (auto* ns = dynamic_cast<const NestedSdfgNode*>(n.get())) {
        sdfg(ns->sdfg(), ns->id());
      }
    }
  }

  std::vector<ElementEntry>& out_;
};

} // namespace

ElementTree::ElementTree(const Sdfg& root) {
  Indexer(entries_).sdfg(root, kNoId);
  byId_.reserve(entries_.size());
  for (size_t i = 0; i < entries_.size(); ++i) byId_.emplace(entries_[i].id, i);
}

const ElementEntry* ElementTree::find(ElementId id) const {
  auto it = byId_.find(id);
  return it == byId_.end() ? nullptr : &entries_[it->second];
}

std::vector<ElementId> ElementTree::ancestors(ElementId id) const {
  std::vector<ElementId> out;
  const ElementEntry* e = find(id);
  while (e && e->container != kNoId && out.size() < 10000) {
    out.push_back(e->container);
    e = find(e->container);
  }
  std::reverse(out.begin(), out.end());
  return out;
}

} // namespace dcw::views
