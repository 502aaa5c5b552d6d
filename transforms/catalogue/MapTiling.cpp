#include "transforms/catalogue/MapTiling.h"

#include "transforms/Binding.h"
#include "transforms/OptionList.h"
#include "transforms/catalogue/ScopeTools.h"

namespace dcw::transforms {

using namespace dcw::ir;

const Pattern& MapTiling::pattern() const {
  static const Pattern p = Pattern::node("entry", {ElementKind::MapEntry});
  return p;
}

std::vector<OptionSpec> MapTiling::options() const {
  return {{"tile_sizes", OptionSpec::Type::IntList, "32",
           "tile size per dimension (one value for all; 0 or 1 leaves a dimension untiled)", {}}};
}

bool MapTiling::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto* me = resolveMapEntry(match, root, "entry", whyNot);
  if (!me) return false;
  const std::string& path = match.elements.at("entry");
  for (auto& r : me->range.ranges())
    if (r.step != sym::Expr(1)) {
      if (whyNot) whyNot->error(path, "the map has a non-unit step (" + r.str() + ")", "tile maps with unit steps");
      return false;
    }
  auto sizes = perDimension(option(match, "tile_sizes"), me->params.size());
  if (sizes.size() != me->params.size()) {
    if (whyNot)
      whyNot->error(path, "tile_sizes gives " + std::to_string(sizes.size()) + " sizes for a map of " +
                              std::to_string(me->params.size()) + " dimensions",
                    "give one size, or one per dimension");
    return false;
  }
  bool any = false;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] < 0) {
      if (whyNot) whyNot->error(path, "tile sizes must not be negative");
      return false;
    }
    if (sizes[d] <= 1) continue;
    auto n = me->range[d].size().evaluate({});
    if (!n || *n > sizes[d]) any = true;
  }
  if (!any) {
    if (whyNot) whyNot->error(path, "every dimension already fits in one tile", "choose smaller tile sizes");
    return false;
  }
  return true;
}

Expected<void> MapTiling::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  auto* me = b.get<MapEntry>("entry");
  State& st = *me->parent();
  auto sizes = perDimension(option(match, "tile_sizes"), me->params.size());
  std::vector<std::string> outerParams;
  std::vector<Range> outerRanges, innerRanges;
  for (size_t d = 0; d < me->params.size(); ++d) {
    const Range& r = me->range[d];
    auto n = r.size().evaluate({});
    if (sizes[d] <= 1 || (n && *n <= sizes[d])) {
      innerRanges.push_back(r);
      continue;
    }
    std::string tp = scope::freshParam(st, *me, me->params[d] + "_tile");
    sym::Expr t = sym::Expr::symbol(tp);
    outerParams.push_back(tp);
    outerRanges.push_back(Range{r.begin, r.end, sym::Expr(sizes[d])});
    sym::Expr end = sym::min(t + sym::Expr(sizes[d]), r.end);
    innerRanges.push_back(Range{t, end, sym::Expr(1)});
  }
  Schedule outer = me->schedule;
  scope::wrapInMap(ed, st, *me, me->label() + "_tiles", outerParams, Subset(outerRanges), outer);
  ed.set(*me, &MapEntry::range, Subset(innerRanges));
  ed.set(*me, &MapEntry::schedule, Schedule::Sequential);
  return {};
}

} // namespace dcw::transforms
