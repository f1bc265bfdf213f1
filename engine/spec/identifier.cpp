#include "engine/spec/identifier.hpp"

#include "engine/core/utf8.hpp"

namespace dissect {

std::optional<std::string> name_problem(std::string_view name) {
  if (name.empty()) return "is empty";
  if (name.size() > kMaxNameBytes)
    return "is " + std::to_string(name.size()) + " bytes long; at most " + std::to_string(kMaxNameBytes) +
           " are allowed (it names a directory)";
  if (name == "." || name == "..")
    return "'" + std::string(name) + "' is not a name (it names a directory: the bundle must go to a fresh one under --out)";
  if (first_invalid_utf8(name)) return "is not valid UTF-8";
  for (const char c : name) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '/' || c == '\\')
      return "'" + std::string(name) + "' holds '" + std::string(1, c) +
             "': a name is one directory name, not a path";
    if (u < 0x20 || u == 0x7f) return "holds a control character (byte " + std::to_string(u) + ")";
  }
  return std::nullopt;
}

}  // namespace dissect
