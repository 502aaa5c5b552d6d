#include "core/ir/Path.h"

#include "core/ir/LibraryNode.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Sdfg.h"

#include <map>

namespace dcw::ir {

namespace {

using Visit = std::function<void(Element&, const std::string&)>;

void visitSdfgBody(Sdfg& s, const std::string& prefix, const Visit& fn);

void visitBlock(ControlFlowBlock& b, const std::string& prefix, const Visit& fn);

void visitNode(Node& n, const std::string& statePath, const Visit& fn) {
  std::string p = statePath + "/" + n.label();
  fn(n, p);
  if (auto* ns = dynamic_cast<NestedSdfgNode*>(&n)) {
    fn(ns->sdfg(), p + "/" + ns->sdfg().name());
    visitSdfgBody(ns->sdfg(), p, fn);
  }
  if (auto* l = dynamic_cast<LibraryNode*>(&n))
    for (auto& g : l->subgraphs()) {
      fn(*g.sdfg, p + "/" + g.name);
      visitSdfgBody(*g.sdfg, p + "/" + g.name, fn);
    }
}

void visitRegionBody(ControlFlowRegion& r, const std::string& prefix, const Visit& fn) {
  for (auto& b : r.blocks()) visitBlock(*b, prefix, fn);
  for (auto& e : r.edges()) {
    auto* s = r.block(e->src);
    auto* d = r.block(e->dst);
    fn(*e, prefix + "/" + (s ? s->label() : "?") + "=>" + (d ? d->label() : "?"));
  }
}

void visitBlock(ControlFlowBlock& b, const std::string& prefix, const Visit& fn) {
  std::string p = prefix + "/" + b.label();
  fn(b, p);
  if (auto* st = dynamic_cast<State*>(&b)) {
    for (auto& n : st->nodes()) visitNode(*n, p, fn);
    std::map<std::string, int> seen;
    for (auto& e : st->edges()) {
      auto* s = st->node(e->src);
      auto* d = st->node(e->dst);
      std::string ep = (s ? s->label() : "?") + (e->srcConnector.empty() ? "" : ":" + e->srcConnector) + "->" +
                       (d ? d->label() : "?") + (e->dstConnector.empty() ? "" : ":" + e->dstConnector);
      int k = seen[ep]++;
      fn(*e, p + "/" + ep + (k ? "#" + std::to_string(k) : ""));
    }
  } else if (auto* r = dynamic_cast<ControlFlowRegion*>(&b)) {
    visitRegionBody(*r, p, fn);
  } else if (auto* c = dynamic_cast<ConditionalRegion*>(&b)) {
    for (auto& br : c->branches()) visitBlock(*br, p, fn);
  }
}

void visitSdfgBody(Sdfg& s, const std::string& prefix, const Visit& fn) {
  for (auto& d : s.data()) fn(*d, prefix + "/@" + d->name());
  visitRegionBody(s, prefix, fn);
}

void visitAll(const Sdfg& root, const Visit& fn) {
  Sdfg& r = const_cast<Sdfg&>(root);
  fn(r, r.name());
  visitSdfgBody(r, r.name(), fn);
}

} // namespace

PathIndex::PathIndex(const Sdfg& root) {
  visitAll(root, [this](Element& e, const std::string& p) {
    // A NestedSdfgNode's SDFG is reached as "<node>/<name>"; the node's own path stays primary.
    byId_.emplace(e.id(), p);
    byPath_.emplace(p, e.id());
    elements_.emplace(e.id(), &e);
  });
}

const std::string& PathIndex::pathOf(ElementId id) const {
  static const std::string empty;
  auto it = byId_.find(id);
  return it == byId_.end() ? empty : it->second;
}

ElementId PathIndex::idOf(std::string_view path) const {
  auto it = byPath_.find(std::string(path));
  return it == byPath_.end() ? kNoId : it->second;
}

Element* PathIndex::element(ElementId id) const {
  auto it = elements_.find(id);
  return it == elements_.end() ? nullptr : it->second;
}

std::string pathOf(const Sdfg& root, ElementId id) {
  std::string out;
  visitAll(root, [&](Element& e, const std::string& p) {
    if (out.empty() && e.id() == id) out = p;
  });
  return out;
}

namespace {

// Descends segment by segment (no index of the whole tree); nullptr when a segment is not a plain
// label lookup (edges) or matches nothing, in which case the caller falls back to the full index.
Element* descend(const Sdfg& root, std::string_view path) {
  std::vector<std::string_view> segs;
  for (size_t s = 0;;) {
    size_t c = path.find('/', s);
    segs.push_back(path.substr(s, c == std::string_view::npos ? std::string_view::npos : c - s));
    if (c == std::string_view::npos) break;
    s = c + 1;
  }
  if (segs.empty() || segs[0] != root.name()) return nullptr;
  Element* cur = const_cast<Sdfg*>(&root);
  for (size_t i = 1; i < segs.size(); ++i) {
    std::string_view seg = segs[i];
    bool last = i + 1 == segs.size();
    if (seg.find("->") != std::string_view::npos || seg.find("=>") != std::string_view::npos) return nullptr;
    Element* next = nullptr;
    if (auto* st = dynamic_cast<State*>(cur)) {
      next = st->nodeByLabel(seg);
    } else if (auto* ns = dynamic_cast<NestedSdfgNode*>(cur)) {
      if (last && ns->sdfg().name() == seg) next = &ns->sdfg();
      else next = ns->sdfg().blockByLabel(seg);
      if (!next && seg.size() > 1 && seg[0] == '@') next = ns->sdfg().findData(seg.substr(1));
    } else if (auto* lib = dynamic_cast<LibraryNode*>(cur)) {
      next = lib->subgraph(seg);
    } else if (auto* c = dynamic_cast<ConditionalRegion*>(cur)) {
      for (auto& b : c->branches())
        if (b->label() == seg) next = b.get();
    } else if (auto* r = dynamic_cast<ControlFlowRegion*>(cur)) {
      if (seg.size() > 1 && seg[0] == '@') {
        if (auto* sd = dynamic_cast<Sdfg*>(r)) next = sd->findData(seg.substr(1));
      } else {
        next = r->blockByLabel(seg);
      }
    }
    if (!next) return nullptr;
    cur = next;
  }
  return cur;
}

} // namespace

std::string pathOf(const ControlFlowBlock& block) {
  std::string p;
  const ControlFlowBlock* b = &block;
  while (b) {
    if (b->kind() == ElementKind::Sdfg) {
      auto* s = static_cast<const Sdfg*>(b);
      Node* owner = s->parentNode();
      if (!owner) return p.empty() ? s->name() : s->name() + "/" + p;
      if (auto* lib = dynamic_cast<LibraryNode*>(owner)) {
        for (auto& g : lib->subgraphs())
          if (g.sdfg.get() == s) p = p.empty() ? g.name : g.name + "/" + p;
      } else if (p.empty()) {
        p = s->name(); // a nested SDFG itself: "<node>/<name>"
      }
      return pathOf(*owner) + "/" + p;
    }
    p = p.empty() ? b->label() : b->label() + "/" + p;
    b = b->parent();
  }
  return p;
}

std::string pathOf(const Node& node) {
  return node.parent() ? pathOf(*node.parent()) + "/" + node.label() : node.label();
}

std::string pathOfElement(const Sdfg& root, const Element& e) {
  if (auto* n = dynamic_cast<const Node*>(&e); n && n->parent()) return pathOf(*n);
  if (auto* b = dynamic_cast<const ControlFlowBlock*>(&e); b && (b->parent() || b == &root)) return pathOf(*b);
  return pathOf(root, e.id());
}

Expected<Element*> resolvePath(const Sdfg& root, std::string_view path) {
  if (Element* e = descend(root, path)) return e;
  PathIndex idx(root);
  if (ElementId id = idx.idOf(path)) return idx.element(id);
  // Find the longest prefix that exists, to say which segment is wrong.
  std::string p(path);
  std::string known;
  for (size_t pos = p.find('/'); pos != std::string::npos; pos = p.find('/', pos + 1))
    if (idx.idOf(p.substr(0, pos))) known = p.substr(0, pos);
  std::string where = known.empty() ? "the root '" + root.name() + "'" : "'" + known + "'";
  return fail(std::string(path), "no element at this path (nothing matches after " + where + ")",
              "check the labels with `dcw inspect --json`; paths look like main/state0/Conv_3");
}

bool isValidLabel(std::string_view label) {
  if (label.empty() || label.front() == '@') return false;
  if (label.find('/') != std::string_view::npos) return false;
  if (label.find("->") != std::string_view::npos || label.find("=>") != std::string_view::npos) return false;
  for (char c : label)
    if (static_cast<unsigned char>(c) < 0x20) return false;
  return true;
}

} // namespace dcw::ir
