#include "transforms/ApplyTransformation.h"

#include "transforms/TransformationRegistry.h"

namespace dcw::transforms {

std::string ApplyTransformation::title() const {
  std::string where;
  if (!match_.elements.empty()) {
    const std::string& p = match_.elements.begin()->second;
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

bool ApplyTransformation::keepsDifferentiable() const {
  const Transformation* t = TransformationRegistry::instance().find(match_.transformation);
  return !t || t->keepsDifferentiable();
}

} // namespace dcw::transforms
