#include "transforms/catalogue/OutLocalStorage.h"

#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/LocalStorageTools.h"
#include "transforms/catalogue/ScopeTools.h"

#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

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

struct OutLocalStoragePlan {
  DataflowEdge* between = nullptr;  // inner exit -> outer exit, carrying the array
  std::vector<DataflowEdge*> inner; // memlets on the array inside the inner map
  const DataDescriptor* desc = nullptr;
  localstorage::Box box;
  std::vector<sym::Expr> shape;     // constant buffer shape
};

Expected<OutLocalStoragePlan> planOutLocalStorage(const Transformation& t, const Match& match, const Binding& b) {
  const std::string& path = match.elements.at("inner");
  DCW_TRY(auto maps, localstorage::resolveNestedExits(b, path));
  auto [st, ix, ox, inner, outer] = maps;
  const Sdfg& sdfg = *owningSdfg(inner);
  std::string array = t.option(match, "array");
  OutLocalStoragePlan p;
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
  DCW_TRY(auto desc, localstorage::bufferableArray(sdfg, array, path));
  p.desc = desc;
  if (!p.between->memlet.wcr.empty())
    return fail(path, "'" + array + "' is written with write-conflict resolution (" + p.between->memlet.wcr + ")", "use AccumulateTransient");
  scope::upstream(*st, *ix, p.between->srcConnector, p.inner);
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
  std::vector<DataflowEdge*> chain = p.inner;
  chain.push_back(p.between);
  DCW_CHECK(localstorage::onlyChainTouches(*st, *outer, array, chain, path, "a local buffer would hide those accesses"));
  auto box = localstorage::boxOver(direct, *inner);
  if (!box) return fail(path, "the region the inner map writes cannot be bounded");
  p.box = *box;
  DCW_TRY(auto shape, localstorage::bufferShape(p.box, *p.desc, *st, *inner, path, array, "written"));
  p.shape = shape;
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
  return holds(b, whyNot) && holds(planOutLocalStorage(*this, match, *b), whyNot);
}

Expected<void> OutLocalStorage::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  DCW_TRY(auto p, planOutLocalStorage(*this, match, b));
  auto* ix = b.get<MapExit>("inner");
  auto* ox = b.get<MapExit>("outer");
  State& st = *b.stateOf("inner");
  Sdfg& sdfg = *owningSdfg(ix);
  const std::string array = p.desc->name();

  const std::string local = localstorage::addScopeBuffer(ed, sdfg, *p.desc, array + "_local", p.shape);

  const auto [region, inBuffer] = localstorage::rangesOf(p.box);
  std::string outConn = p.between->srcConnector, inConn = p.between->dstConnector;
  localstorage::redirectIntoBuffer(ed, p.inner, local, p.box);
  ed.removeEdge(st, p.between->id());
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
