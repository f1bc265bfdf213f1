#pragma once
// Names that become file names: a spec's `name` names its bundle directory
// (<out>/<name>), a topology step's id names its bundle. A name is one path
// component, printable and bounded, so that nothing a spec says can write
// outside --out or make a directory no shell can type.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace dissect {

inline constexpr std::size_t kMaxNameBytes = 128;

// Why `name` is not usable as a bundle or step name (one sentence, for
// "name: <why>"), or nullopt when it is: non-empty, at most kMaxNameBytes bytes,
// valid UTF-8 without control characters, no '/' or '\', not "." or "..".
std::optional<std::string> name_problem(std::string_view name);

}  // namespace dissect
