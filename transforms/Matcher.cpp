#include "transforms/Matcher.h"

#include "core/ir/LibraryNode.h"
#include "core/ir/NestedSdfgNode.h"
#include "core/ir/Path.h"
#include "transforms/TransformationRegistry.h"

#include <algorithm>
#include <deque>
#include <set>
#include <unordered_map>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

// Every state and every region (SDFGs, loops, branches) of a tree, through nested SDFGs and subgraphs.
struct Containers {
  std::vector<State*> states;
  std::vector<ControlFlowRegion*> regions;
};

void collectBlock(ControlFlowBlock& b, Containers& out);

void collectNode(Node& n, Containers& out) {
  if (auto* ns = dynamic_cast<NestedSdfgNode*>(&n)) collectBlock(ns->sdfg(), out);
  if (auto* lib = dynamic_cast<LibraryNode*>(&n))
    for (auto& g : lib->subgraphs()) collectBlock(*g.sdfg, out);
}

void collectBlock(ControlFlowBlock& b, Containers& out) {
  if (auto* st = dynamic_cast<State*>(&b)) {
    out.states.push_back(st);
    for (auto& n : st->nodes()) collectNode(*n, out);
  } else if (auto* r = dynamic_cast<ControlFlowRegion*>(&b)) {
    out.regions.push_back(r);
    for (auto& c : r->blocks()) collectBlock(*c, out);
  } else if (auto* c = dynamic_cast<ConditionalRegion*>(&b)) {
    for (auto& br : c->branches()) collectBlock(*br, out);
  }
}

// A graph view (nodes of a state or blocks of a region) with adjacency, for the search.
struct GraphView {
  std::vector<Element*> vertices;
  std::unordered_map<ElementId, std::vector<Element*>> succ, pred;
  std::unordered_map<ElementId, Element*> byId;
  bool connected(Element* a, Element* b) const {
    auto it = succ.find(a->id());
    return it != succ.end() && std::find(it->second.begin(), it->second.end(), b) != it->second.end();
  }
};

GraphView viewOf(const State& st) {
  GraphView g;
  for (auto& n : st.nodes()) {
    g.vertices.push_back(n.get());
    g.byId[n->id()] = n.get();
  }
  for (auto& e : st.edges()) {
    auto s = g.byId.find(e->src), d = g.byId.find(e->dst);
    if (s == g.byId.end() || d == g.byId.end()) continue;
    g.succ[e->src].push_back(d->second);
    g.pred[e->dst].push_back(s->second);
  }
  return g;
}

GraphView viewOf(const ControlFlowRegion& r) {
  GraphView g;
  for (auto& b : r.blocks()) {
    g.vertices.push_back(b.get());
    g.byId[b->id()] = b.get();
  }
  for (auto& e : r.edges()) {
    auto s = g.byId.find(e->src), d = g.byId.find(e->dst);
    if (s == g.byId.end() || d == g.byId.end()) continue;
    g.succ[e->src].push_back(d->second);
    g.pred[e->dst].push_back(s->second);
  }
  return g;
}

std::string elementPath(const Element& e) {
  if (auto* n = dynamic_cast<const Node*>(&e)) return pathOf(*n);
  if (auto* b = dynamic_cast<const ControlFlowBlock*>(&e)) return pathOf(*b);
  return {};
}

class Search {
public:
  Search(const Transformation& t, const GraphView& g, std::vector<Match>& out, std::set<std::string>& seen, size_t limit)
      : t_(t), p_(t.pattern()), g_(g), out_(out), seen_(seen), limit_(limit), bound_(p_.slots().size(), nullptr) {}

  void run(std::optional<std::pair<size_t, Element*>> seed) {
    size_t n = p_.slots().size();
    if (n == 0) return;
    // Slot order: breadth-first from the seed slot over pattern edges, then the unconnected rest.
    std::vector<bool> placed(n, false);
    std::deque<size_t> q;
    size_t start = seed ? seed->first : 0;
    q.push_back(start);
    placed[start] = true;
    while (order_.size() < n) {
      if (q.empty()) {
        for (size_t i = 0; i < n; ++i)
          if (!placed[i]) {
            q.push_back(i);
            placed[i] = true;
            break;
          }
      }
      size_t i = q.front();
      q.pop_front();
      order_.push_back(i);
      for (auto& e : p_.edges()) {
        size_t o = e.src == i ? e.dst : e.dst == i ? e.src : n;
        if (o < n && !placed[o]) {
          placed[o] = true;
          q.push_back(o);
        }
      }
    }
    if (seed) {
      if (!p_.accepts(seed->first, seed->second->kind())) return;
      bound_[seed->first] = seed->second;
      extend(1);
    } else {
      extend(0);
    }
  }

private:
  void extend(size_t k) {
    if (out_.size() >= limit_) return;
    if (k == order_.size()) {
      emit();
      return;
    }
    size_t i = order_[k];
    const std::vector<Element*>* candidates = &g_.vertices;
    std::vector<Element*> local;
    for (auto& e : p_.edges()) {
      size_t other = e.src == i ? e.dst : e.dst == i ? e.src : SIZE_MAX;
      if (other == SIZE_MAX || !bound_[other]) continue;
      auto& adj = e.src == i ? g_.pred : g_.succ; // i -> other: i is a predecessor of other
      auto it = adj.find(bound_[other]->id());
      local = it == adj.end() ? std::vector<Element*>{} : it->second;
      candidates = &local;
      break;
    }
    std::set<Element*> tried;
    for (Element* c : *candidates) {
      if (!tried.insert(c).second) continue;
      if (!p_.accepts(i, c->kind())) continue;
      if (std::find(bound_.begin(), bound_.end(), c) != bound_.end()) continue;
      bound_[i] = c;
      if (edgesHold(i)) extend(k + 1);
      bound_[i] = nullptr;
      if (out_.size() >= limit_) return;
    }
  }

  bool edgesHold(size_t i) const {
    for (auto& e : p_.edges()) {
      if (e.src != i && e.dst != i) continue;
      Element* s = bound_[e.src];
      Element* d = bound_[e.dst];
      if (s && d && !g_.connected(s, d)) return false;
    }
    return true;
  }

  void emit() {
    Match m;
    m.transformation = std::string(t_.name());
    for (size_t i = 0; i < bound_.size(); ++i) m.elements[p_.slots()[i].name] = elementPath(*bound_[i]);
    if (seen_.insert(m.str()).second) out_.push_back(std::move(m));
  }

  const Transformation& t_;
  const Pattern& p_;
  const GraphView& g_;
  std::vector<Match>& out_;
  std::set<std::string>& seen_;
  size_t limit_;
  std::vector<Element*> bound_;
  std::vector<size_t> order_;
};

bool isInside(const Element* e, const ControlFlowBlock* container) {
  const ControlFlowBlock* b = nullptr;
  if (auto* n = dynamic_cast<const Node*>(e)) b = n->parent();
  else b = dynamic_cast<const ControlFlowBlock*>(e);
  while (b) {
    if (b == container) return true;
    if (b->kind() == ElementKind::Sdfg) {
      Node* owner = static_cast<const Sdfg*>(b)->parentNode();
      b = owner ? owner->parent() : nullptr;
    } else {
      b = b->parent();
    }
  }
  return false;
}

} // namespace

std::vector<Match> enumerateMatches(const Transformation& t, const Sdfg& root, const MatchQuery& query) {
  std::vector<Match> out;
  std::set<std::string> seen;
  const Pattern& p = t.pattern();
  Containers all;
  collectBlock(const_cast<Sdfg&>(root), all);

  if (p.scope() == Pattern::Scope::Selection) {
    std::map<const State*, std::vector<const Node*>> byState;
    for (auto* a : query.anchors)
      if (auto* n = dynamic_cast<const Node*>(a); n && n->parent()) byState[n->parent()].push_back(n);
    for (auto& [st, nodes] : byState) {
      std::vector<const Node*> ordered;
      for (auto& n : st->nodes())
        if (std::find(nodes.begin(), nodes.end(), n.get()) != nodes.end()) ordered.push_back(n.get());
      Match m;
      m.transformation = std::string(t.name());
      for (size_t i = 0; i < ordered.size(); ++i) m.elements["node" + std::to_string(i)] = pathOf(*ordered[i]);
      out.push_back(std::move(m));
    }
    return out;
  }

  bool dataflow = p.scope() == Pattern::Scope::Dataflow;
  auto runIn = [&](const GraphView& g, std::optional<std::pair<size_t, Element*>> seed) {
    Search s(t, g, out, seen, query.limitPerTransformation);
    s.run(seed);
  };
  auto forContainers = [&](auto& containers, auto&& viewFn) {
    for (auto* c : containers) {
      if (out.size() >= query.limitPerTransformation) return;
      std::vector<Element*> seeds;
      bool whole = query.anchors.empty();
      for (auto* a : query.anchors) {
        if (a == c || (dynamic_cast<const ControlFlowBlock*>(a) && !dynamic_cast<const State*>(a) &&
                       a != static_cast<const Element*>(c) && isInside(c, static_cast<const ControlFlowBlock*>(a)))) {
          whole = true;
          break;
        }
        // A node (dataflow) or a block (control flow) directly in this container seeds the search.
        if (auto* n = dynamic_cast<const Node*>(a); n && dataflow && static_cast<const Element*>(n->parent()) == c)
          seeds.push_back(const_cast<Node*>(n));
        if (auto* b = dynamic_cast<const ControlFlowBlock*>(a); b && !dataflow && static_cast<const Element*>(b->parent()) == c)
          seeds.push_back(const_cast<ControlFlowBlock*>(b));
      }
      if (!whole && seeds.empty()) continue;
      GraphView g = viewFn(*c);
      if (whole) {
        runIn(g, std::nullopt);
        continue;
      }
      for (Element* s : seeds)
        for (size_t i = 0; i < p.slots().size(); ++i)
          if (p.accepts(i, s->kind())) runIn(g, std::make_pair(i, s));
    }
  };
  if (dataflow) forContainers(all.states, [](const State& s) { return viewOf(s); });
  else forContainers(all.regions, [](const ControlFlowRegion& r) { return viewOf(r); });
  return out;
}

std::vector<Candidate> findCandidates(const TransformationRegistry& registry, const Sdfg& root, const MatchQuery& query) {
  std::vector<Candidate> yes, no;
  for (auto& t : registry.all()) {
    for (auto& m : enumerateMatches(*t, root, query)) {
      Diagnostics why;
      Candidate c{t.get(), m, t->canApply(m, root, &why), {}};
      if (!c.applicable) {
        if (!query.includeInapplicable) continue;
        for (auto& d : why.items()) c.whyNot += (c.whyNot.empty() ? "" : "; ") + d.message;
        if (c.whyNot.empty()) c.whyNot = "its preconditions do not hold here";
        no.push_back(std::move(c));
      } else {
        yes.push_back(std::move(c));
      }
    }
  }
  yes.insert(yes.end(), std::make_move_iterator(no.begin()), std::make_move_iterator(no.end()));
  return yes;
}

std::string whyNoMatch(const Transformation& t) {
  return std::string(t.name()) + " needs " + t.pattern().describe();
}

} // namespace dcw::transforms
