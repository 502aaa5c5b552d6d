// libFuzzer target for the tasklet language (tasklet::parse): any byte string must either parse —
// and then print canonically, reparse to the same text, and go through the name analyses — or be
// refused with a diagnostic naming line and column; never crash or recurse without bound.
#include "FuzzCheck.h"

#include "core/tasklet/TaskletCode.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dcw;
  std::string_view code(reinterpret_cast<const char*>(data), size);
  auto p = tasklet::parse(code, "main/state0/fuzz");
  if (!p) {
    fuzz::checkRefusal(p.error());
    return 0;
  }
  const std::string printed = p->str();
  auto again = tasklet::parse(printed, "printed");
  if (!again) fuzz::broken("the printed program does not parse: " + again.error().message + "\n" + printed);
  if (again->str() != printed) fuzz::broken("the printed program reads back different:\n" + printed + "\n---\n" + again->str());
  for (const std::string& n : tasklet::readNames(*p)) (void)tasklet::isFunction(n);
  (void)tasklet::writtenNames(*p);
  return 0;
}
