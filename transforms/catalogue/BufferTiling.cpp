#include "transforms/catalogue/BufferTiling.h"

#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/CopyTools.h"
#include "transforms/catalogue/LocalStorageTools.h"
#include "transforms/catalogue/ScopeTools.h"

#include <algorithm>
#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

// Whether `s` is exactly [p0, ..., pn] for the map's parameters.
bool identityIndex(const Subset& s, const MapEntry& m) {
  if (s.rank() != m.params.size()) return false;
  for (size_t k = 0; k < s.rank(); ++k)
    if (!(s[k] == Range::index(sym::Expr::symbol(m.params[k])))) return false;
  return true;
}

struct BufferTilingPlan {
  MapEntry* e1 = nullptr;
  MapExit* x1 = nullptr;
  MapEntry* e2 = nullptr;
  MapExit* x2 = nullptr;
  AccessNode* array = nullptr;
  const DataDescriptor* desc = nullptr;
  std::vector<DataflowEdge*> writes, reads; // memlets on the array inside the two maps
  DataflowEdge* in = nullptr;               // first exit -> array
  DataflowEdge* out = nullptr;              // array -> second entry
  int64_t tile = 32;
};

Expected<BufferTilingPlan> planBufferTiling(const Transformation& t, const Match& match, const Binding& b) {
  const std::string& path = match.elements.at("array");
  BufferTilingPlan p;
  p.x1 = b.get<MapExit>("first_exit");
  p.array = b.get<AccessNode>("array");
  p.e2 = b.get<MapEntry>("second_entry");
  State* st = b.stateOf("array");
  if (!p.x1 || !p.array || !p.e2 || !st) return fail(path, "the match is not map exit -> access node -> map entry");
  p.e1 = dynamic_cast<MapEntry*>(st->node(p.x1->entryId));
  p.x2 = scope::exitOf(*st, *p.e2);
  if (!p.e1 || !p.x2) return fail(path, "a map has no entry or exit");
  try {
    p.tile = std::stoll(t.option(match, "tile_size"));
  } catch (...) {
    return fail(path, "tile_size is not an integer");
  }
  if (p.tile < 1) return fail(path, "tile_size must be at least 1");
  if (scope::enclosing(*st, *p.e1) || scope::enclosing(*st, *p.e2) || scope::enclosing(*st, *p.array))
    return fail(path, "the maps must be at the top level of the state");
  const Sdfg& sdfg = *owningSdfg(p.array);
  p.desc = sdfg.findData(p.array->data());
  const std::string A = p.array->data();
  if (!p.desc || !p.desc->transient || p.desc->constant) return fail(path, "'" + A + "' is not a transient array", "only an internal array can shrink");
  if (p.desc->shape.empty() || !p.desc->rankKnown || !p.desc->wrappers.empty()) return fail(path, "'" + A + "' is not an array of known rank");
  int accesses = 0;
  for (State* s : sdfg.allStates())
    for (auto& n : s->nodes())
      if (auto* a = dynamic_cast<AccessNode*>(n.get()); a && a->data() == A) ++accesses;
  if (accesses != 1) return fail(path, "'" + A + "' is accessed elsewhere too");
  auto ins = st->inEdges(p.array->id());
  auto outs = st->outEdges(p.array->id());
  if (ins.size() != 1 || outs.size() != 1) return fail(path, "'" + A + "' must be written once by the first map and read once by the second");
  p.in = ins[0];
  p.out = outs[0];
  if (p.out->dst != p.e2->id()) return fail(path, "'" + A + "' is not read by the second map");
  for (auto* e : st->outEdges(p.x1->id()))
    if (e != p.in) return fail(path, "the first map writes more than '" + A + "'");
  const size_t rank = p.desc->shape.size();
  for (const MapEntry* m : {p.e1, p.e2}) {
    if (m->params.size() != rank) return fail(path, "map '" + m->label() + "' has " + std::to_string(m->params.size()) + " parameters for an array of rank " + std::to_string(rank));
    for (size_t k = 0; k < rank; ++k) {
      const Range& r = m->range[k];
      if (r.step != sym::Expr(1) || !copy::sameExpr(r.begin, 0) || !copy::sameExpr(r.end, p.desc->shape[k]))
        return fail(path, "map '" + m->label() + "' does not range over the shape of '" + A + "' (" + m->range.str() + ")");
    }
  }
  scope::upstream(*st, *p.x1, p.in->srcConnector, p.writes);
  scope::downstream(*st, *p.e2, p.out->dstConnector, p.reads);
  for (auto* e : p.writes) {
    if (e->memlet.data != A || !e->memlet.wcr.empty()) return fail(path, "the first map writes '" + A + "' with a memlet other than a plain element write");
    if (e->dst == p.x1->id() && !identityIndex(e->memlet.subset, *p.e1))
      return fail(path, "the first map writes '" + A + "' at " + e->memlet.subset.str() + ", not at its own parameters");
  }
  for (auto* e : p.reads) {
    if (e->memlet.data != A) return fail(path, "a memlet inside the second map names '" + e->memlet.data + "'");
    if (e->src == p.e2->id() && !identityIndex(e->memlet.subset, *p.e2))
      return fail(path, "the second map reads '" + A + "' at " + e->memlet.subset.str() + ", not at its own parameters", "neighbouring elements would cross tiles");
  }
  if (p.writes.empty() || p.reads.empty()) return fail(path, "no memlet on '" + A + "' inside the maps");
  return p;
}

} // namespace

const Pattern& BufferTiling::pattern() const {
  static const Pattern p = Pattern::dataflow(
      {{"first_exit", {ElementKind::MapExit}}, {"array", {ElementKind::AccessNode}}, {"second_entry", {ElementKind::MapEntry}}},
      {{0, 1}, {1, 2}});
  return p;
}

std::vector<OptionSpec> BufferTiling::options() const {
  return {{"tile_size", OptionSpec::Type::Int, "32", "elements per dimension of a tile (every dimension)", {}}};
}

bool BufferTiling::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto b = Binding::resolve(match, root);
  return holds(b, whyNot) && holds(planBufferTiling(*this, match, *b), whyNot);
}

Expected<void> BufferTiling::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  DCW_TRY(auto p, planBufferTiling(*this, match, b));
  State& st = *b.stateOf("array");
  Sdfg& sdfg = *owningSdfg(p.array);
  const std::string A = p.array->data();
  const size_t rank = p.desc->shape.size();

  // The outer map over tiles.
  std::vector<std::string> tparams;
  std::vector<Range> tranges;
  std::vector<sym::Expr> origin;
  for (size_t k = 0; k < rank; ++k) {
    std::string q = scope::freshParam(st, *p.e1, p.e1->params[k] + "_tile");
    while (std::count(tparams.begin(), tparams.end(), q) || std::count(p.e2->params.begin(), p.e2->params.end(), q)) q += "_";
    tparams.push_back(q);
    tranges.push_back(Range{0, p.desc->shape[k], sym::Expr(p.tile)});
    origin.push_back(sym::Expr::symbol(q));
  }
  std::string label = p.e1->label() + "_" + p.e2->label() + "_tiles";
  auto* oe = ed.add<MapEntry>(st, label);
  auto* ox = ed.add<MapExit>(st, label);
  oe->params = tparams;
  oe->range = Subset(tranges);
  oe->schedule = p.e1->schedule;
  oe->exitId = ox->id();
  ox->entryId = oe->id();

  // Inputs of both maps (except the array) pass through the outer entry; outputs of the second map
  // leave through the outer exit. Connector names are made unique on the outer map.
  int counter = 0;
  auto reroute = [&](MapEntry& inner) {
    struct Saved {
      ElementId src;
      std::string srcConn, dstConn;
      Memlet m;
      ElementId id;
    };
    std::vector<Saved> saved;
    for (auto* e : st.inEdges(inner.id()))
      if (e != p.out) saved.push_back({e->src, e->srcConnector, e->dstConnector, e->memlet, e->id()});
    for (auto& s : saved) {
      ed.removeEdge(st, s.id);
      if (s.dstConn.empty()) { // an ordering edge
        ed.addEdge(st, *st.node(s.src), s.srcConn, *oe, "", s.m);
        ed.addEdge(st, *oe, "", inner, "", s.m);
        continue;
      }
      std::string c = std::to_string(counter++) + "_" + (s.m.data.empty() ? "dep" : s.m.data);
      ed.addInConnector(*oe, {"IN_" + c});
      ed.addOutConnector(*oe, {"OUT_" + c});
      ed.addEdge(st, *st.node(s.src), s.srcConn, *oe, "IN_" + c, s.m);
      ed.addEdge(st, *oe, "OUT_" + c, inner, s.dstConn, s.m);
    }
  };
  reroute(*p.e1);
  reroute(*p.e2);
  {
    struct Saved {
      ElementId dst;
      std::string srcConn, dstConn;
      Memlet m;
      ElementId id;
    };
    std::vector<Saved> saved;
    for (auto* e : st.outEdges(p.x2->id())) saved.push_back({e->dst, e->srcConnector, e->dstConnector, e->memlet, e->id()});
    for (auto& s : saved) {
      ed.removeEdge(st, s.id);
      std::string c = std::to_string(counter++) + "_" + (s.m.data.empty() ? "dep" : s.m.data);
      ed.addInConnector(*ox, {"IN_" + c});
      ed.addOutConnector(*ox, {"OUT_" + c});
      ed.addEdge(st, *p.x2, s.srcConn, *ox, "IN_" + c, s.m);
      ed.addEdge(st, *ox, "OUT_" + c, *st.node(s.dst), s.dstConn, s.m);
    }
  }
  // If the first map had no input at all, it still must lie inside the outer map.
  if (st.inEdges(p.e1->id()).empty()) ed.addEdge(st, *oe, "", *p.e1, "", Memlet{});

  // Both maps run over one tile.
  std::vector<Range> tileRanges, tileExtent;
  std::vector<sym::Expr> tileShape;
  for (size_t k = 0; k < rank; ++k) {
    sym::Expr end = sym::min(origin[k] + sym::Expr(p.tile), p.desc->shape[k]);
    tileRanges.push_back(Range{origin[k], end, 1});
    tileExtent.push_back(Range{0, end - origin[k], 1});
    auto n = p.desc->shape[k].constantValue();
    tileShape.emplace_back(n && *n < p.tile ? *n : p.tile);
  }
  for (MapEntry* m : {p.e1, p.e2}) {
    ed.set(*m, &MapEntry::range, Subset(tileRanges));
    ed.set(*m, &MapEntry::schedule, Schedule::Sequential);
  }

  // The array shrinks to one tile, indexed relative to the tile's origin.
  const std::string local = localstorage::addScopeBuffer(ed, sdfg, *p.desc, A + "_tile", tileShape);
  auto relative = [&](const Subset& s) {
    Subset r = s;
    for (size_t k = 0; k < r.rank(); ++k) {
      r.ranges()[k].begin = s[k].begin - origin[k];
      r.ranges()[k].end = s[k].end - origin[k];
    }
    return r;
  };
  for (auto* e : p.writes) {
    Memlet m = e->memlet;
    m.data = local;
    m.subset = relative(m.subset);
    ed.set(*e, &DataflowEdge::memlet, m);
  }
  for (auto* e : p.reads) {
    Memlet m = e->memlet;
    m.data = local;
    m.subset = relative(m.subset);
    ed.set(*e, &DataflowEdge::memlet, m);
  }
  ed.set(*p.in, &DataflowEdge::memlet, Memlet::simple(local, Subset(tileExtent)));
  ed.set(*p.out, &DataflowEdge::memlet, Memlet::simple(local, Subset(tileExtent)));
  ed.setAccessData(*p.array, local);
  ed.removeData(sdfg, A);
  return {};
}

} // namespace dcw::transforms
