// CompilerMessage: maps a compiler's complaint about generated code back to the element it came
// from — the first `<file>.cpp:LINE:` in the message, then the innermost source-map range holding
// that line — so a failing build selects the node and names its path instead of a line number in a
// file the user never wrote.
#pragma once

#include "codegen/cpu/CppGenerator.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace dcw::codegen {

std::optional<int> errorLineOf(std::string_view compilerMessage);
const SourceMapEntry* innermostEntryAt(const std::vector<SourceMapEntry>& map, int line);
// The element path the message is about, or "" when no line of it maps to one.
std::string elementOfCompilerMessage(std::string_view compilerMessage, const std::vector<SourceMapEntry>& map);

} // namespace dcw::codegen
