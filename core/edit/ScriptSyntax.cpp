#include "core/edit/ScriptSyntax.h"

#include <cctype>

namespace dcw::edit {

static bool isBlank(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::string quoteValue(const std::string& v) {
  bool needs = v.empty();
  for (char c : v)
    if (isBlank(c) || c == '"' || c == '=' || c == '\\' || c == '#') needs = true;
  if (!needs) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

Expected<std::vector<Token>> tokenizeLine(std::string_view line, const std::string& where) {
  std::vector<Token> out;
  size_t i = 0;
  auto readValue = [&](std::string& value) -> Expected<void> {
    if (i < line.size() && line[i] == '"') {
      ++i;
      while (i < line.size()) {
        char c = line[i++];
        if (c == '\\' && i < line.size()) {
          char n = line[i++];
          value += n == 'n' ? '\n' : n;
        } else if (c == '"') {
          return {};
        } else {
          value += c;
        }
      }
      return fail(where, "a quoted value is not closed", "add the closing \"");
    }
    size_t s = i;
    while (i < line.size() && !isBlank(line[i]) && line[i] != '"') ++i;
    value = std::string(line.substr(s, i - s));
    return {};
  };
  while (true) {
    while (i < line.size() && isBlank(line[i])) ++i;
    if (i >= line.size() || line[i] == '#') break;
    Token t;
    if (line[i] != '"') {
      size_t s = i;
      while (i < line.size() && !isBlank(line[i]) && line[i] != '=' && line[i] != '"') ++i;
      if (i < line.size() && line[i] == '=') {
        t.key = std::string(line.substr(s, i - s));
        if (t.key.empty()) return fail(where, "'=' without a key before it", "write key=value");
        ++i;
      } else {
        i = s;
      }
    }
    DCW_CHECK(readValue(t.value));
    if (i < line.size() && !isBlank(line[i]) && line[i] != '#')
      return fail(where, "unexpected '" + std::string(1, line[i]) + "' after '" + t.value + "'",
                  "separate words with blanks; quote values that contain '=' or '\"'");
    out.push_back(std::move(t));
  }
  return out;
}

} // namespace dcw::edit
