#include "transforms/catalogue/ChannelsLast.h"

#include "transforms/catalogue/LayoutRegion.h"

namespace dcw::transforms {

const Pattern& ChannelsLast::pattern() const {
  static const Pattern p = Pattern::dataflow({{"producer", {ir::ElementKind::LibraryNode}}, {"array", {ir::ElementKind::AccessNode}}}, {{0, 1}});
  return p;
}

bool ChannelsLast::canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const {
  LayoutPlan p;
  return analyseLayout(match, root, LayoutTarget{}, p, whyNot);
}

Expected<void> ChannelsLast::apply(const Match& match, edit::Editor& ed) const {
  LayoutPlan p;
  auto analyse = [](const Match& m, const ir::Sdfg& root, LayoutPlan& plan, Diagnostics* why) {
    return analyseLayout(m, root, LayoutTarget{}, plan, why);
  };
  if (auto ok = analyseForApply(analyse, match, ed.root(), p, "array"); !ok) return ok;
  applyLayout(p, LayoutTarget{}, ed);
  return {};
}

} // namespace dcw::transforms
