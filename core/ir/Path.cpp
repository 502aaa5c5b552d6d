#include "core/ir/Path.h"

#include "core/ir/LibraryNode.h"
#include "core/ir/ModulePath.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Sdfg.h"

#include <algorithm>
#include <map>
#include <optional>

namespace dcw::ir {

namespace {

// FNV-1a, continued from the hash of a prefix: the hash of a path is its parent's, continued over
// the segment.
uint64_t continueHash(uint64_t h, std::string_view s) {
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}
constexpr uint64_t kHashStart = 14695981039346656037ull;

} // namespace

uint32_t PathIndex::add(Element& e, uint32_t parent, std::string segment) {
  const uint32_t k = static_cast<uint32_t>(entries_.size());
  const uint64_t h = continueHash(parent == kNone ? kHashStart : entries_[parent].hash, segment);
  entries_.push_back({&e, parent, std::move(segment), h});
  // A NestedSdfgNode's SDFG is reached as "<node>/<name>"; the node's own path stays primary.
  byId_.emplace(e.id(), k);
  byHash_.emplace(h, k);
  return k;
}

// The walk of Walk.h (SDFG, data, blocks; a state's nodes, each followed by the SDFGs nested in it,
// then its edges; a region's blocks, then its interstate edges), with a work list instead of
// recursion (nesting is as deep as the model's subgraphs).
PathIndex::PathIndex(const Sdfg& rootSdfg) {
  Sdfg& root = const_cast<Sdfg&>(rootSdfg);
  // A unit of work: a region's or SDFG's body, a block, a node, a subgraph, or a state's or region's
  // edges; `at` is the entry whose path the work's paths extend.
  enum class Kind { SdfgBody, RegionBody, RegionEdges, Block, Node, Subgraph, StateEdges };
  struct Work {
    Kind kind;
    Element* element;
    uint32_t at;
    std::string subgraph = {}; // Subgraph: its name in the library node
  };
  std::vector<Work> todo;
  auto regionBody = [&](ControlFlowRegion& r, uint32_t at) {
    todo.push_back({Kind::RegionEdges, &r, at});
    for (auto it = r.blocks().rbegin(); it != r.blocks().rend(); ++it) todo.push_back({Kind::Block, it->get(), at});
  };
  auto sdfgBody = [&](Sdfg& s, uint32_t at) {
    for (auto& d : s.data()) add(*d, at, "/@" + d->name());
    regionBody(s, at);
  };
  sdfgBody(root, add(root, kNone, root.name()));
  while (!todo.empty()) {
    Work w = std::move(todo.back());
    todo.pop_back();
    switch (w.kind) {
    case Kind::SdfgBody: sdfgBody(static_cast<Sdfg&>(*w.element), w.at); break;
    case Kind::RegionBody: regionBody(static_cast<ControlFlowRegion&>(*w.element), w.at); break;
    case Kind::RegionEdges: {
      auto& r = static_cast<ControlFlowRegion&>(*w.element);
      for (auto& e : r.edges()) {
        auto* s = r.block(e->src);
        auto* d = r.block(e->dst);
        add(*e, w.at, "/" + (s ? s->label() : "?") + "=>" + (d ? d->label() : "?"));
      }
      break;
    }
    case Kind::Block: {
      auto& b = static_cast<ControlFlowBlock&>(*w.element);
      const uint32_t p = add(b, w.at, "/" + b.label());
      if (auto* st = dynamic_cast<State*>(&b)) {
        todo.push_back({Kind::StateEdges, st, p});
        std::vector<Node*> nodes;
        for (auto& n : st->nodes()) nodes.push_back(n.get());
        for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) todo.push_back({Kind::Node, *it, p});
      } else if (auto* r = dynamic_cast<ControlFlowRegion*>(&b)) {
        regionBody(*r, p);
      } else if (auto* c = dynamic_cast<ConditionalRegion*>(&b)) {
        for (auto it = c->branches().rbegin(); it != c->branches().rend(); ++it) todo.push_back({Kind::Block, it->get(), p});
      }
      break;
    }
    case Kind::Node: {
      auto& n = static_cast<Node&>(*w.element);
      const uint32_t p = add(n, w.at, "/" + n.label());
      if (auto* ns = dynamic_cast<NestedSdfgNode*>(&n)) {
        add(ns->sdfg(), p, "/" + ns->sdfg().name());
        todo.push_back({Kind::SdfgBody, &ns->sdfg(), p});
      }
      if (auto* l = dynamic_cast<LibraryNode*>(&n))
        for (auto it = l->subgraphs().rbegin(); it != l->subgraphs().rend(); ++it)
          todo.push_back({Kind::Subgraph, it->sdfg.get(), p, it->name});
      break;
    }
    case Kind::Subgraph: {
      auto& g = static_cast<Sdfg&>(*w.element);
      todo.push_back({Kind::SdfgBody, &g, add(g, w.at, "/" + w.subgraph)});
      break;
    }
    case Kind::StateEdges: {
      auto& st = static_cast<State&>(*w.element);
      std::map<std::string, int> seen;
      for (auto& e : st.edges()) {
        auto* s = st.node(e->src);
        auto* d = st.node(e->dst);
        std::string ep = (s ? s->label() : "?") + (e->srcConnector.empty() ? "" : ":" + e->srcConnector) + "->" +
                         (d ? d->label() : "?") + (e->dstConnector.empty() ? "" : ":" + e->dstConnector);
        int k = seen[ep]++;
        add(*e, w.at, "/" + ep + (k ? "#" + std::to_string(k) : ""));
      }
      break;
    }
    }
  }
}

std::string PathIndex::spell(uint32_t k) const {
  std::vector<uint32_t> chain;
  size_t length = 0;
  for (uint32_t e = k; e != kNone; e = entries_[e].parent) {
    chain.push_back(e);
    length += entries_[e].segment.size();
  }
  std::string out;
  out.reserve(length);
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) out += entries_[*it].segment;
  return out;
}

bool PathIndex::spells(uint32_t k, std::string_view path) const {
  for (uint32_t e = k; e != kNone; e = entries_[e].parent) {
    const std::string& seg = entries_[e].segment;
    if (path.size() < seg.size() || path.substr(path.size() - seg.size()) != seg) return false;
    path.remove_suffix(seg.size());
  }
  return path.empty();
}

std::string PathIndex::pathOf(ElementId id) const {
  auto it = byId_.find(id);
  return it == byId_.end() ? std::string() : spell(it->second);
}

ElementId PathIndex::idOf(std::string_view path) const {
  uint32_t best = kNone;
  auto [from, to] = byHash_.equal_range(continueHash(kHashStart, path));
  for (auto it = from; it != to; ++it)
    if (it->second < best && spells(it->second, path)) best = it->second;
  return best == kNone ? kNoId : entries_[best].element->id();
}

Element* PathIndex::element(ElementId id) const {
  auto it = byId_.find(id);
  return it == byId_.end() ? nullptr : entries_[it->second].element;
}

std::string pathOf(const Sdfg& root, ElementId id) { return PathIndex(root).pathOf(id); }

namespace {

// Descends segment by segment (no index of the whole tree); nullptr when a segment is not a plain
// label lookup (edges) or matches nothing, in which case the caller falls back to the full index.
// `missing` gets the number of segments that resolved when a node label is absent from its state
// (checked against every node, not only the label index): the full index would not find the path
// either, so a stale path (a match an earlier step consumed) is refused without building it.
Element* descend(const Sdfg& root, std::string_view path, size_t* missing = nullptr) {
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
      if (!next && missing && seg.find('#') == std::string_view::npos &&
          std::none_of(st->nodes().begin(), st->nodes().end(), [&](const auto& n) { return n->label() == seg; })) {
        *missing = i;
        return nullptr;
      }
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
  size_t missing = 0;
  if (Element* e = descend(root, path, &missing)) return e;
  std::optional<PathIndex> idx;
  if (missing == 0) {
    idx.emplace(root);
    if (ElementId id = idx->idOf(path)) return idx->element(id);
  }
  if (auto a = parseModuleAddress(path))
    return fail(std::string(path), "names the module group '" + a->module + "', not one element",
                "`set` and `apply` take a module group; other commands take one element's path");
  // The longest prefix that exists, to say which segment is wrong: the `missing` segments descend
  // resolved, or the longest prefix the index knows.
  std::string p(path);
  std::string known;
  if (missing > 0) {
    size_t end = 0;
    for (size_t k = 0; k < missing; ++k) end = p.find('/', end) + 1;
    if (missing > 1) known = p.substr(0, end - 1);
  } else {
    for (size_t pos = p.find('/'); pos != std::string::npos; pos = p.find('/', pos + 1))
      if (idx->idOf(p.substr(0, pos))) known = p.substr(0, pos);
  }
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
