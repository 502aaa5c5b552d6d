// libFuzzer target for the `*.dcw.json` loader (serialize::fromJson): any byte string must either
// load — and then validate, save, and load again to the very same text — or be refused with a
// diagnostic; never crash, throw, hang or recurse without bound.
#include "FuzzCheck.h"

#include "core/ir/Validate.h"
#include "core/serialize/JsonFormat.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = dcw::serialize::fromJson(text, "fuzz.dcw.json");
  if (!r) {
    dcw::fuzz::checkRefusal(r.error());
    return 0;
  }
  (void)dcw::ir::validate(**r);
  const std::string saved = dcw::serialize::toJson(**r);
  auto again = dcw::serialize::fromJson(saved, "saved.dcw.json");
  if (!again) dcw::fuzz::broken("a loaded file saved as text that does not load: " + again.error().message);
  if (dcw::serialize::toJson(**again) != saved) dcw::fuzz::broken("save(load(save(x))) differs from save(x)");
  return 0;
}
