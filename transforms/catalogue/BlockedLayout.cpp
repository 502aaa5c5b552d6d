#include "transforms/catalogue/BlockedLayout.h"

#include "transforms/Matcher.h"
#include "transforms/catalogue/LayoutRegion.h"

#include <set>

namespace dcw::transforms {

namespace {

LayoutTarget targetOf(const BlockedLayout& t, const Match& match) {
  return LayoutTarget{t.option(match, "block") == "8" ? 8 : 16};
}

} // namespace

const Pattern& BlockedLayout::pattern() const {
  static const Pattern p = Pattern::dataflow({{"producer", {ir::ElementKind::LibraryNode}}, {"array", {ir::ElementKind::AccessNode}}}, {{0, 1}});
  return p;
}

std::vector<OptionSpec> BlockedLayout::options() const {
  return {{"block", OptionSpec::Type::Choice, "16", "channels a block: 16 (AVX-512's vector of floats) or 8 (AVX2's)", {"16", "8"}},
          {"region", OptionSpec::Type::Choice, "state", "the matched array and every other array of its state that qualifies (state), or the matched one alone (array)",
           {"state", "array"}}};
}

bool BlockedLayout::canApply(const Match& match, const ir::Sdfg& root, Diagnostics* whyNot) const {
  LayoutPlan p;
  return analyseLayout(match, root, targetOf(*this, match), p, whyNot);
}

Expected<void> BlockedLayout::apply(const Match& match, edit::Editor& ed) const {
  const LayoutTarget target = targetOf(*this, match);
  LayoutPlan plan;
  auto analyse = [&](const Match& m, const ir::Sdfg& root, LayoutPlan& p, Diagnostics* why) { return analyseLayout(m, root, target, p, why); };
  if (auto ok = analyseForApply(analyse, match, ed.root(), plan, "array"); !ok) return ok;
  if (option(match, "region") == "state") {
    // Every other array of the state that qualifies on its own, analysed on the graph as it is now.
    // A group is closed under the nodes that tie arrays together, so two analyses give one group or
    // two that do not meet.
    std::set<std::string> taken;
    for (auto* d : plan.group) taken.insert(d->name());
    MatchQuery q;
    q.anchors = {plan.state};
    for (Match m : enumerateMatches(*this, ed.root(), q)) {
      m.options = match.options;
      LayoutPlan other;
      if (!analyseLayout(m, ed.root(), target, other, nullptr) || other.state != plan.state || taken.count(other.group.front()->name()))
        continue;
      for (auto* d : other.group) {
        taken.insert(d->name());
        plan.group.push_back(d);
      }
      for (auto& [node, edges] : other.rowMajorReaders) plan.rowMajorReaders[node] = edges;
    }
  }
  applyLayout(plan, target, ed);
  return {};
}

} // namespace dcw::transforms
