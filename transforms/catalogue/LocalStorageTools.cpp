#include "transforms/catalogue/LocalStorageTools.h"

#include "core/ir/AccessNode.h"
#include "transforms/catalogue/GraphTools.h"
#include "transforms/catalogue/ScopeTools.h"

#include <algorithm>
#include <map>
#include <set>

namespace dcw::transforms::localstorage {

using namespace dcw::ir;

namespace {

bool nonDecreasing(const sym::Expr& e, const std::string& p) {
  if (!e.freeSymbols().count(p)) return true;
  sym::Expr sp = sym::Expr::symbol(p);
  auto d = (e.substitute({{p, sp + 1}}) - e).constantValue();
  return d && *d >= 0;
}

// `s` moved back by `lo` per dimension: a region of the container in the buffer's coordinates.
Subset shiftedBack(const Subset& s, const std::vector<sym::Expr>& lo) {
  Subset r = s;
  for (size_t k = 0; k < r.rank() && k < lo.size(); ++k) {
    r.ranges()[k].begin = s[k].begin - lo[k];
    r.ranges()[k].end = s[k].end - lo[k];
  }
  return r;
}

} // namespace


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

Expected<std::vector<sym::Expr>> bufferShape(const Box& box, const DataDescriptor& desc, const State& st, const MapEntry& inner,
                                             const std::string& path, const std::string& array, const std::string& verb) {
  if (box.lo.size() != desc.shape.size()) return fail(path, "the region of '" + array + "' has the wrong rank");
  sym::Assumptions a = scope::scopeAssumptions(st, inner);
  std::vector<sym::Expr> shape;
  for (size_t k = 0; k < box.lo.size(); ++k) {
    auto u = sym::upperBound(box.hi[k] - box.lo[k], a);
    if (!u || *u < 1)
      return fail(path, "the region of '" + array + "' " + verb + " per iteration has no constant size (" + (box.hi[k] - box.lo[k]).str() + ")", "tile the map first");
    shape.emplace_back(*u);
  }
  return shape;
}

Expected<const DataDescriptor*> bufferableArray(const Sdfg& sdfg, const std::string& array, const std::string& path) {
  const DataDescriptor* d = sdfg.findData(array);
  if (!d || d->shape.empty() || !d->wrappers.empty() || !d->rankKnown) return fail(path, "'" + array + "' is not an array of known rank");
  return d;
}

Expected<NestedExits> resolveNestedExits(const Binding& b, const std::string& path) {
  NestedExits n;
  n.ix = b.get<MapExit>("inner");
  n.ox = b.get<MapExit>("outer");
  n.st = b.stateOf("inner");
  if (!n.ix || !n.ox || !n.st || b.stateOf("outer") != n.st) return fail(path, "`inner` and `outer` must be map exits of one state");
  n.inner = dynamic_cast<MapEntry*>(n.st->node(n.ix->entryId));
  n.outer = dynamic_cast<MapEntry*>(n.st->node(n.ox->entryId));
  if (!n.inner || !n.outer) return fail(path, "a map exit has no entry");
  if (scope::enclosing(*n.st, *n.inner) != n.outer) return fail(path, "the inner map is not directly inside the outer map");
  return n;
}

Expected<void> onlyChainTouches(const State& st, const MapEntry& outer, const std::string& array,
                                const std::vector<DataflowEdge*>& chain, const std::string& path, const std::string& hint) {
  std::set<ElementId> ids;
  for (auto* e : chain) ids.insert(e->id());
  std::set<ElementId> insideOuter;
  for (Node* n : scope::nodesInside(st, outer)) insideOuter.insert(n->id());
  for (auto& e : st.edges())
    if (insideOuter.count(e->dst) && e->memlet.data == array && !ids.count(e->id()))
      return fail(path, "'" + array + "' is also accessed inside the outer map", hint);
  for (Node* n : scope::nodesInside(st, outer))
    if (auto* a = dynamic_cast<AccessNode*>(n); a && a->data() == array)
      return fail(path, "'" + array + "' has an access node inside the outer map");
  return {};
}

BoxRanges rangesOf(const Box& box) {
  BoxRanges r;
  for (size_t k = 0; k < box.lo.size(); ++k) {
    r.region.push_back(Range{box.lo[k], box.hi[k], 1});
    r.inBuffer.push_back(Range{0, box.hi[k] - box.lo[k], 1});
  }
  return r;
}

void redirectIntoBuffer(edit::Editor& ed, const std::vector<DataflowEdge*>& edges, const std::string& buffer, const Box& box) {
  for (auto* e : edges)
    if (!e->memlet.isEmpty()) {
      Memlet m = e->memlet;
      m.data = buffer;
      m.subset = shiftedBack(m.subset, box.lo);
      ed.set(*e, &DataflowEdge::memlet, m);
    }
}

std::string addScopeBuffer(edit::Editor& ed, Sdfg& sdfg, const DataDescriptor& like, const std::string& base,
                           const std::vector<sym::Expr>& shape, StorageType storage) {
  auto d = std::make_unique<DataDescriptor>(graph::freshDataName(sdfg, base));
  d->dtype = like.dtype;
  d->shape = shape;
  d->strides = DataDescriptor::contiguousStrides(shape);
  d->transient = true;
  d->lifetime = Lifetime::Scope;
  auto total = d->totalSize().constantValue();
  d->storage = storage != StorageType::Default ? storage
               : total && *total * int64_t(dtypeSize(d->dtype)) <= 4096 ? StorageType::CpuStack
                                                                         : StorageType::Default;
  std::string name = d->name();
  ed.addData(sdfg, std::move(d));
  return name;
}

} // namespace dcw::transforms::localstorage
