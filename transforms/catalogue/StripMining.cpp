#include "transforms/catalogue/StripMining.h"

#include "transforms/Binding.h"
#include "transforms/catalogue/ScopeTools.h"

namespace dcw::transforms {

using namespace dcw::ir;

namespace {

// The dimension the option names (negative counts from the end), or -1 when out of range.
int chosenDim(const std::string& text, size_t rank) {
  int64_t d = std::stoll(text);
  if (d < 0) d += static_cast<int64_t>(rank);
  return d < 0 || d >= static_cast<int64_t>(rank) ? -1 : static_cast<int>(d);
}

} // namespace

const Pattern& StripMining::pattern() const {
  static const Pattern p = Pattern::node("entry", {ElementKind::MapEntry});
  return p;
}

std::vector<OptionSpec> StripMining::options() const {
  return {{"dim", OptionSpec::Type::Int, "-1", "the dimension to strip-mine (-1: the last)", {}},
          {"size", OptionSpec::Type::Int, "32", "the strip length (at least 2)", {}}};
}

bool StripMining::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto* me = resolveMapEntry(match, root, "entry", whyNot);
  if (!me) return false;
  const std::string& path = match.elements.at("entry");
  int d = chosenDim(option(match, "dim"), me->params.size());
  if (d < 0) {
    if (whyNot)
      whyNot->error(path, "dim " + option(match, "dim") + " is outside the map's " + std::to_string(me->params.size()) +
                              " dimensions", "choose a dimension from 0 to " + std::to_string(me->params.size() - 1) + " (or -1)");
    return false;
  }
  int64_t size = std::stoll(option(match, "size"));
  if (size < 2) {
    if (whyNot) whyNot->error(path, "the strip size must be at least 2", "choose a larger size");
    return false;
  }
  const Range& r = me->range[d];
  if (r.step != sym::Expr(1)) {
    if (whyNot) whyNot->error(path, "dimension " + me->params[d] + " has a non-unit step (" + r.str() + ")", "strip-mine unit-step dimensions");
    return false;
  }
  for (auto& p : me->params)
    if (r.begin.freeSymbols().count(p) || r.end.freeSymbols().count(p)) {
      if (whyNot)
        whyNot->error(path, "the range of " + me->params[d] + " depends on the map parameter " + p,
                      "only dimensions with ranges independent of the map's parameters can be strip-mined");
      return false;
    }
  if (auto n = r.size().evaluate({}); n && *n <= size) {
    if (whyNot) whyNot->error(path, "dimension " + me->params[d] + " already fits in one strip", "choose a smaller size");
    return false;
  }
  return true;
}

Expected<void> StripMining::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  auto* me = b.get<MapEntry>("entry");
  State& st = *me->parent();
  int d = chosenDim(option(match, "dim"), me->params.size());
  int64_t size = std::stoll(option(match, "size"));
  const Range r = me->range[d];
  std::string sp = scope::freshParam(st, *me, me->params[d] + "_strip");
  sym::Expr s = sym::Expr::symbol(sp);
  Subset inner = me->range;
  inner.ranges()[d] = Range{s, sym::min(s + sym::Expr(size), r.end), sym::Expr(1)};
  scope::wrapInMap(ed, st, *me, me->label() + "_strips", {sp}, Subset({Range{r.begin, r.end, sym::Expr(size)}}),
                   me->schedule);
  ed.set(*me, &MapEntry::range, inner);
  ed.set(*me, &MapEntry::schedule, Schedule::Sequential);
  return {};
}

} // namespace dcw::transforms
