#include "core/serialize/Base64.h"

#include <array>
#include <cstdint>

namespace dcw::serialize {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

// Value of each byte in the alphabet, -1 for anything else.
constexpr std::array<int8_t, 256> makeDecodeTable() {
  std::array<int8_t, 256> t{};
  for (auto& v : t) v = -1;
  for (int i = 0; i < 64; ++i) t[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
  return t;
}
constexpr std::array<int8_t, 256> kDecode = makeDecodeTable();

std::string describe(char c) {
  auto u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7f) return std::string("'") + c + "'";
  static const char* hex = "0123456789abcdef";
  return std::string("byte 0x") + hex[u >> 4] + hex[u & 15];
}

Base64Decoded failure(size_t offset, std::string message) {
  Base64Decoded r;
  r.errorOffset = offset;
  r.error = std::move(message);
  return r;
}

} // namespace

std::string base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16 |
                 static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8 |
                 static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 2]));
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = static_cast<uint32_t>(static_cast<unsigned char>(bytes[i])) << 16;
    if (rest == 2) v |= static_cast<uint32_t>(static_cast<unsigned char>(bytes[i + 1])) << 8;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

Base64Decoded base64Decode(std::string_view text) {
  // Padding may only occupy the last one or two characters of the text.
  size_t pad = 0;
  if (!text.empty() && text.back() == '=') pad = (text.size() >= 2 && text[text.size() - 2] == '=') ? 2 : 1;
  size_t dataEnd = text.size() - pad;
  for (size_t i = 0; i < dataEnd; ++i)
    if (kDecode[static_cast<unsigned char>(text[i])] < 0)
      return failure(i, text[i] == '=' ? "padding '=' at offset " + std::to_string(i) + " is not at the end"
                                       : "invalid character " + describe(text[i]) + " at offset " + std::to_string(i));
  if (text.size() % 4 != 0)
    return failure(text.size(), "length " + std::to_string(text.size()) +
                                    " is not a multiple of 4 (the text is truncated or has extra characters)");
  if (pad > 0 && dataEnd % 4 < 2) return failure(dataEnd, "padding '=' at offset " + std::to_string(dataEnd) + " is misplaced");

  Base64Decoded r;
  r.bytes.reserve(text.size() / 4 * 3);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < dataEnd; ++i) {
    acc = (acc << 6) | static_cast<uint32_t>(kDecode[static_cast<unsigned char>(text[i])]);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      r.bytes += static_cast<char>((acc >> bits) & 0xff);
    }
  }
  return r;
}

} // namespace dcw::serialize
