#include "transforms/catalogue/MapUnroll.h"

#include "core/ir/MapNodes.h"

#include "transforms/Binding.h"

namespace dcw::transforms {

using namespace dcw::ir;

const Pattern& MapUnroll::pattern() const {
  static const Pattern p = Pattern::node("entry", {ElementKind::MapEntry});
  return p;
}

std::vector<OptionSpec> MapUnroll::options() const {
  return {{"max_trip", OptionSpec::Type::Int, "16", "the largest total trip count to unroll", {}}};
}

bool MapUnroll::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto* me = resolveMapEntry(match, root, "entry", whyNot);
  if (!me) return false;
  const std::string& path = match.elements.at("entry");
  if (me->schedule == Schedule::Unrolled) {
    if (whyNot) whyNot->error(path, "the map is already unrolled");
    return false;
  }
  if (me->schedule != Schedule::Default && me->schedule != Schedule::Sequential && me->schedule != Schedule::CpuMulticore) {
    if (whyNot)
      whyNot->error(path, "the map is scheduled as " + std::string(scheduleName(me->schedule)),
                    "only default, sequential and CPU multicore maps can be unrolled");
    return false;
  }
  const int64_t maxTrip = std::stoll(option(match, "max_trip"));
  int64_t total = 1;
  for (size_t d = 0; d < me->params.size(); ++d) {
    auto n = me->range[d].size().evaluate({});
    if (!n) {
      if (whyNot)
        whyNot->error(path, "the trip count of " + me->params[d] + " (" + me->range[d].str() + ") is not a constant",
                      "unroll maps with constant ranges");
      return false;
    }
    total *= std::max<int64_t>(*n, 0);
    if (total > maxTrip) {
      if (whyNot)
        whyNot->error(path, "the map runs more than max_trip = " + std::to_string(maxTrip) + " iterations",
                      "raise max_trip or tile the map first");
      return false;
    }
  }
  return true;
}

Expected<void> MapUnroll::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  ed.set(*b.get<MapEntry>("entry"), &MapEntry::schedule, Schedule::Unrolled);
  return {};
}

} // namespace dcw::transforms
