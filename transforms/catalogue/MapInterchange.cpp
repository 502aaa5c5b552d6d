#include "transforms/catalogue/MapInterchange.h"

#include "transforms/Binding.h"
#include "transforms/catalogue/ScopeTools.h"

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

// The memlet on the edge entering `entry` at connector `in` (from outside), if any.
const Memlet* outsideMemletIn(const State& st, const MapEntry& entry, const std::string& in) {
  for (auto* e : st.inEdges(entry.id()))
    if (e->dstConnector == in) return &e->memlet;
  return nullptr;
}

const Memlet* outsideMemletOut(const State& st, const MapExit& exit, const std::string& out) {
  for (auto* e : st.outEdges(exit.id()))
    if (e->srcConnector == out) return &e->memlet;
  return nullptr;
}

} // namespace

const Pattern& MapInterchange::pattern() const {
  static const Pattern p =
      Pattern::dataflow({{"outer", {ElementKind::MapEntry}}, {"inner", {ElementKind::MapEntry}}}, {{0, 1}});
  return p;
}

bool MapInterchange::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  MapEntry *outer = nullptr, *inner = nullptr;
  if (!scope::resolvePerfectNest(match, root, whyNot, "interchange two maps with nothing between them", outer, inner)) return false;
  const std::string& path = match.elements.at("outer");
  std::string param;
  if (std::string range = scope::rangeDependingOnOuter(*outer, *inner, &param); !range.empty()) {
    if (whyNot)
      whyNot->error(path, "the inner range " + range + " depends on the outer parameter " + param,
                    "only maps with independent ranges can be interchanged");
    return false;
  }
  return true;
}

Expected<void> MapInterchange::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  auto* outer = b.get<MapEntry>("outer");
  auto* inner = b.get<MapEntry>("inner");
  State& st = *outer->parent();
  MapExit* ox = scope::exitOf(st, *outer);
  MapExit* ix = scope::exitOf(st, *inner);
  // The memlets between the two ends named the old outer parameters; the memlets outside the nest
  // hold for every iteration.
  for (auto* e : st.outEdges(outer->id())) {
    if (e->memlet.isEmpty()) continue;
    if (auto* m = outsideMemletIn(st, *outer, scope::swapPrefix(e->srcConnector, "OUT_", "IN_")); m && *m != e->memlet)
      ed.set(*e, &DataflowEdge::memlet, *m);
  }
  for (auto* e : st.inEdges(ox->id())) {
    if (e->memlet.isEmpty() || e->src != ix->id()) continue;
    if (auto* m = outsideMemletOut(st, *ox, scope::swapPrefix(e->dstConnector, "IN_", "OUT_")); m && *m != e->memlet)
      ed.set(*e, &DataflowEdge::memlet, *m);
  }
  std::vector<std::string> op = outer->params, ip = inner->params;
  Subset orng = outer->range, irng = inner->range;
  ed.set(*outer, &MapEntry::params, ip);
  ed.set(*outer, &MapEntry::range, irng);
  ed.set(*inner, &MapEntry::params, op);
  ed.set(*inner, &MapEntry::range, orng);
  return {};
}

} // namespace dcw::transforms
