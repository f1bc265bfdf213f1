#include "engine/spec/spec_node.hpp"

#include <yaml-cpp/yaml.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/core/files.hpp"
#include "engine/core/utf8.hpp"

namespace dissect {

const SpecNode* SpecNode::find(const std::string& key) const {
  if (kind != Kind::map) return nullptr;
  for (const auto& e : entries)
    if (e.key == key) return &e.value;
  return nullptr;
}

SpecNode* SpecNode::find(const std::string& key) {
  if (kind != Kind::map) return nullptr;
  for (auto& e : entries)
    if (e.key == key) return &e.value;
  return nullptr;
}

const SpecNode::Entry* SpecNode::find_entry(const std::string& key) const {
  if (kind != Kind::map) return nullptr;
  for (const auto& e : entries)
    if (e.key == key) return &e;
  return nullptr;
}

static std::vector<std::string> split_dotted(const std::string& dotted) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : dotted) {
    if (c == '.') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

// A path component that is a number indexes a list: "phases.2.thread".
static bool list_index(const std::string& part, std::size_t& index) {
  if (part.empty() || part.size() > 6) return false;
  for (char c : part)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  index = std::stoul(part);
  return true;
}

const SpecNode* SpecNode::find_path(const std::string& dotted) const {
  const SpecNode* node = this;
  for (const auto& part : split_dotted(dotted)) {
    std::size_t i = 0;
    if (node->is_sequence() && list_index(part, i)) {
      node = i < node->items.size() ? &node->items[i] : nullptr;
    } else {
      node = node->find(part);
    }
    if (node == nullptr) return nullptr;
  }
  return node;
}

bool SpecNode::set_path(const std::string& dotted, SpecNode value, const Location& key_loc) {
  const auto parts = split_dotted(dotted);
  SpecNode* node = this;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    std::size_t index = 0;
    if (node->is_sequence() && list_index(parts[i], index)) {
      if (index >= node->items.size()) return false;
      node = &node->items[index];
      continue;
    }
    // A list is entered by index only ("phases.1thr" names no item).
    if (node->is_sequence()) return false;
    SpecNode* next = node->find(parts[i]);
    if (next == nullptr) {
      node->set(parts[i], make_map(key_loc), key_loc);
      next = node->find(parts[i]);
      if (next == nullptr) return false;
    } else if (next->kind == Kind::null) {
      *next = make_map(key_loc);
    }
    if (next->kind != Kind::map && next->kind != Kind::sequence) return false;
    node = next;
  }
  if (!node->is_map() && !node->is_null()) return false;
  node->set(parts.back(), std::move(value), key_loc);
  return true;
}

void SpecNode::set(const std::string& key, SpecNode value, const Location& key_loc) {
  if (kind == Kind::null) kind = Kind::map;
  for (auto& e : entries)
    if (e.key == key) {
      e.value = std::move(value);
      return;
    }
  entries.push_back({key, key_loc, std::move(value)});
}

void SpecNode::erase(const std::string& key) {
  std::erase_if(entries, [&](const Entry& e) { return e.key == key; });
}

std::vector<std::string> SpecNode::keys() const {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.key);
  return out;
}

std::string SpecNode::kind_name() const {
  switch (kind) {
    case Kind::null: return "nothing";
    case Kind::scalar: return "a value";
    case Kind::sequence: return "a list";
    case Kind::map: return "a mapping";
  }
  return "?";
}

SpecNode SpecNode::make_scalar(std::string text, Location loc) {
  SpecNode n;
  n.kind = Kind::scalar;
  n.scalar = std::move(text);
  n.loc = std::move(loc);
  return n;
}

SpecNode SpecNode::make_map(Location loc) {
  SpecNode n;
  n.kind = Kind::map;
  n.loc = std::move(loc);
  return n;
}

namespace {

Location location_of(const YAML::Mark& mark, const std::string& file) {
  // yaml-cpp marks are 0-based; editors and compilers count from 1.
  if (mark.line < 0) return {file, 0, 0};
  return {file, mark.line + 1, mark.column + 1};
}

// Thrown by convert when the document holds more than kMaxSpecNodes nodes.
struct TooManyNodes {
  Location where;
};
// Thrown by convert when values nest deeper than kMaxSpecDepth (aliases expanded): the
// conversion recurses once per level, and a fuzzer's alias chains overflowed the stack.
struct TooDeep {
  Location where;
};

// `budget`: the nodes the document may still hold. YAML aliases are expanded
// here (a 400-byte alias bomb names billions of nodes), so the count is checked
// node by node, before anything is copied.
SpecNode convert(const YAML::Node& y, const std::string& file, Diagnostics& diags, std::size_t& budget,
                 std::size_t depth = 0) {
  SpecNode n;
  n.loc = location_of(y.Mark(), file);
  if (budget == 0) throw TooManyNodes{n.loc};
  if (depth > kMaxSpecDepth) throw TooDeep{n.loc};
  --budget;
  switch (y.Type()) {
    case YAML::NodeType::Undefined:
    case YAML::NodeType::Null:
      n.kind = SpecNode::Kind::null;
      break;
    case YAML::NodeType::Scalar:
      n.kind = SpecNode::Kind::scalar;
      n.scalar = y.Scalar();
      n.quoted = y.Tag() == "!";
      break;
    case YAML::NodeType::Sequence:
      n.kind = SpecNode::Kind::sequence;
      for (const auto& item : y) n.items.push_back(convert(item, file, diags, budget, depth + 1));
      break;
    case YAML::NodeType::Map: {
      n.kind = SpecNode::Kind::map;
      std::set<std::string> seen;
      for (const auto& kv : y) {
        const Location key_loc = location_of(kv.first.Mark(), file);
        if (!kv.first.IsScalar()) {
          diags.error(key_loc, "keys must be plain names");
          continue;
        }
        const std::string key = kv.first.Scalar();
        if (!seen.insert(key).second) {
          diags.error(key_loc, "duplicate key '" + key + "'");
          continue;
        }
        n.entries.push_back({key, key_loc, convert(kv.second, file, diags, budget, depth + 1)});
      }
      break;
    }
  }
  return n;
}

}  // namespace

SpecNode parse_yaml(const std::string& text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw SpecError(location_of(e.mark, file), "YAML syntax error: " + e.msg);
  }
  Diagnostics diags;
  std::size_t budget = kMaxSpecNodes;
  SpecNode node;
  try {
    node = convert(root, file, diags, budget);
  } catch (const TooManyNodes& e) {
    throw SpecError(e.where, "the document holds more than " + std::to_string(kMaxSpecNodes) +
                                 " values (with YAML aliases expanded); a spec this large is refused");
  } catch (const TooDeep& e) {
    throw SpecError(e.where, "values nest more than " + std::to_string(kMaxSpecDepth) +
                                 " levels deep (with YAML aliases expanded); a spec this deep is refused");
  }
  if (!diags.empty()) throw SpecError(diags);
  if (node.is_null()) node.loc = {file, 1, 1};
  return node;
}

std::string read_spec_file(const std::string& path) {
  std::string text;
  try {
    text = read_text_file_bounded(path, kMaxSpecFileBytes);
  } catch (const FileTooLarge&) {
    throw SpecError(Location{path, 1, 1}, "file larger than " + std::to_string(kMaxSpecFileBytes / 1024) +
                                              " KiB: a spec (or include) this large is refused");
  } catch (const std::runtime_error& e) {
    // The cause as the system gave it ("No such file or directory", "Permission denied").
    std::string why = e.what();
    if (why.rfind(path + ": ", 0) == 0) why = why.substr(path.size() + 2);
    std::error_code ec;
    throw SpecError(Location{path, 0, 0}, std::filesystem::exists(path, ec) ? why : "no such file");
  }
  check_spec_text(text, path);
  return text;
}

void check_spec_text(std::string_view text, const std::string& file) {
  if (const char* bom = utf16_or_32_bom(text))
    throw SpecError(Location{file, 1, 1}, std::string("the file is ") + bom + "; dissect reads UTF-8 (save it as UTF-8)");
  const auto at = [&](std::size_t offset) {
    int line = 1, col = 1;
    for (std::size_t i = 0; i < offset; ++i) {
      if (text[i] == '\n') ++line, col = 1;
      else ++col;
    }
    return Location{file, line, col};
  };
  if (const auto nul = text.find('\0'); nul != std::string_view::npos)
    throw SpecError(at(nul), "NUL byte: a spec is UTF-8 text (a UTF-16 file without byte-order mark?)");
  if (const auto bad = first_invalid_utf8(text)) throw SpecError(at(*bad), "invalid UTF-8: a spec is UTF-8 text");
}

SpecNode load_yaml_file(const std::string& path) { return parse_yaml(read_spec_file(path), path); }

SpecNode merge_nodes(const SpecNode& base, const SpecNode& overlay) {
  if (!(base.is_map() && overlay.is_map())) return overlay;
  SpecNode out = base;
  out.loc = overlay.loc;
  for (const auto& e : overlay.entries) {
    if (SpecNode* existing = out.find(e.key)) {
      *existing = merge_nodes(*existing, e.value);
      for (auto& oe : out.entries)
        if (oe.key == e.key) oe.key_loc = e.key_loc;
    } else {
      out.entries.push_back(e);
    }
  }
  return out;
}

namespace {

bool needs_quotes(const std::string& s) {
  if (s.empty()) return true;
  for (char c : s)
    if (c == ':' || c == '#' || c == '[' || c == ']' || c == '{' || c == '}' || c == ',' || c == '"' ||
        c == '\'' || c == '\n')
      return true;
  return s.front() == ' ' || s.back() == ' ' || s.front() == '-' || s.front() == '*' || s.front() == '&';
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out + "\"";
}

void emit(const SpecNode& n, int indent, std::ostringstream& os, bool inline_start);

void emit_flow(const SpecNode& n, std::ostringstream& os) {
  switch (n.kind) {
    case SpecNode::Kind::null: os << "null"; break;
    case SpecNode::Kind::scalar: os << (needs_quotes(n.scalar) || n.quoted ? quote(n.scalar) : n.scalar); break;
    case SpecNode::Kind::sequence: {
      os << "[";
      for (std::size_t i = 0; i < n.items.size(); ++i) {
        if (i) os << ", ";
        emit_flow(n.items[i], os);
      }
      os << "]";
      break;
    }
    case SpecNode::Kind::map: {
      os << "{";
      for (std::size_t i = 0; i < n.entries.size(); ++i) {
        if (i) os << ", ";
        os << n.entries[i].key << ": ";
        emit_flow(n.entries[i].value, os);
      }
      os << "}";
      break;
    }
  }
}

bool is_simple(const SpecNode& n) {
  if (n.is_scalar() || n.is_null()) return true;
  if (n.is_sequence()) {
    for (const auto& i : n.items)
      if (!(i.is_scalar() || i.is_null())) return false;
    return n.items.size() <= 16;
  }
  return false;
}

void emit(const SpecNode& n, int indent, std::ostringstream& os, bool) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  if (n.is_map()) {
    for (const auto& e : n.entries) {
      os << pad << e.key << ":";
      if (is_simple(e.value) || (e.value.is_map() && e.value.entries.empty())) {
        os << " ";
        emit_flow(e.value, os);
        os << "\n";
      } else if (e.value.is_map()) {
        os << "\n";
        emit(e.value, indent + 2, os, false);
      } else {
        os << "\n";
        for (const auto& item : e.value.items) {
          if (is_simple(item) || item.is_sequence()) {
            os << pad << "  - ";
            emit_flow(item, os);
            os << "\n";
          } else {
            os << pad << "  -\n";
            emit(item, indent + 4, os, false);
          }
        }
      }
    }
  } else {
    os << pad;
    emit_flow(n, os);
    os << "\n";
  }
}

}  // namespace

std::string to_yaml(const SpecNode& node) {
  std::ostringstream os;
  emit(node, 0, os, false);
  return os.str();
}

}  // namespace dissect
