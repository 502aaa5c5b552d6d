#include "transforms/catalogue/GpuBlockTiling.h"

#include "core/ir/MapNodes.h"
#include "core/ir/State.h"
#include "transforms/Binding.h"
#include "transforms/OptionList.h"
#include "transforms/catalogue/MapTiling.h"

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

// The tile sizes the match asks for, one per dimension (the default: 256 threads along one dimension,
// 32 x 8 along the last two of more).
std::vector<int64_t> sizesOf(const Match& match, const MapEntry& me) {
  std::vector<int64_t> v;
  auto it = match.options.find("tile_sizes");
  if (it == match.options.end() || it->second.empty()) {
    v.assign(me.params.size(), 1);
    if (v.size() == 1) v[0] = 256;
    else {
      v[v.size() - 2] = 8;
      v[v.size() - 1] = 32;
    }
    return v;
  }
  return perDimension(it->second, me.params.size());
}

std::string text(const std::vector<int64_t>& v) {
  std::string s;
  for (auto x : v) s += (s.empty() ? "" : ",") + std::to_string(x);
  return s;
}

Match tilingMatch(const Match& match, const std::vector<int64_t>& sizes) {
  Match m = match;
  m.transformation = "MapTiling";
  m.options = {{"tile_sizes", text(sizes)}};
  return m;
}

} // namespace

const Pattern& GpuBlockTiling::pattern() const { return MapTiling().pattern(); }

std::vector<OptionSpec> GpuBlockTiling::options() const {
  return {{"tile_sizes", OptionSpec::Type::IntList, "",
           "tile size per dimension, the threads of a block (empty: 256 for one dimension, 32 x 8 for the last two of more)", {}}};
}

bool GpuBlockTiling::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto* me = resolveMapEntry(match, root, "entry", whyNot);
  if (!me) return false;
  const std::string& path = match.elements.at("entry");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  if (me->schedule != Schedule::GpuDevice)
    return fail("the map is not a GPU kernel (its schedule is " + std::string(scheduleName(me->schedule)) + ")",
                "move the model to the GPU first (GpuTransform)");
  const State* st = me->parent();
  auto scopes = st->scopeOf();
  if (scopes)
    for (auto& [id, scope] : *scopes)
      if (scope == me)
        if (auto* inner = dynamic_cast<const MapEntry*>(st->node(id)); inner && inner->schedule == Schedule::GpuThreadBlock)
          return fail("the map runs in thread blocks already");
  auto sizes = sizesOf(match, *me);
  if (sizes.size() != me->params.size())
    return fail("tile_sizes gives " + std::to_string(sizes.size()) + " sizes for a map of " + std::to_string(me->params.size()) +
                    " dimensions",
                "give one size, or one per dimension");
  int64_t threads = 1;
  for (size_t d = 0; d < sizes.size(); ++d) {
    auto n = me->range[d].size().evaluate({});
    threads *= sizes[d] <= 1 ? (n && *n >= 1 ? *n : 1025) : (n ? std::min(*n, sizes[d]) : sizes[d]);
  }
  if (threads > 1024)
    return fail("a tile of " + text(sizes) + " has " + std::to_string(threads) + " points, more than the 1024 threads of a CUDA block",
                "choose smaller tile sizes");
  return MapTiling().canApply(tilingMatch(match, sizes), root, whyNot);
}

Expected<void> GpuBlockTiling::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  auto* me = b.get<MapEntry>("entry");
  if (!me) return fail(match.elements.at("entry"), "not a map entry");
  const auto sizes = sizesOf(match, *me);
  DCW_CHECK(MapTiling().apply(tilingMatch(match, sizes), ed));
  // MapTiling keeps the map as the one over a tile, inside a new map over the tiles (the grid).
  ed.set(*me, &MapEntry::schedule, Schedule::GpuThreadBlock);
  return {};
}

} // namespace dcw::transforms
