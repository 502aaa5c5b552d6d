#include "transforms/ApplyTransformation.h"

#include "core/ir/ModulePath.h"
#include "transforms/ModuleScope.h"
#include "transforms/TransformationRegistry.h"

namespace dcw::transforms {

std::string ApplyTransformation::title() const {
  std::string where;
  if (!match_.elements.empty()) {
    std::string p = match_.elements.begin()->second;
    for (auto& [slot, path] : match_.elements)
      if (auto a = ir::parseModuleAddress(path)) p = "module " + a->module; // every op of a module group
    size_t cut = p.rfind('/');
    if (cut != std::string::npos && cut > 0) cut = p.rfind('/', cut - 1);
    where = " on " + (cut == std::string::npos ? p : p.substr(cut + 1));
  }
  std::string opts;
  for (auto& [k, v] : match_.options) opts += (opts.empty() ? " (" : ", ") + k + "=" + v;
  return match_.transformation + where + (opts.empty() ? "" : opts + ")");
}

Expected<void> ApplyTransformation::execute(edit::Editor& editor) const {
  const Transformation* t = TransformationRegistry::instance().find(match_.transformation);
  std::string where = match_.elements.empty() ? match_.transformation : match_.elements.begin()->second;
  if (!t) return fail(match_.transformation, "no transformation is called '" + match_.transformation + "'",
                      "`dcw transforms --list` lists them");
  for (auto& [slot, path] : match_.elements)
    if (!t->pattern().hasSlot(slot))
      return fail(where, match_.transformation + " has no pattern slot '" + slot + "'", "its pattern is " + t->pattern().describe());
  DCW_TRY(std::string groupSlot, moduleSlot(match_, where));
  if (!groupSlot.empty()) return executeInModule(*t, groupSlot, editor);
  for (auto& s : t->pattern().slots())
    if (!match_.elements.count(s.name))
      return fail(where, match_.transformation + " needs the slot '" + s.name + "'", "its pattern is " + t->pattern().describe());
  if (auto r = t->checkOptions(match_, where); !r) return r;
  Diagnostics why;
  if (!t->canApply(match_, editor.root(), &why)) {
    const Diagnostic* d = why.firstError();
    return fail(d && !d->location.empty() ? d->location : where,
                match_.transformation + " does not apply here: " + (d ? d->message : "its preconditions do not hold"),
                d ? d->hint : "");
  }
  return t->apply(match_, editor);
}

Expected<void> ApplyTransformation::executeInModule(const Transformation& t, const std::string& slot, edit::Editor& editor) const {
  const std::string& address = match_.elements.at(slot);
  if (auto r = t.checkOptions(match_, address); !r) return r;
  DCW_TRY(auto matches, matchesInModule(t, match_, slot, editor.root()));
  // Each match is checked against the model as the ones before it left it.
  size_t applied = 0;
  Diagnostics first;
  for (const Match& m : matches) {
    if (!t.canApply(m, editor.root(), first.empty() ? &first : nullptr)) continue;
    DCW_CHECK(t.apply(m, editor));
    ++applied;
  }
  if (applied > 0) return {};
  if (const Diagnostic* d = first.firstError())
    return fail(address, match_.transformation + " applies to no op of this module group; the first: " +
                             (d->location.empty() ? "" : d->location + ": ") + d->message, d->hint);
  return fail(address, "no op of this module group fits " + match_.transformation + "'s pattern " + t.pattern().describe(),
              "select the module on the canvas to see what applies to its ops");
}

bool ApplyTransformation::keepsDifferentiable() const {
  const Transformation* t = TransformationRegistry::instance().find(match_.transformation);
  return !t || t->keepsDifferentiable();
}

} // namespace dcw::transforms
