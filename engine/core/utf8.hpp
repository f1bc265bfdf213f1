#pragma once
// UTF-8 checks for text read from users (specs, names): a file in another
// encoding, or a name with bytes no terminal or file system shows faithfully, is
// refused where it is read, not when a later step chokes on it.
#include <cstddef>
#include <optional>
#include <string_view>

namespace dissect {

// The offset of the first byte that does not belong to a well-formed UTF-8
// sequence (overlong forms, surrogates and code points above U+10FFFF included),
// or nullopt when `text` is valid UTF-8.
std::optional<std::size_t> first_invalid_utf8(std::string_view text);

// When `text` starts with a UTF-16 or UTF-32 byte-order mark, its name
// ("UTF-16LE", ...); else nullptr.
const char* utf16_or_32_bom(std::string_view text);

}  // namespace dissect
