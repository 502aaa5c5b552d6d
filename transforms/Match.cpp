#include "transforms/Match.h"

#include <cctype>

namespace dcw::transforms {

namespace {

bool needsQuotes(const std::string& v) {
  if (v.empty()) return true;
  for (char c : v)
    if (std::isspace(static_cast<unsigned char>(c)) || c == '"' || c == '=' || c == '\\' || c == '#') return true;
  return false;
}

std::string quote(const std::string& v) {
  if (!needsQuotes(v)) return v;
  std::string out = "\"";
  for (char c : v) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

} // namespace

std::string Match::str() const {
  std::string s = transformation;
  for (auto* group : {&elements, &options})
    for (auto& [k, v] : *group) s += " " + k + "=" + quote(v);
  return s;
}

Expected<Match> Match::parse(std::string_view line, const std::string& where,
                             const std::function<bool(const std::string&)>& isSlot) {
  Match m;
  size_t i = 0;
  auto skipSpace = [&] {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
  };
  skipSpace();
  size_t start = i;
  while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
  m.transformation = std::string(line.substr(start, i - start));
  if (m.transformation.empty()) return fail(where, "the line names no transformation", "start the line with a transformation name");
  while (true) {
    skipSpace();
    if (i >= line.size() || line[i] == '#') break;
    size_t ks = i;
    while (i < line.size() && line[i] != '=' && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    std::string key(line.substr(ks, i - ks));
    if (i >= line.size() || line[i] != '=')
      return fail(where, "expected key=value after '" + m.transformation + "', found '" + key + "'", "write key=value");
    ++i;
    std::string value;
    if (i < line.size() && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        char c = line[i++];
        if (c == '\\' && i < line.size()) {
          char n = line[i++];
          value += n == 'n' ? '\n' : n;
        } else if (c == '"') {
          closed = true;
          break;
        } else {
          value += c;
        }
      }
      if (!closed) return fail(where, "the quoted value of '" + key + "' is not closed", "add the closing \"");
    } else {
      size_t vs = i;
      while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      value = std::string(line.substr(vs, i - vs));
    }
    auto& group = isSlot(key) ? m.elements : m.options;
    if (!group.emplace(key, value).second) return fail(where, "'" + key + "' is given twice", "keep one");
  }
  return m;
}

} // namespace dcw::transforms
