#include "engine/core/utf8.hpp"

namespace dissect {

std::optional<std::size_t> first_invalid_utf8(std::string_view text) {
  const auto* s = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = s[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xbf;  // the allowed range of the second byte
    if (c >= 0xc2 && c <= 0xdf) len = 2;
    else if (c == 0xe0) len = 3, lo = 0xa0;
    else if (c == 0xed) len = 3, hi = 0x9f;  // no surrogates
    else if (c >= 0xe1 && c <= 0xef) len = 3;
    else if (c == 0xf0) len = 4, lo = 0x90;
    else if (c == 0xf4) len = 4, hi = 0x8f;  // nothing above U+10FFFF
    else if (c >= 0xf1 && c <= 0xf3) len = 4;
    else return i;
    if (i + len > n) return i;
    if (s[i + 1] < lo || s[i + 1] > hi) return i;
    for (std::size_t k = 2; k < len; ++k)
      if (s[i + k] < 0x80 || s[i + k] > 0xbf) return i;
    i += len;
  }
  return std::nullopt;
}

const char* utf16_or_32_bom(std::string_view t) {
  if (t.starts_with(std::string_view("\xff\xfe\x00\x00", 4))) return "UTF-32LE";
  if (t.starts_with(std::string_view("\x00\x00\xfe\xff", 4))) return "UTF-32BE";
  if (t.starts_with("\xff\xfe")) return "UTF-16LE";
  if (t.starts_with("\xfe\xff")) return "UTF-16BE";
  return nullptr;
}

}  // namespace dissect
