#pragma once
// A YAML document kept with the position of every key and value, so that any
// later stage (decoding, sweep expansion, per-point checks) can name the exact
// file:line:col of the value at fault. Includes and --set overrides are merged
// at this level, before anything is typed.
#include <optional>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/diagnostics.hpp"

namespace dissect {

struct SpecNode {
  enum class Kind { null, scalar, sequence, map };
  struct Entry;

  Kind kind = Kind::null;
  std::string scalar;  // for scalars: the text as written
  bool quoted = false; // scalar was quoted ("...") in the source
  std::vector<SpecNode> items;  // for sequences
  std::vector<Entry> entries;   // for maps, in source order
  Location loc;

  [[nodiscard]] bool is_null() const { return kind == Kind::null; }
  [[nodiscard]] bool is_scalar() const { return kind == Kind::scalar; }
  [[nodiscard]] bool is_sequence() const { return kind == Kind::sequence; }
  [[nodiscard]] bool is_map() const { return kind == Kind::map; }

  // Map access (nullptr when absent or not a map).
  [[nodiscard]] const SpecNode* find(const std::string& key) const;
  [[nodiscard]] SpecNode* find(const std::string& key);
  [[nodiscard]] const Entry* find_entry(const std::string& key) const;
  // Dotted path access: "array.size"; a numeric component indexes a list ("phases.1.thread").
  [[nodiscard]] const SpecNode* find_path(const std::string& dotted) const;
  // Creates missing maps along the path; replaces the leaf. Returns false when a
  // component on the way is a non-map value or a list index out of range.
  bool set_path(const std::string& dotted, SpecNode value, const Location& key_loc);
  void set(const std::string& key, SpecNode value, const Location& key_loc);
  void erase(const std::string& key);

  [[nodiscard]] std::vector<std::string> keys() const;
  [[nodiscard]] std::string kind_name() const;

  static SpecNode make_scalar(std::string text, Location loc);
  static SpecNode make_map(Location loc);
};

struct SpecNode::Entry {
  std::string key;
  Location key_loc;
  SpecNode value;
};

// Limits on what a spec may hold, checked before the work they bound: a spec
// file (and each include) is read up to kMaxSpecFileBytes, and its YAML may name
// at most kMaxSpecNodes values with aliases expanded. The library's largest spec
// is a few KiB and a few hundred values.
inline constexpr std::size_t kMaxSpecFileBytes = 1u << 20;
inline constexpr std::size_t kMaxSpecNodes = 1'000'000;
// ... nesting at most kMaxSpecDepth levels (the library's deepest spec nests 5).
inline constexpr std::size_t kMaxSpecDepth = 64;

// Parses YAML text. `file` names the source in locations. Throws SpecError
// (with the YAML parser's line and column) on malformed YAML or duplicate keys.
SpecNode parse_yaml(const std::string& text, const std::string& file);
SpecNode load_yaml_file(const std::string& path);
// Reads a spec (or include) file: at most kMaxSpecFileBytes, UTF-8 (check_spec_text).
// Throws SpecError: file:1:1 for a file too large, the system's reason when unreadable.
std::string read_spec_file(const std::string& path);
// Refuses text that is not UTF-8 (a byte-order mark of UTF-16/32, a NUL byte, an
// invalid sequence), naming the line and column of the first bad byte.
void check_spec_text(std::string_view text, const std::string& file);

// Deep merge: maps merge key by key (overlay wins), anything else is replaced.
SpecNode merge_nodes(const SpecNode& base, const SpecNode& overlay);

// Serialises back to a YAML-compatible flow/block string (for dry-run output
// and the expanded spec in bundles).
std::string to_yaml(const SpecNode& node);

}  // namespace dissect
