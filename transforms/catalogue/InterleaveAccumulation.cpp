#include "transforms/catalogue/InterleaveAccumulation.h"

#include "core/ir/MapNodes.h"
#include "core/ir/State.h"
#include "transforms/Binding.h"
#include "transforms/catalogue/ScopeTools.h"

#include <algorithm>
#include <set>

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

struct InterleaveAccumulationPlan {
  MapEntry* entry = nullptr;
  size_t move = 0; // the parameter that becomes innermost
};

bool analyseInterleaveAccumulation(const Match& match, const Sdfg& root, InterleaveAccumulationPlan& p, Diagnostics* whyNot) {
  p.entry = resolveMapEntry(match, root, "entry", whyNot);
  if (!p.entry) return false;
  const std::string& path = match.elements.at("entry");
  auto fail = [&](const std::string& msg, const std::string& hint = {}) {
    if (whyNot) whyNot->error(path, msg, hint);
    return false;
  };
  const MapEntry& me = *p.entry;
  const size_t n = me.params.size();
  if (n < 2) return fail("the map has one parameter: there is no other to put innermost");
  const std::set<std::string> params(me.params.begin(), me.params.end());
  for (size_t d = 0; d < n; ++d)
    for (const sym::Expr* e : {&me.range[d].begin, &me.range[d].end, &me.range[d].step})
      for (auto& f : e->freeSymbols())
        if (params.count(f)) return fail("the range of " + me.params[d] + " depends on " + f, "the parameters can then not be reordered");
  // The accumulating writes leaving the map's body (into its exit), and which of its parameters each uses.
  const State& st = *me.parent();
  const MapExit* exit = scope::exitOf(st, me);
  if (!exit) return fail("the map has no exit");
  std::vector<std::set<std::string>> uses;
  for (auto* e : st.inEdges(exit->id())) {
    if (e->memlet.isEmpty() || e->memlet.wcr.empty()) continue;
    const std::string& w = e->memlet.wcr;
    if (w != "sum" && w != "prod" && w != "min" && w != "max")
      return fail("the write into '" + e->memlet.data + "' resolves conflicts with '" + w + "', which need not be associative");
    uses.push_back(e->memlet.subset.freeSymbols());
  }
  if (uses.empty()) return fail("nothing leaving the map accumulates (write-conflict resolution)");
  const std::string& innermost = me.params.back();
  bool waits = false;
  for (auto& u : uses) waits = waits || !u.count(innermost);
  if (!waits) return fail("every accumulation changes its element with the innermost parameter " + innermost + " already");
  auto usable = [&](size_t d, std::string* why) {
    const std::string& q = me.params[d];
    for (auto& u : uses)
      if (!u.count(q)) {
        if (why) *why = "an accumulated element does not depend on " + q;
        return int64_t(0);
      }
    auto trips = me.range[d].size().constantValue();
    if (!trips || *trips < 2) {
      if (why) *why = q + " has no constant trip count of 2 or more";
      return int64_t(0);
    }
    return *trips;
  };
  if (auto it = match.options.find("innermost"); it != match.options.end() && !it->second.empty()) {
    auto at = std::find(me.params.begin(), me.params.end(), it->second);
    if (at == me.params.end()) return fail("the map has no parameter " + it->second);
    std::string why;
    if (!usable(size_t(at - me.params.begin()), &why)) return fail("innermost=" + it->second + ": " + why);
    if (size_t(at - me.params.begin()) == n - 1) return fail(it->second + " is innermost already");
    p.move = size_t(at - me.params.begin());
    return true;
  }
  int64_t best = 0;
  for (size_t d = 0; d + 1 < n; ++d)
    if (int64_t t = usable(d, nullptr); t > best) {
      best = t;
      p.move = d;
    }
  if (!best) return fail("no parameter that every accumulated element depends on has a constant trip count of 2 or more");
  return true;
}

} // namespace

const Pattern& InterleaveAccumulation::pattern() const {
  static const Pattern p = Pattern::node("entry", {ElementKind::MapEntry});
  return p;
}

std::vector<OptionSpec> InterleaveAccumulation::options() const {
  return {{"innermost", OptionSpec::Type::Text, "",
           "the parameter to put innermost (empty: of those every accumulated element depends on, the one with the most trips)",
           {}}};
}

bool InterleaveAccumulation::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  InterleaveAccumulationPlan p;
  return analyseInterleaveAccumulation(match, root, p, whyNot);
}

Expected<void> InterleaveAccumulation::apply(const Match& match, edit::Editor& ed) const {
  InterleaveAccumulationPlan p;
  Diagnostics why;
  if (!analyseInterleaveAccumulation(match, ed.root(), p, &why))
    return fail(match.elements.at("entry"), why.firstError() ? why.firstError()->message : "does not apply");
  MapEntry& me = *p.entry;
  std::vector<std::string> params = me.params;
  std::vector<Range> ranges = me.range.ranges();
  const std::string q = params[p.move];
  const Range r = ranges[p.move];
  params.erase(params.begin() + long(p.move));
  ranges.erase(ranges.begin() + long(p.move));
  params.push_back(q);
  ranges.push_back(r);
  ed.set(me, &MapEntry::params, params);
  ed.set(me, &MapEntry::range, Subset(ranges));
  return {};
}

} // namespace dcw::transforms
