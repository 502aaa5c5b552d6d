#include "transforms/Match.h"

#include "core/edit/ScriptSyntax.h"

namespace dcw::transforms {

std::string Match::str() const {
  std::string s = transformation;
  for (auto* group : {&elements, &options})
    for (auto& [k, v] : *group) s += " " + k + "=" + edit::quoteValue(v);
  return s;
}

Expected<Match> Match::parse(std::string_view line, const std::string& where,
                             const std::function<bool(const std::string&)>& isSlot) {
  DCW_TRY(auto tokens, edit::tokenizeLine(line, where));
  if (tokens.empty() || tokens.front().hasKey())
    return fail(where, "the line names no transformation", "start the line with a transformation name");
  Match m;
  m.transformation = tokens.front().value;
  for (size_t i = 1; i < tokens.size(); ++i) {
    auto& t = tokens[i];
    if (!t.hasKey())
      return fail(where, "expected key=value after '" + m.transformation + "', found '" + t.value + "'", "write key=value");
    auto& group = isSlot(t.key) ? m.elements : m.options;
    if (!group.emplace(t.key, t.value).second) return fail(where, "'" + t.key + "' is given twice", "keep one");
  }
  return m;
}

} // namespace dcw::transforms
