// ScriptSyntax: the lexical form shared by every line of a DCW script and by Match::str — words
// separated by blanks, `key=value` pairs, values double-quoted (backslash escapes) when they hold
// blanks, quotes, '=' or '#', and `#` starting a comment outside quotes.
//   apply MapTiling entry=main/state0/map_oc tile_sizes=32,32
//   set main/state0/map_oc schedule=CpuMulticore   # comment
#pragma once

#include "core/support/Expected.h"

#include <string>
#include <string_view>
#include <vector>

namespace dcw::edit {

struct Token {
  std::string key;   // empty for a plain word
  std::string value;
  bool hasKey() const { return !key.empty(); }
};

// Splits one line; `where` ("opt.dcws:12") locates errors. An empty or comment-only line gives no tokens.
Expected<std::vector<Token>> tokenizeLine(std::string_view line, const std::string& where);
// The value as it must be written to read back unchanged.
std::string quoteValue(const std::string& value);

} // namespace dcw::edit
