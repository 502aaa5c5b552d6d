// libFuzzer target for DCW scripts (transforms::parseScript, the parse readScript does) and for
// single command lines (transforms::parseCommand, used by scripts and projects): any byte string must
// either parse — and then every step's printed line parses back to the same line — or be refused
// with a diagnostic. Also checks that every value quoteValue writes tokenizes back unchanged.
#include "FuzzCheck.h"

#include "core/edit/ScriptSyntax.h"
#include "transforms/Script.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace {

using namespace dcw;

void roundTripLine(const edit::Command& cmd) {
  const std::string line = cmd.scriptLine();
  auto again = transforms::parseCommand(line, "printed");
  if (!again) fuzz::broken("the printed step '" + line + "' does not parse: " + again.error().message);
  if ((*again)->scriptLine() != line) fuzz::broken("the printed step '" + line + "' reads back as '" + (*again)->scriptLine() + "'");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto s = transforms::parseScript(text, "fuzz.dcws");
  if (!s) fuzz::checkRefusal(s.error());
  else
    for (auto& step : s->steps) roundTripLine(*step.command);

  // Each line on its own as a command line, and its tokens' values through quoteValue and back.
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    auto cmd = transforms::parseCommand(line, "fuzz.dcws:1");
    if (!cmd) fuzz::checkRefusal(cmd.error());
    else roundTripLine(**cmd);
    auto tokens = edit::tokenizeLine(line, "fuzz.dcws:1");
    if (!tokens) {
      fuzz::checkRefusal(tokens.error());
      continue;
    }
    for (const edit::Token& t : *tokens) {
      const std::string quoted = edit::quoteValue(t.value);
      auto back = edit::tokenizeLine(quoted, "quoted");
      if (!back || back->size() != 1 || (*back)[0].hasKey() || (*back)[0].value != t.value)
        fuzz::broken("quoteValue('" + t.value + "') = '" + quoted + "' does not tokenize back to the value");
    }
  }
  return 0;
}
