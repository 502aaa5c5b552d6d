// Sha256: the SHA-256 digest (FIPS 180-4) of bytes or of a file, as lowercase hex. Scripts and
// projects record the source model's digest so a replay can tell when it is given another model.
#pragma once

#include "core/support/Expected.h"

#include <string>
#include <string_view>

namespace dcw {

std::string sha256Hex(std::string_view bytes);
Expected<std::string> sha256File(const std::string& path);

} // namespace dcw
