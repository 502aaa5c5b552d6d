#include "codegen/Identifier.h"

#include <array>
#include <cctype>

namespace dcw::codegen {

namespace {
constexpr std::array<std::string_view, 97> kKeywords{
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char",
    "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr", "constinit",
    "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
    "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if",
    "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or",
    "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "requires", "return", "short", "signed",
    "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
    "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void",
    "volatile", "wchar_t", "while", "xor", "xor_eq", "main", "restrict", "__global__", "__device__"};
// Names that the runtime environments' helpers have and that tasklet code uses unqualified (oneDNN
// calls: `plain(dims{..})`, `engine`, `tag::any`): a model array so named would hide them in the
// tasklet's scope ("'dims' is not captured" in a data-dependent model with an array `dims`).
constexpr std::array<std::string_view, 9> kHelperNames{"dims", "dt", "tag", "plain", "strided", "blocked", "any", "view", "engine"};
} // namespace

bool isSafeIdentifier(std::string_view s) {
  if (s.empty() || s.size() > 200) return false;
  if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  if (s.size() >= 2 && s[0] == '_' && (s[1] == '_' || std::isupper(static_cast<unsigned char>(s[1])))) return false;
  if (s.find("__") != std::string_view::npos) return false;
  for (auto k : kKeywords)
    if (k == s) return false;
  for (auto k : kHelperNames)
    if (k == s) return false;
  return true;
}

const std::string& IdentifierTable::get(const std::string& name) {
  auto it = byName_.find(name);
  if (it != byName_.end()) return it->second;
  std::string base;
  for (char c : name) {
    bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_';
    char ch = ok ? c : '_';
    if (ch == '_' && !base.empty() && base.back() == '_') continue; // no "__"
    base += ch;
  }
  while (!base.empty() && base.front() == '_') base.erase(base.begin());
  if (base.size() > 64) base.resize(64);
  while (!base.empty() && base.back() == '_') base.pop_back();
  if (base.empty() || std::isdigit(static_cast<unsigned char>(base[0]))) base = "v_" + base;
  if (!isSafeIdentifier(base)) base = "v_" + base;
  std::string id = base;
  if (used_.count(id) || !isSafeIdentifier(id)) {
    int& k = nextSuffix_.try_emplace(base, 1).first->second; // names are only added: resume the search
    for (; id = base + "_" + std::to_string(k), used_.count(id) || !isSafeIdentifier(id); ++k) {}
    ++k;
  }
  used_.insert(id);
  return byName_.emplace(name, id).first->second;
}

} // namespace dcw::codegen
