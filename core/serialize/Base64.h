// Base64: standard base64 (RFC 4648 §4: alphabet A-Z a-z 0-9 + /, '=' padding, no line breaks) for
// the binary payloads of `*.dcw.json` files (constant tensors, non-UTF-8 strings). Decoding is
// strict — it accepts exactly what base64Encode produces, modulo non-zero padding bits — and reports
// the offset of the first offending character, so a corrupted file can be pinpointed.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace dcw::serialize {

std::string base64Encode(std::string_view bytes);

struct Base64Decoded {
  std::string bytes;                  // the decoded bytes (empty on failure)
  std::optional<size_t> errorOffset;  // on failure: index of the first invalid character (text.size()
                                      // when the text is truncated, i.e. its length is not a multiple of 4)
  std::string error;                  // on failure: what is wrong, e.g. "invalid character '!' at offset 12"
  bool ok() const { return !errorOffset; }
};

Base64Decoded base64Decode(std::string_view text);

} // namespace dcw::serialize
