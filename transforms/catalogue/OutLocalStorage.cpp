#include "transforms/catalogue/OutLocalStorage.h"

#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/ScopeTools.h"

#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

// ---- box of what a map reads or writes (shared shape with InLocalStorage.cpp) -------------------

// Assumptions for the provers: every parameter of the maps enclosing `n` lies in its range.
sym::Assumptions scopeAssumptions(const State& st, const Node& n) {
  sym::Assumptions a;
  for (const MapEntry* m = scope::enclosing(st, n); m; m = scope::enclosing(st, *m))
    for (size_t k = 0; k < m->params.size(); ++k) {
      a.setLower(m->params[k], m->range[k].begin);
      a.setUpper(m->params[k], m->range[k].end - 1);
    }
  return a;
}

// A constant upper bound of e; min(a, b) - c is bounded as min(a - c, b - c).
std::optional<int64_t> upperBound(const sym::Expr& e, const sym::Assumptions& a) {
  if (e.op() == sym::Op::Min) {
    std::optional<int64_t> best;
    for (auto& o : e.operands())
      if (auto u = upperBound(o, a)) best = best ? std::min(*best, *u) : *u;
    return best;
  }
  if (e.op() == sym::Op::Add) {
    for (size_t i = 0; i < e.operands().size(); ++i) {
      const sym::Expr& m = e.operands()[i];
      if (m.op() != sym::Op::Min) continue;
      sym::Expr rest(0);
      for (size_t j = 0; j < e.operands().size(); ++j)
        if (j != i) rest = rest + e.operands()[j];
      std::optional<int64_t> best;
      for (auto& o : m.operands())
        if (auto u = upperBound(o + rest, a)) best = best ? std::min(*best, *u) : *u;
      if (best) return best;
    }
  }
  return sym::bounds(e, a).second;
}

bool nonDecreasing(const sym::Expr& e, const std::string& p) {
  if (!e.freeSymbols().count(p)) return true;
  sym::Expr sp = sym::Expr::symbol(p);
  auto d = (e.substitute({{p, sp + 1}}) - e).constantValue();
  return d && *d >= 0;
}

// [lo, hi) per dimension of the union of `subsets` over the map's range; nullopt when a subset is
// not monotone in the parameters or the ranks differ.
struct Box {
  std::vector<sym::Expr> lo, hi;
};
std::optional<Box> boxOver(const std::vector<Subset>& subsets, const MapEntry& m) {
  if (subsets.empty()) return std::nullopt;
  std::map<std::string, sym::Expr> first, last;
  for (size_t k = 0; k < m.params.size(); ++k) {
    if (m.range[k].step != sym::Expr(1)) return std::nullopt;
    first[m.params[k]] = m.range[k].begin;
    last[m.params[k]] = m.range[k].end - 1;
  }
  Box b;
  const size_t rank = subsets[0].rank();
  for (size_t d = 0; d < rank; ++d) {
    std::optional<sym::Expr> lo, hi;
    for (const Subset& s : subsets) {
      if (s.rank() != rank) return std::nullopt;
      const Range& r = s[d];
      for (auto& p : m.params)
        if (!nonDecreasing(r.begin, p) || !nonDecreasing(r.end, p)) return std::nullopt;
      sym::Expr l = r.begin.substitute(first), h = r.end.substitute(last);
      lo = lo ? sym::min(*lo, l) : l;
      hi = hi ? sym::max(*hi, h) : h;
    }
    b.lo.push_back(*lo);
    b.hi.push_back(*hi);
  }
  return b;
}

Subset shiftedBack(const Subset& s, const std::vector<sym::Expr>& lo) {
  Subset r = s;
  for (size_t k = 0; k < r.rank() && k < lo.size(); ++k) {
    r.ranges()[k].begin = s[k].begin - lo[k];
    r.ranges()[k].end = s[k].end - lo[k];
  }
  return r;
}

// The edges inside map exits that feed `conn` of `n` (transitively through nested exits).
void upstream(const State& st, const Node& n, const std::string& conn, std::vector<DataflowEdge*>& out) {
  if (n.kind() != ElementKind::MapExit || conn.rfind("OUT_", 0) != 0) return;
  std::string in = "IN_" + conn.substr(4);
  for (auto* e : st.inEdges(n.id()))
    if (e->dstConnector == in) {
      out.push_back(e);
      if (Node* src = st.node(e->src)) upstream(st, *src, e->srcConnector, out);
    }
}

// Whether the map writes every element of `s`'s box on its iterations: each dimension is either free
// of the map's parameters, or an index param + c of a parameter no other dimension uses.
bool dense(const Subset& s, const MapEntry& m) {
  std::set<std::string> used;
  for (auto& r : s.ranges()) {
    std::set<std::string> ps;
    for (auto& p : m.params)
      if (r.begin.freeSymbols().count(p) || r.end.freeSymbols().count(p)) ps.insert(p);
    if (ps.empty()) continue;
    if (ps.size() != 1 || !r.isIndex() || r.step != sym::Expr(1)) return false;
    const std::string& p = *ps.begin();
    if (used.count(p)) return false;
    used.insert(p);
    auto d = (r.begin.substitute({{p, sym::Expr::symbol(p) + 1}}) - r.begin).constantValue();
    if (!d || *d != 1) return false;
  }
  return true;
}

std::string freshDataName(const Sdfg& s, const std::string& base) {
  if (!s.findData(base)) return base;
  for (int i = 1;; ++i)
    if (!s.findData(base + "_" + std::to_string(i))) return base + "_" + std::to_string(i);
}


// ---------------------------------------------------------------------------------------------------

struct Plan {
  DataflowEdge* between = nullptr;  // inner exit -> outer exit, carrying the array
  std::vector<DataflowEdge*> inner; // memlets on the array inside the inner map
  const DataDescriptor* desc = nullptr;
  Box box;
  std::vector<sym::Expr> shape;     // constant buffer shape
};

Expected<Plan> plan(const Transformation& t, const Match& match, const Binding& b) {
  const std::string& path = match.elements.at("inner");
  auto* ix = b.get<MapExit>("inner");
  auto* ox = b.get<MapExit>("outer");
  State* st = b.stateOf("inner");
  if (!ix || !ox || !st || b.stateOf("outer") != st) return fail(path, "`inner` and `outer` must be map exits of one state");
  auto* inner = dynamic_cast<MapEntry*>(st->node(ix->entryId));
  auto* outer = dynamic_cast<MapEntry*>(st->node(ox->entryId));
  if (!inner || !outer) return fail(path, "a map exit has no entry");
  if (scope::enclosing(*st, *inner) != outer) return fail(path, "the inner map is not directly inside the outer map");
  const Sdfg& sdfg = *owningSdfg(inner);
  std::string array = t.option(match, "array");
  Plan p;
  int count = 0;
  for (auto* e : st->outEdges(ix->id())) {
    if (e->dst != ox->id() || e->memlet.isEmpty()) continue;
    if (array.empty()) array = e->memlet.data;
    if (e->memlet.data != array) continue;
    p.between = e;
    ++count;
  }
  if (!p.between) return fail(path, array.empty() ? "the inner map writes nothing out of the outer map" : "the inner map writes no '" + array + "' to the outer map");
  if (count != 1) return fail(path, "the inner map writes '" + array + "' through " + std::to_string(count) + " connectors");
  p.desc = sdfg.findData(array);
  if (!p.desc || p.desc->shape.empty() || !p.desc->wrappers.empty() || !p.desc->rankKnown)
    return fail(path, "'" + array + "' is not an array of known rank");
  if (!p.between->memlet.wcr.empty())
    return fail(path, "'" + array + "' is written with write-conflict resolution (" + p.between->memlet.wcr + ")", "use AccumulateTransient");
  upstream(*st, *ix, p.between->srcConnector, p.inner);
  std::vector<Subset> direct;
  for (auto* e : p.inner) {
    if (e->memlet.isEmpty()) continue;
    if (e->memlet.data != array) return fail(path, "a memlet inside the inner map names '" + e->memlet.data + "'");
    if (!e->memlet.wcr.empty() || e->memlet.dynamic) return fail(path, "'" + array + "' is written with write-conflict resolution or dynamically inside the inner map");
    if (e->dst == ix->id()) direct.push_back(e->memlet.subset);
  }
  if (direct.size() != 1) return fail(path, "the inner map writes '" + array + "' through " + std::to_string(direct.size()) + " edges, not one");
  if (!dense(direct[0], *inner)) return fail(path, "the inner map does not write a dense box of '" + array + "' (" + direct[0].str() + ")", "the copy-out would overwrite elements it never wrote");
  // Nothing else in the outer map touches the array.
  std::set<ElementId> chain;
  for (auto* e : p.inner) chain.insert(e->id());
  chain.insert(p.between->id());
  std::set<ElementId> insideOuter;
  for (Node* n : scope::nodesInside(*st, *outer)) insideOuter.insert(n->id());
  for (auto& e : st->edges())
    if (insideOuter.count(e->dst) && e->memlet.data == array && !chain.count(e->id()))
      return fail(path, "'" + array + "' is also accessed inside the outer map", "a local buffer would hide those accesses");
  for (Node* n : scope::nodesInside(*st, *outer))
    if (auto* a = dynamic_cast<AccessNode*>(n); a && a->data() == array)
      return fail(path, "'" + array + "' has an access node inside the outer map");
  auto box = boxOver(direct, *inner);
  if (!box) return fail(path, "the region the inner map writes cannot be bounded");
  p.box = *box;
  if (p.box.lo.size() != p.desc->shape.size()) return fail(path, "the region of '" + array + "' has the wrong rank");
  sym::Assumptions a = scopeAssumptions(*st, *inner);
  for (size_t k = 0; k < p.box.lo.size(); ++k) {
    auto u = upperBound(p.box.hi[k] - p.box.lo[k], a);
    if (!u || *u < 1) return fail(path, "the region of '" + array + "' written per iteration has no constant size (" + (p.box.hi[k] - p.box.lo[k]).str() + ")", "tile the map first");
    p.shape.emplace_back(*u);
  }
  return p;
}

} // namespace

const Pattern& OutLocalStorage::pattern() const {
  static const Pattern p = Pattern::dataflow({{"inner", {ElementKind::MapExit}}, {"outer", {ElementKind::MapExit}}}, {{0, 1}});
  return p;
}

std::vector<OptionSpec> OutLocalStorage::options() const {
  return {{"array", OptionSpec::Type::Text, "", "the container to buffer (empty: the first one the inner map writes)", {}}};
}

bool OutLocalStorage::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto b = Binding::resolve(match, root);
  if (!b) {
    if (whyNot) whyNot->add(b.error());
    return false;
  }
  auto p = plan(*this, match, *b);
  if (!p) {
    if (whyNot) whyNot->add(p.error());
    return false;
  }
  return true;
}

Expected<void> OutLocalStorage::apply(const Match& match, edit::Editor& ed) const {
  auto b = Binding::resolve(match, ed.root());
  if (!b) return b.takeError();
  auto p = plan(*this, match, *b);
  if (!p) return p.takeError();
  auto* ix = b->get<MapExit>("inner");
  auto* ox = b->get<MapExit>("outer");
  State& st = *b->stateOf("inner");
  Sdfg& sdfg = *owningSdfg(ix);
  const std::string array = p->desc->name();

  auto d = std::make_unique<DataDescriptor>(freshDataName(sdfg, array + "_local"));
  d->dtype = p->desc->dtype;
  d->shape = p->shape;
  d->strides = DataDescriptor::contiguousStrides(d->shape);
  d->transient = true;
  d->lifetime = Lifetime::Scope;
  auto total = d->totalSize().constantValue();
  d->storage = total && *total * int64_t(dtypeSize(d->dtype)) <= 4096 ? StorageType::CpuStack : StorageType::Default;
  const std::string local = d->name();
  ed.addData(sdfg, std::move(d));

  std::vector<Range> region, inBuffer;
  for (size_t k = 0; k < p->box.lo.size(); ++k) {
    region.push_back(Range{p->box.lo[k], p->box.hi[k], 1});
    inBuffer.push_back(Range{0, p->box.hi[k] - p->box.lo[k], 1});
  }
  std::string outConn = p->between->srcConnector, inConn = p->between->dstConnector;
  for (auto* e : p->inner)
    if (!e->memlet.isEmpty()) {
      Memlet m = e->memlet;
      m.data = local;
      m.subset = shiftedBack(m.subset, p->box.lo);
      ed.set(*e, &DataflowEdge::memlet, m);
    }
  ed.removeEdge(st, p->between->id());
  auto* buf = ed.add<AccessNode>(st, local);
  auto* dst = ed.add<AccessNode>(st, array);
  ed.addEdge(st, *ix, outConn, *buf, "", Memlet::simple(local, Subset(inBuffer)));
  Memlet copy = Memlet::simple(local, Subset(inBuffer));
  copy.otherSubset = Subset(region);
  ed.addEdge(st, *buf, "", *dst, "", copy);
  ed.addEdge(st, *dst, "", *ox, inConn, Memlet::simple(array, Subset(region)));
  return {};
}

} // namespace dcw::transforms
