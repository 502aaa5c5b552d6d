// libFuzzer target for `.dcwproj` projects (transforms::parseProject, the parse loadProject does):
// any byte string must either parse — and then every step's script lines parse as commands or are
// refused, and the project written back reads back equal — or be refused with a diagnostic.
#include "FuzzCheck.h"

#include "transforms/Project.h"
#include "transforms/Script.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dcw;
  const std::string file = "/fuzz/project.dcwproj";
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto p = transforms::parseProject(text, file);
  if (!p) {
    fuzz::checkRefusal(p.error());
    return 0;
  }
  for (size_t s = 0; s < p->steps.size(); ++s)
    for (const std::string& line : p->steps[s]) {
      auto cmd = transforms::parseCommand(line, file + ": step " + std::to_string(s + 1));
      if (!cmd) fuzz::checkRefusal(cmd.error());
    }
  const std::string written = transforms::projectText(*p, file);
  auto again = transforms::parseProject(written, file);
  if (!again) fuzz::broken("a project written back does not read back: " + again.error().message);
  if (again->model != p->model || again->sha256 != p->sha256 || again->position != p->position || again->steps != p->steps)
    fuzz::broken("a project written back reads back different (model '" + p->model + "' -> '" + again->model + "')");
  return 0;
}
