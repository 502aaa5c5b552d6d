#include "transforms/catalogue/MapExpansion.h"

#include "transforms/Binding.h"
#include "transforms/catalogue/ScopeTools.h"

namespace dcw::transforms {

using namespace dcw::ir;

const Pattern& MapExpansion::pattern() const {
  static const Pattern p = Pattern::node("entry", {ElementKind::MapEntry});
  return p;
}

bool MapExpansion::canApply(const Match& match, const Sdfg& root, Diagnostics* whyNot) const {
  auto* me = resolveMapEntry(match, root, "entry", whyNot, /*needsParams=*/false);
  if (!me) return false;
  const std::string& path = match.elements.at("entry");
  if (me->params.size() < 2) {
    if (whyNot) whyNot->error(path, "the map has only one dimension", "expand maps with two or more parameters");
    return false;
  }
  for (size_t d = 0; d < me->params.size(); ++d)
    for (size_t q = d + 1; q < me->params.size(); ++q) {
      const Range& r = me->range[d];
      const std::string& p = me->params[q];
      if (r.begin.freeSymbols().count(p) || r.end.freeSymbols().count(p) || r.step.freeSymbols().count(p)) {
        if (whyNot)
          whyNot->error(path, "the range of " + me->params[d] + " depends on the later parameter " + p,
                        "a nest can only use parameters of enclosing maps");
        return false;
      }
    }
  return true;
}

Expected<void> MapExpansion::apply(const Match& match, edit::Editor& ed) const {
  DCW_TRY(auto b, Binding::resolve(match, ed.root()));
  auto* me = b.get<MapEntry>("entry");
  State& st = *me->parent();
  const std::vector<std::string> params = me->params;
  const Subset range = me->range;
  const Schedule schedule = me->schedule;
  const std::string label = me->label();
  const size_t n = params.size();
  MapEntry* current = me;
  for (size_t d = n - 1; d-- > 0;)
    current = scope::wrapInMap(ed, st, *current, label + "_" + params[d], {params[d]}, Subset({range[d]}),
                               d == 0 ? schedule : Schedule::Sequential);
  ed.set(*me, &MapEntry::params, std::vector<std::string>{params[n - 1]});
  ed.set(*me, &MapEntry::range, Subset({range[n - 1]}));
  ed.set(*me, &MapEntry::schedule, Schedule::Sequential);
  return {};
}

} // namespace dcw::transforms
