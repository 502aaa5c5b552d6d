#include "codegen/cpu/CompilerMessage.h"

#include <cctype>

namespace dcw::codegen {

std::optional<int> errorLineOf(std::string_view msg) {
  for (size_t pos = msg.find(".cpp:"); pos != std::string_view::npos; pos = msg.find(".cpp:", pos + 1)) {
    size_t i = pos + 5;
    int line = 0;
    bool digits = false;
    while (i < msg.size() && std::isdigit(static_cast<unsigned char>(msg[i]))) {
      line = line * 10 + (msg[i] - '0');
      digits = true;
      ++i;
    }
    if (digits && i < msg.size() && msg[i] == ':') return line;
  }
  return std::nullopt;
}

const SourceMapEntry* innermostEntryAt(const std::vector<SourceMapEntry>& map, int line) {
  const SourceMapEntry* best = nullptr;
  for (auto& e : map)
    if (e.firstLine <= line && line <= e.lastLine && (!best || e.lastLine - e.firstLine < best->lastLine - best->firstLine))
      best = &e;
  return best;
}

std::string elementOfCompilerMessage(std::string_view msg, const std::vector<SourceMapEntry>& map) {
  auto line = errorLineOf(msg);
  if (!line) return {};
  const SourceMapEntry* e = innermostEntryAt(map, *line);
  return e ? e->path : std::string();
}

} // namespace dcw::codegen
