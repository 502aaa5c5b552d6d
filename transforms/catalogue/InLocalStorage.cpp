#include "transforms/catalogue/InLocalStorage.h"

#include "core/ir/AccessNode.h"
#include "core/ir/MapNodes.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/LocalStorageTools.h"
#include "transforms/catalogue/ScopeTools.h"

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

struct InLocalStoragePlan {
  DataflowEdge* between = nullptr;     // outer entry -> inner entry, carrying the array
  std::vector<DataflowEdge*> inner;    // memlets on the array inside the inner map
  const DataDescriptor* desc = nullptr;
  localstorage::Box box;
  std::vector<sym::Expr> shape;        // constant buffer shape
};

Expected<InLocalStoragePlan> planInLocalStorage(const Transformation& t, const Match& match, const Binding& b) {
  const std::string& path = match.elements.at("inner");
  auto* outer = b.get<MapEntry>("outer");
  auto* inner = b.get<MapEntry>("inner");
  State* st = b.stateOf("inner");
  if (!outer || !inner || !st || b.stateOf("outer") != st) return fail(path, "`outer` and `inner` must be map entries of one state");
  if (scope::enclosing(*st, *inner) != outer) return fail(path, "the inner map is not directly inside the outer map");
  const Sdfg& sdfg = *owningSdfg(inner);
  std::string array = t.option(match, "array");
  InLocalStoragePlan p;
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
  DCW_TRY(auto desc, localstorage::bufferableArray(sdfg, array, path));
  p.desc = desc;
  if (!p.between->memlet.wcr.empty()) return fail(path, "the edge carrying '" + array + "' has write-conflict resolution");
  // Nothing inside the outer map writes the array.
  MapExit* ox = scope::exitOf(*st, *outer);
  if (!ox) return fail(path, "the outer map has no exit");
  for (auto* e : st->inEdges(ox->id()))
    if (e->memlet.data == array) return fail(path, "'" + array + "' is also written inside the outer map", "a local copy would go stale");
  for (Node* n : scope::nodesInside(*st, *outer))
    if (auto* a = dynamic_cast<AccessNode*>(n); a && a->data() == array)
      return fail(path, "'" + array + "' has an access node inside the outer map");
  scope::downstream(*st, *inner, p.between->dstConnector, p.inner);
  std::vector<Subset> direct;
  for (auto* e : p.inner) {
    if (e->memlet.isEmpty()) continue;
    if (e->memlet.data != array) return fail(path, "a memlet inside the inner map names '" + e->memlet.data + "'");
    if (!e->memlet.wcr.empty()) return fail(path, "'" + array + "' is written with write-conflict resolution inside the inner map");
    if (e->src == inner->id()) direct.push_back(e->memlet.subset);
  }
  if (auto box = localstorage::boxOver(direct, *inner)) {
    p.box = *box;
  } else {
    const Subset& s = p.between->memlet.subset;
    for (auto& r : s.ranges()) {
      if (r.step != sym::Expr(1)) return fail(path, "the region of '" + array + "' has a step");
      p.box.lo.push_back(r.begin);
      p.box.hi.push_back(r.end);
    }
  }
  DCW_TRY(auto shape, localstorage::bufferShape(p.box, *p.desc, *st, *inner, path, array, "read"));
  p.shape = shape;
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
  return holds(b, whyNot) && holds(planInLocalStorage(*this, match, *b), whyNot);
}

Expected<void> InLocalStorage::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  DCW_TRY(auto p, planInLocalStorage(*this, match, b));
  auto* outer = b.get<MapEntry>("outer");
  auto* inner = b.get<MapEntry>("inner");
  State& st = *b.stateOf("inner");
  Sdfg& sdfg = *owningSdfg(inner);
  const std::string array = p.desc->name();

  // On the GPU, a tile that a thread block's threads read goes into the block's shared memory.
  const bool shared = outer->schedule == Schedule::GpuDevice && inner->schedule == Schedule::GpuThreadBlock;
  const std::string local = localstorage::addScopeBuffer(ed, sdfg, *p.desc, array + "_local", p.shape,
                                                         shared ? StorageType::GpuShared : StorageType::Default);

  const auto [region, inBuffer] = localstorage::rangesOf(p.box);
  std::string outConn = p.between->srcConnector, inConn = p.between->dstConnector;
  localstorage::redirectIntoBuffer(ed, p.inner, local, p.box);
  ed.removeEdge(st, p.between->id());
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
