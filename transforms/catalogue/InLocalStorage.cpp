#include "transforms/catalogue/InLocalStorage.h"

#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/ScopeTools.h"

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

// ---- box of what a map reads or writes (shared shape with OutLocalStorage.cpp) -------------------

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

// The edges inside map entries fed by `conn` of `n` (transitively through nested entries).
void downstream(const State& st, const Node& n, const std::string& conn, std::vector<DataflowEdge*>& out) {
  if (n.kind() != ElementKind::MapEntry || conn.rfind("IN_", 0) != 0) return;
  std::string o = "OUT_" + conn.substr(3);
  for (auto* e : st.outEdges(n.id()))
    if (e->srcConnector == o) {
      out.push_back(e);
      if (Node* dst = st.node(e->dst)) downstream(st, *dst, e->dstConnector, out);
    }
}

std::string freshDataName(const Sdfg& s, const std::string& base) {
  if (!s.findData(base)) return base;
  for (int i = 1;; ++i)
    if (!s.findData(base + "_" + std::to_string(i))) return base + "_" + std::to_string(i);
}

// ---------------------------------------------------------------------------------------------------

struct Plan {
  DataflowEdge* between = nullptr;     // outer entry -> inner entry, carrying the array
  std::vector<DataflowEdge*> inner;    // memlets on the array inside the inner map
  const DataDescriptor* desc = nullptr;
  Box box;
  std::vector<sym::Expr> shape;        // constant buffer shape
};

Expected<Plan> plan(const Transformation& t, const Match& match, const Binding& b) {
  const std::string& path = match.elements.at("inner");
  auto* outer = b.get<MapEntry>("outer");
  auto* inner = b.get<MapEntry>("inner");
  State* st = b.stateOf("inner");
  if (!outer || !inner || !st || b.stateOf("outer") != st) return fail(path, "`outer` and `inner` must be map entries of one state");
  if (scope::enclosing(*st, *inner) != outer) return fail(path, "the inner map is not directly inside the outer map");
  const Sdfg& sdfg = *owningSdfg(inner);
  std::string array = t.option(match, "array");
  Plan p;
  int count = 0;
  for (auto* e : st->outEdges(outer->id())) {
    if (e->dst != inner->id() || e->memlet.isEmpty()) continue;
    if (array.empty()) array = e->memlet.data;
    if (e->memlet.data != array) continue;
    p.between = e;
    ++count;
  }
  if (!p.between) return fail(path, array.empty() ? "the inner map reads nothing from the outer map" : "the inner map reads no '" + array + "' from the outer map");
  if (count != 1) return fail(path, "the inner map reads '" + array + "' through " + std::to_string(count) + " connectors", "buffer one at a time is not supported");
  p.desc = sdfg.findData(array);
  if (!p.desc || p.desc->shape.empty() || !p.desc->wrappers.empty() || !p.desc->rankKnown)
    return fail(path, "'" + array + "' is not an array of known rank");
  if (!p.between->memlet.wcr.empty()) return fail(path, "the edge carrying '" + array + "' has write-conflict resolution");
  // Nothing inside the outer map writes the array.
  MapExit* ox = scope::exitOf(*st, *outer);
  if (!ox) return fail(path, "the outer map has no exit");
  for (auto* e : st->inEdges(ox->id()))
    if (e->memlet.data == array) return fail(path, "'" + array + "' is also written inside the outer map", "a local copy would go stale");
  for (Node* n : scope::nodesInside(*st, *outer))
    if (auto* a = dynamic_cast<AccessNode*>(n); a && a->data() == array)
      return fail(path, "'" + array + "' has an access node inside the outer map");
  downstream(*st, *inner, p.between->dstConnector, p.inner);
  std::vector<Subset> direct;
  for (auto* e : p.inner) {
    if (e->memlet.isEmpty()) continue;
    if (e->memlet.data != array) return fail(path, "a memlet inside the inner map names '" + e->memlet.data + "'");
    if (!e->memlet.wcr.empty()) return fail(path, "'" + array + "' is written with write-conflict resolution inside the inner map");
    if (e->src == inner->id()) direct.push_back(e->memlet.subset);
  }
  if (auto box = boxOver(direct, *inner)) {
    p.box = *box;
  } else {
    const Subset& s = p.between->memlet.subset;
    for (auto& r : s.ranges()) {
      if (r.step != sym::Expr(1)) return fail(path, "the region of '" + array + "' has a step");
      p.box.lo.push_back(r.begin);
      p.box.hi.push_back(r.end);
    }
  }
  if (p.box.lo.size() != p.desc->shape.size()) return fail(path, "the region of '" + array + "' has the wrong rank");
  sym::Assumptions a = scopeAssumptions(*st, *inner);
  for (size_t k = 0; k < p.box.lo.size(); ++k) {
    auto u = upperBound(p.box.hi[k] - p.box.lo[k], a);
    if (!u || *u < 1) return fail(path, "the region of '" + array + "' read per iteration has no constant size (" + (p.box.hi[k] - p.box.lo[k]).str() + ")", "tile the map first");
    p.shape.emplace_back(*u);
  }
  return p;
}

} // namespace

const Pattern& InLocalStorage::pattern() const {
  static const Pattern p = Pattern::dataflow({{"outer", {ElementKind::MapEntry}}, {"inner", {ElementKind::MapEntry}}}, {{0, 1}});
  return p;
}

std::vector<OptionSpec> InLocalStorage::options() const {
  return {{"array", OptionSpec::Type::Text, "", "the container to buffer (empty: the first one the inner map reads)", {}}};
}

bool InLocalStorage::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
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

Expected<void> InLocalStorage::apply(const Match& match, edit::Editor& ed) const {
  auto b = Binding::resolve(match, ed.root());
  if (!b) return b.takeError();
  auto p = plan(*this, match, *b);
  if (!p) return p.takeError();
  auto* outer = b->get<MapEntry>("outer");
  auto* inner = b->get<MapEntry>("inner");
  State& st = *b->stateOf("inner");
  Sdfg& sdfg = *owningSdfg(inner);
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
  auto* src = ed.add<AccessNode>(st, array);
  auto* buf = ed.add<AccessNode>(st, local);
  ed.addEdge(st, *outer, outConn, *src, "", Memlet::simple(array, Subset(region)));
  Memlet copy = Memlet::simple(array, Subset(region));
  copy.otherSubset = Subset(inBuffer);
  ed.addEdge(st, *src, "", *buf, "", copy);
  ed.addEdge(st, *buf, "", *inner, inConn, Memlet::simple(local, Subset(inBuffer)));
  return {};
}

} // namespace dcw::transforms
