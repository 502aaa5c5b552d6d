#include "transforms/Transformation.h"

#include "transforms/OptionList.h"

#include <charconv>

namespace dcw::transforms {

std::string_view optionTypeName(OptionSpec::Type t) {
  switch (t) {
  case OptionSpec::Type::Int: return "int";
  case OptionSpec::Type::IntList: return "int list";
  case OptionSpec::Type::Bool: return "bool";
  case OptionSpec::Type::Choice: return "choice";
  case OptionSpec::Type::Text: return "text";
  }
  return "?";
}

std::string Transformation::option(const Match& match, const std::string& name) const {
  if (auto it = match.options.find(name); it != match.options.end()) return it->second;
  for (auto& o : options())
    if (o.name == name) return o.defaultValue;
  return {};
}

static bool isInt(std::string_view s) {
  long long v;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return !s.empty() && r.ec == std::errc() && r.ptr == s.data() + s.size();
}

Expected<void> Transformation::checkOptions(const Match& match, const std::string& where) const {
  auto specs = options();
  for (auto& [k, v] : match.options) {
    const OptionSpec* spec = nullptr;
    for (auto& o : specs)
      if (o.name == k) spec = &o;
    if (!spec) {
      std::string known;
      for (auto& o : specs) known += (known.empty() ? "" : ", ") + o.name;
      return fail(where, std::string(name()) + " has no option or slot '" + k + "'",
                  known.empty() ? "it takes no options" : "its options are: " + known);
    }
    bool ok = true;
    switch (spec->type) {
    case OptionSpec::Type::Int: ok = isInt(v); break;
    case OptionSpec::Type::IntList: ok = intListItems(v).has_value(); break;
    case OptionSpec::Type::Bool: ok = v == "true" || v == "false"; break;
    case OptionSpec::Type::Choice: {
      ok = false;
      for (auto& c : spec->choices) ok = ok || c == v;
      break;
    }
    case OptionSpec::Type::Text: break;
    }
    if (!ok) {
      std::string expect = spec->type == OptionSpec::Type::Choice ? "one of" : std::string(optionTypeName(spec->type));
      for (auto& c : spec->choices) expect += " " + c;
      if (spec->type == OptionSpec::Type::IntList) expect = "integers separated by commas";
      return fail(where, "option " + k + "=" + v + " of " + std::string(name()) + " is not valid", "expected " + expect);
    }
  }
  return {};
}

} // namespace dcw::transforms
