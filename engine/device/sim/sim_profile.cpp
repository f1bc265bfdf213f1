#include "engine/device/sim/sim_profile.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "engine/core/paths.hpp"
#include "engine/spec/units.hpp"

namespace dissect::sim {
namespace fs = std::filesystem;

namespace {

bool is_pow2(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
std::uint32_t log2_floor(std::uint64_t v) {
  std::uint32_t s = 0;
  while ((2ull << s) <= v) ++s;
  return s;
}

// Reads one mapping; reports keys nobody asked for (with "did you mean").
class Reader {
 public:
  Reader(const SpecNode* node, std::string prefix, std::vector<std::string> allowed, Diagnostics& d)
      : node_(node), prefix_(std::move(prefix)), d_(d) {
    if (node_ == nullptr || node_->is_null()) {
      node_ = nullptr;
      return;
    }
    if (!node_->is_map()) {
      d_.error(node_->loc, (prefix_.empty() ? std::string("profile") : prefix_.substr(0, prefix_.size() - 1)) +
                               ": expected a mapping (key: value lines), got " + node_->kind_name());
      node_ = nullptr;
      return;
    }
    for (const auto& e : node_->entries) {
      if (std::find(allowed.begin(), allowed.end(), e.key) != allowed.end()) continue;
      std::string msg = "unknown key '" + prefix_ + e.key + "'";
      const std::string guess = closest_match(e.key, allowed);
      if (!guess.empty()) msg += "; did you mean '" + prefix_ + guess + "'?";
      d_.error(e.key_loc, msg);
    }
  }
  [[nodiscard]] const SpecNode* get(const std::string& key) const {
    if (node_ == nullptr) return nullptr;
    const SpecNode* v = node_->find(key);
    return (v == nullptr || v->is_null()) ? nullptr : v;
  }
  [[nodiscard]] bool has(const std::string& key) const { return get(key) != nullptr; }
  [[nodiscard]] std::string name(const std::string& key) const { return prefix_ + key; }
  [[nodiscard]] Location loc() const { return node_ != nullptr ? node_->loc : Location{}; }
  [[nodiscard]] bool valid() const { return node_ != nullptr; }

  std::optional<std::string> text(const std::string& key) const {
    const SpecNode* n = get(key);
    if (n == nullptr) return std::nullopt;
    if (!n->is_scalar()) {
      d_.error(n->loc, name(key) + ": expected text, got " + n->kind_name());
      return std::nullopt;
    }
    return n->scalar;
  }
  std::optional<double> number(const std::string& key, double min, double max) const {
    const SpecNode* n = get(key);
    if (n == nullptr) return std::nullopt;
    return parse_number(*n, name(key), min, max, d_);
  }
  std::optional<std::uint64_t> count(const std::string& key, std::uint64_t min, std::uint64_t max) const {
    const SpecNode* n = get(key);
    if (n == nullptr) return std::nullopt;
    return parse_int(*n, name(key), min, max, d_);
  }
  std::optional<std::uint64_t> bytes(const std::string& key, bool positive) const {
    const SpecNode* n = get(key);
    if (n == nullptr) return std::nullopt;
    return parse_bytes(*n, name(key), positive, d_);
  }
  void require(const std::string& key, const std::string& example) const {
    if (node_ != nullptr && get(key) == nullptr)
      d_.error(node_->loc, name(key) + " is required (e.g. '" + key + ": " + example + "')");
  }

  static std::optional<double> parse_number(const SpecNode& n, const std::string& field, double min, double max,
                                            Diagnostics& d) {
    if (!n.is_scalar()) {
      d.error(n.loc, field + ": expected a number, got " + n.kind_name());
      return std::nullopt;
    }
    double v = 0;
    try {
      std::size_t used = 0;
      v = std::stod(n.scalar, &used);
      if (used != n.scalar.size()) throw std::invalid_argument("trailing");
    } catch (...) {
      d.error(n.loc, field + ": '" + n.scalar + "' is not a number");
      return std::nullopt;
    }
    if (!std::isfinite(v) || v < min || v > max) {
      std::ostringstream os;
      os << field << " must be between " << min << " and " << max << ", got " << n.scalar;
      d.error(n.loc, os.str());
      return std::nullopt;
    }
    return v;
  }
  static std::optional<std::uint64_t> parse_int(const SpecNode& n, const std::string& field, std::uint64_t min,
                                                std::uint64_t max, Diagnostics& d) {
    if (!n.is_scalar()) {
      d.error(n.loc, field + ": expected a whole number, got " + n.kind_name());
      return std::nullopt;
    }
    std::string err;
    auto v = parse_count(n.scalar, err);
    if (!v) {
      d.error(n.loc, field + ": " + err);
      return std::nullopt;
    }
    if (*v < min || *v > max) {
      d.error(n.loc, field + " must be between " + std::to_string(min) + " and " + std::to_string(max) + ", got " +
                         std::to_string(*v));
      return std::nullopt;
    }
    return v;
  }
  static std::optional<std::uint64_t> parse_bytes(const SpecNode& n, const std::string& field, bool positive,
                                                  Diagnostics& d) {
    if (!n.is_scalar()) {
      d.error(n.loc, field + ": expected a size such as '16 KiB', got " + n.kind_name());
      return std::nullopt;
    }
    if (n.scalar == "0") {
      if (positive) d.error(n.loc, field + " must be larger than zero");
      return positive ? std::nullopt : std::optional<std::uint64_t>(0);
    }
    std::string err;
    auto q = parse_quantity(n.scalar, "", err);
    if (!q) {
      d.error(n.loc, field + ": " + err);
      return std::nullopt;
    }
    if (q->unit != QuantityUnit::bytes) {
      d.error(n.loc, field + ": a device profile gives sizes in bytes (B, KiB, MiB, ...), not elements");
      return std::nullopt;
    }
    if (positive && q->amount == 0) {
      d.error(n.loc, field + " must be larger than zero");
      return std::nullopt;
    }
    return q->amount;
  }

 private:
  const SpecNode* node_;
  std::string prefix_;
  Diagnostics& d_;
};

template <typename E>
std::optional<E> read_enum(const SpecNode* n, const std::string& field, const std::vector<std::pair<std::string, E>>& names,
                           Diagnostics& d) {
  if (n == nullptr) return std::nullopt;
  if (!n->is_scalar()) {
    d.error(n->loc, field + ": expected one of its names, got " + n->kind_name());
    return std::nullopt;
  }
  std::vector<std::string> all;
  for (const auto& [name, v] : names) {
    if (name == n->scalar) return v;
    all.push_back(name);
  }
  std::string msg = field + ": unknown value '" + n->scalar + "'";
  const std::string guess = closest_match(n->scalar, all);
  if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
  msg += " (one of:";
  for (const auto& a : all) msg += " " + a;
  msg += ")";
  d.error(n->loc, msg);
  return std::nullopt;
}

const std::vector<std::pair<std::string, LoadPath>> kPathNames{
    {"ca", LoadPath::ca}, {"cg", LoadPath::cg},   {"cs", LoadPath::cs},   {"cv", LoadPath::cv},
    {"lu", LoadPath::lu}, {"ldg", LoadPath::ldg}, {"tex", LoadPath::tex}, {"const", LoadPath::constant}};

const std::vector<std::pair<std::string, IndexFunction::Kind>> kIndexKinds{
    {"modulo", IndexFunction::Kind::modulo},
    {"blocked", IndexFunction::Kind::blocked},
    {"bits", IndexFunction::Kind::bits},
    {"xor", IndexFunction::Kind::xor_hash},
    {"table", IndexFunction::Kind::table}};

const std::vector<std::pair<std::string, Replacement::Kind>> kPolicies{
    {"lru", Replacement::Kind::lru},
    {"fifo", Replacement::Kind::fifo},
    {"random", Replacement::Kind::random},
    {"weighted_random", Replacement::Kind::weighted_random}};

std::vector<std::uint64_t> read_int_list(const SpecNode& n, const std::string& field, std::uint64_t min,
                                         std::uint64_t max, Diagnostics& d) {
  std::vector<std::uint64_t> out;
  if (!n.is_sequence()) {
    d.error(n.loc, field + ": expected a list of whole numbers, got " + n.kind_name());
    return out;
  }
  for (const auto& item : n.items)
    if (auto v = Reader::parse_int(item, field, min, max, d)) out.push_back(*v);
  return out;
}

// `index:` -> IndexFunction; checked against the number of sets (0: unknown yet).
std::optional<IndexFunction> read_index(const SpecNode* n, const std::string& field, Diagnostics& d) {
  IndexFunction f;
  if (n == nullptr) return f;
  if (n->is_scalar()) {
    auto k = read_enum(n, field, kIndexKinds, d);
    if (!k) return std::nullopt;
    f.kind = *k;
    if (f.kind == IndexFunction::Kind::blocked || f.kind == IndexFunction::Kind::bits ||
        f.kind == IndexFunction::Kind::table) {
      d.error(n->loc, field + ": '" + n->scalar + "' needs parameters; write it as a mapping, e.g. " +
                          (f.kind == IndexFunction::Kind::blocked ? "{function: blocked, lines: 4}"
                           : f.kind == IndexFunction::Kind::bits  ? "{function: bits, bits: [7, 8]}"
                                                                  : "{function: table, table: [0, 1, 0, 2]}"));
      return std::nullopt;
    }
    return f;
  }
  Reader r(n, field + ".", {"function", "lines", "bits", "table"}, d);
  if (!r.valid()) return std::nullopt;
  r.require("function", "modulo");
  auto k = read_enum(r.get("function"), r.name("function"), kIndexKinds, d);
  if (!k) return std::nullopt;
  f.kind = *k;
  const std::size_t before = d.size();
  auto only = [&](const std::string& key, bool allowed) {
    if (!allowed && r.has(key))
      d.error(r.get(key)->loc, r.name(key) + " does not apply to function " + to_string(f.kind));
  };
  only("lines", f.kind == IndexFunction::Kind::blocked);
  only("bits", f.kind == IndexFunction::Kind::bits || f.kind == IndexFunction::Kind::xor_hash);
  only("table", f.kind == IndexFunction::Kind::table);
  switch (f.kind) {
    case IndexFunction::Kind::modulo: break;
    case IndexFunction::Kind::blocked:
      r.require("lines", "4");
      if (auto v = r.count("lines", 1, 1u << 20)) f.block_lines = *v;
      break;
    case IndexFunction::Kind::bits:
      r.require("bits", "[7, 8]");
      if (const SpecNode* b = r.get("bits"))
        for (auto v : read_int_list(*b, r.name("bits"), 0, 63, d)) f.bits.push_back(static_cast<std::uint32_t>(v));
      if (f.bits.empty() && r.has("bits")) d.error(r.get("bits")->loc, r.name("bits") + " is empty");
      break;
    case IndexFunction::Kind::xor_hash:
      // Without bits: XOR-fold of the line number (filled in once the sets are known).
      if (const SpecNode* b = r.get("bits")) {
        if (!b->is_sequence() || b->items.empty()) {
          d.error(b->loc, r.name("bits") + ": expected one list of address bits per set-index bit, e.g. [[7, 12], [8, 13]]");
        } else {
          for (const auto& item : b->items) {
            std::uint64_t mask = 0;
            for (auto v : read_int_list(item, r.name("bits"), 0, 63, d)) mask |= 1ull << v;
            if (mask == 0 && item.is_sequence())
              d.error(item.loc, r.name("bits") + ": each set-index bit needs at least one address bit");
            f.xor_masks.push_back(mask);
          }
        }
      }
      break;
    case IndexFunction::Kind::table:
      r.require("table", "[0, 1, 2, 3]");
      if (const SpecNode* t = r.get("table"))
        for (auto v : read_int_list(*t, r.name("table"), 0, 1u << 30, d)) f.table.push_back(static_cast<std::uint32_t>(v));
      if (f.table.empty() && r.has("table")) d.error(r.get("table")->loc, r.name("table") + " is empty");
      break;
  }
  if (d.size() != before) return std::nullopt;
  return f;
}

// Checks an index function against the geometry; fills an XOR fold.
void check_index_kind(IndexFunction& f, std::uint32_t sets, std::uint64_t line_bytes, const Location& loc,
                      const std::string& field, Diagnostics& d);

void check_index(IndexFunction& f, std::uint32_t sets, std::uint64_t line_bytes, const Location& loc,
                 const std::string& field, Diagnostics& d) {
  check_index_kind(f, sets, line_bytes, loc, field, d);
  f.prepare();
}

void check_index_kind(IndexFunction& f, std::uint32_t sets, std::uint64_t line_bytes, const Location& loc,
                      const std::string& field, Diagnostics& d) {
  switch (f.kind) {
    case IndexFunction::Kind::modulo:
    case IndexFunction::Kind::blocked: break;
    case IndexFunction::Kind::bits:
      if ((1ull << f.bits.size()) != sets)
        d.error(loc, field + ": " + std::to_string(f.bits.size()) + " bit(s) select " +
                         std::to_string(1ull << f.bits.size()) + " sets, but the cache has " + std::to_string(sets));
      break;
    case IndexFunction::Kind::xor_hash:
      if (f.xor_masks.empty()) {
        if (!is_pow2(sets)) {
          d.error(loc, field + ": an XOR fold needs a power-of-two number of sets (have " + std::to_string(sets) +
                           "); give the bits explicitly");
        } else {
          f = IndexFunction::xor_fold(sets, log2_floor(line_bytes));
        }
      } else if ((1ull << f.xor_masks.size()) != sets) {
        d.error(loc, field + ": " + std::to_string(f.xor_masks.size()) + " set-index bit(s) select " +
                         std::to_string(1ull << f.xor_masks.size()) + " sets, but the cache has " +
                         std::to_string(sets));
      }
      break;
    case IndexFunction::Kind::table:
      for (auto t : f.table)
        if (t >= sets) {
          d.error(loc, field + ": table names set " + std::to_string(t) + ", but the cache has " +
                           std::to_string(sets) + " sets (0.." + std::to_string(sets - 1) + ")");
          break;
        }
      break;
  }
}

std::optional<Replacement> read_replacement(const SpecNode* n, const std::string& field, Diagnostics& d) {
  Replacement rep;
  if (n == nullptr) return rep;
  if (n->is_scalar()) {
    auto k = read_enum(n, field, kPolicies, d);
    if (!k) return std::nullopt;
    if (*k == Replacement::Kind::weighted_random) {
      d.error(n->loc, field + ": weighted_random needs weights: {policy: weighted_random, weights: [1, 3, 1, 1]}");
      return std::nullopt;
    }
    rep.kind = *k;
    return rep;
  }
  Reader r(n, field + ".", {"policy", "weights"}, d);
  if (!r.valid()) return std::nullopt;
  r.require("policy", "lru");
  auto k = read_enum(r.get("policy"), r.name("policy"), kPolicies, d);
  if (!k) return std::nullopt;
  rep.kind = *k;
  if (const SpecNode* w = r.get("weights")) {
    if (rep.kind != Replacement::Kind::weighted_random) {
      d.error(w->loc, r.name("weights") + " only applies to policy weighted_random");
      return std::nullopt;
    }
    for (auto v : read_int_list(*w, r.name("weights"), 0, 1u << 20, d)) rep.weights.push_back(static_cast<std::uint32_t>(v));
    if (std::all_of(rep.weights.begin(), rep.weights.end(), [](std::uint32_t x) { return x == 0; }))
      d.error(w->loc, r.name("weights") + ": at least one weight must be larger than zero");
  } else if (rep.kind == Replacement::Kind::weighted_random) {
    d.error(n->loc, field + ": weighted_random needs weights (one per way, e.g. [1, 3, 1, 1])");
    return std::nullopt;
  }
  return rep;
}

void check_replacement(const Replacement& rep, const CacheGeometry& g, const Location& loc, const std::string& field,
                       Diagnostics& d) {
  if (rep.kind != Replacement::Kind::weighted_random) return;
  const std::uint32_t ways = g.uniform_ways();
  if (ways == 0)
    d.error(loc, field + ": weighted_random needs sets of equal size (weights are per way)");
  else if (rep.weights.size() != ways)
    d.error(loc, field + ": " + std::to_string(rep.weights.size()) + " weights for " + std::to_string(ways) +
                     " ways; give one weight per way");
}

// set_ways: [17, 8, 8] or [{count: 1280, ways: 14}, {count: 512, ways: 13}]
std::vector<std::uint32_t> read_set_ways(const SpecNode& n, const std::string& field, Diagnostics& d) {
  std::vector<std::uint32_t> out;
  if (!n.is_sequence() || n.items.empty()) {
    d.error(n.loc, field + ": expected a list of ways per set, e.g. [17, 8, 8, 8, 8, 8, 8] or "
                           "[{count: 1280, ways: 14}, {count: 512, ways: 13}]");
    return out;
  }
  for (const auto& item : n.items) {
    if (item.is_map()) {
      Reader r(&item, field + "[].", {"count", "ways"}, d);
      r.require("count", "1");
      r.require("ways", "8");
      auto c = r.count("count", 1, 1u << 24);
      auto w = r.count("ways", 1, 1u << 16);
      if (c && w) out.insert(out.end(), *c, static_cast<std::uint32_t>(*w));
    } else if (auto w = Reader::parse_int(item, field, 1, 1u << 16, d)) {
      out.push_back(static_cast<std::uint32_t>(*w));
    }
  }
  return out;
}

// Size, line, sector, ways/sets/set_ways -> geometry. `unit` names a line
// ("line") or page ("page") in messages; for TLBs, size is `entries`.
struct GeometryInput {
  std::optional<std::uint64_t> size, line, sector, ways, sets, entries;
  const SpecNode* set_ways = nullptr;
};

std::optional<CacheGeometry> build_geometry(const GeometryInput& in, const Reader& r, bool tlb, Diagnostics& d) {
  const std::size_t before = d.size();
  CacheGeometry g;
  const std::string line_key = tlb ? "page" : "line";
  if (!in.line) return std::nullopt;
  g.line_bytes = *in.line;
  g.sector_bytes = in.sector.value_or(*in.line);
  if (!is_pow2(g.line_bytes))
    d.error(r.get(line_key)->loc, r.name(line_key) + " must be a power of two, got " + format_bytes(g.line_bytes));
  if (in.sector) {
    if (!is_pow2(*in.sector) || *in.sector > g.line_bytes || g.line_bytes / *in.sector > 16)
      d.error(r.get("sector")->loc, r.name("sector") + " must be a power of two that divides the line into at most "
                                                       "16 sectors, got " + format_bytes(*in.sector));
  }
  if (in.set_ways != nullptr) {
    if (in.ways || in.sets)
      d.error(in.set_ways->loc, r.name("set_ways") + " replaces ways and sets; give either set_ways or ways/sets");
    g.set_ways = read_set_ways(*in.set_ways, r.name("set_ways"), d);
    if (g.set_ways.empty()) return std::nullopt;
    const std::uint64_t lines = g.lines();
    if (in.size && lines * g.line_bytes != *in.size)
      d.error(r.get("size")->loc, r.name("size") + " (" + format_bytes(*in.size) + ") differs from the " +
                                      std::to_string(lines) + " lines of set_ways x " + format_bytes(g.line_bytes) +
                                      " = " + format_bytes(lines * g.line_bytes));
    if (in.entries && lines != *in.entries)
      d.error(r.get("entries")->loc, r.name("entries") + " (" + std::to_string(*in.entries) + ") differs from the " +
                                         std::to_string(lines) + " entries of set_ways");
    return d.size() == before ? std::optional<CacheGeometry>(g) : std::nullopt;
  }
  std::uint64_t lines = 0;
  if (tlb) {
    if (!in.entries) {
      d.error(r.loc(), "a TLB level needs entries (e.g. 'entries: 16') or set_ways");
      return std::nullopt;
    }
    lines = *in.entries;
  } else {
    if (!in.size) {
      d.error(r.loc(), r.name("size") + " is required (e.g. 'size: 16 KiB'), or set_ways");
      return std::nullopt;
    }
    if (*in.size % g.line_bytes != 0) {
      d.error(r.get("size")->loc, r.name("size") + " (" + format_bytes(*in.size) +
                                      ") is not a whole number of lines (" + format_bytes(g.line_bytes) + ")");
      return std::nullopt;
    }
    lines = *in.size / g.line_bytes;
  }
  std::uint64_t ways = 0, sets = 0;
  if (in.ways && in.sets) {
    ways = *in.ways;
    sets = *in.sets;
    if (ways * sets != lines)
      d.error(r.get("sets")->loc, r.name("sets") + " x ways = " + std::to_string(sets) + " x " + std::to_string(ways) +
                                      " = " + std::to_string(sets * ways) + " lines, but the " +
                                      (tlb ? "entries are " : "size holds ") + std::to_string(lines));
  } else if (in.ways) {
    ways = *in.ways;
    if (lines % ways != 0)
      d.error(r.get("ways")->loc, r.name("ways") + " (" + std::to_string(ways) + ") does not divide the " +
                                      std::to_string(lines) + " " + (tlb ? "entries" : "lines"));
    sets = lines / ways;
  } else if (in.sets) {
    sets = *in.sets;
    if (lines % sets != 0)
      d.error(r.get("sets")->loc, r.name("sets") + " (" + std::to_string(sets) + ") does not divide the " +
                                      std::to_string(lines) + " " + (tlb ? "entries" : "lines"));
    ways = lines / sets;
  } else if (tlb) {
    sets = 1;  // fully associative
    ways = lines;
  } else {
    d.error(r.loc(), "give the associativity: ways (or sets, or set_ways for unequal sets)");
    return std::nullopt;
  }
  if (sets == 0 || ways == 0) {
    d.error(r.loc(), "the cache has no sets or no ways (" + std::to_string(lines) + " lines)");
    return std::nullopt;
  }
  if (sets > (1ull << 26)) {
    d.error(r.loc(), "more than 2^26 sets");
    return std::nullopt;
  }
  g.set_ways.assign(sets, static_cast<std::uint32_t>(ways));
  return d.size() == before ? std::optional<CacheGeometry>(g) : std::nullopt;
}

const std::vector<std::string> kTopKeys{"dissect_profile", "name",  "description", "source", "arch",
                                        "sm",              "timer_overhead", "seed", "address", "caches",
                                        "tlb",             "paths", "dram", "shared", "coalescing", "noise"};
const std::vector<std::string> kCacheKeys{"description", "scope",       "per_sm",     "size",      "line",
                                          "sector",      "ways",        "sets",       "set_ways",  "index",
                                          "replacement", "latency",     "miss_cost",  "bandwidth", "write",
                                          "write_bandwidth", "partitions", "carveout"};
const std::vector<std::string> kTlbKeys{"name", "scope", "page", "pages_per_entry", "entries", "ways", "sets",
                                        "set_ways", "index", "replacement", "miss_penalty"};

void decode_cache(const std::string& name, const SpecNode& node, const Location& key_loc, Profile& p, Diagnostics& d) {
  CacheSpec c;
  c.name = name;
  c.loc = key_loc;
  const std::string prefix = "caches." + name + ".";
  Reader r(&node, prefix, kCacheKeys, d);
  if (!r.valid()) return;
  if (auto v = r.text("description")) c.description = *v;
  if (const SpecNode* s = r.get("scope")) {
    auto v = read_enum(s, r.name("scope"), std::vector<std::pair<std::string, bool>>{{"sm", true}, {"device", false}}, d);
    if (v) c.per_sm = *v;
  }
  if (auto v = r.count("per_sm", 1, 64)) {
    c.instances_per_sm = static_cast<std::uint32_t>(*v);
    if (!c.per_sm) d.error(r.get("per_sm")->loc, r.name("per_sm") + " only applies to scope sm");
  }
  r.require("line", "128 B");
  r.require("latency", "100");
  GeometryInput in;
  in.size = r.bytes("size", true);
  in.line = r.bytes("line", true);
  in.sector = r.bytes("sector", true);
  in.ways = r.count("ways", 1, 1u << 16);
  in.sets = r.count("sets", 1, 1u << 26);
  in.set_ways = r.get("set_ways");
  auto index = read_index(r.get("index"), r.name("index"), d);
  auto rep = read_replacement(r.get("replacement"), r.name("replacement"), d);
  if (auto v = r.number("latency", 0, 1e7)) c.latency = *v;
  if (auto v = r.number("miss_cost", -1e6, 1e7)) c.miss_cost = *v;
  if (auto v = r.number("bandwidth", 0, 1e9)) c.bandwidth = *v;
  c.write_back = !c.per_sm;
  if (const SpecNode* w = r.get("write")) {
    auto v = read_enum(w, r.name("write"),
                       std::vector<std::pair<std::string, bool>>{{"back", true}, {"through", false}}, d);
    if (v) c.write_back = *v;
  }
  if (auto v = r.number("write_bandwidth", 0, 1e9)) c.write_bandwidth = *v;
  auto geometry = build_geometry(in, r, false, d);
  if (geometry && index && rep) {
    c.geometry = *geometry;
    c.geometry.index = *index;
    c.geometry.replacement = *rep;
    const Location iloc = r.has("index") ? r.get("index")->loc : r.loc();
    check_index(c.geometry.index, c.geometry.sets(), c.geometry.line_bytes, iloc, r.name("index"), d);
    check_replacement(c.geometry.replacement, c.geometry,
                      r.has("replacement") ? r.get("replacement")->loc : r.loc(), r.name("replacement"), d);
  }

  if (const SpecNode* pn = r.get("partitions")) {
    Reader pr(pn, prefix + "partitions.", {"count", "index", "far_latency", "copy_latency", "replicate", "sm_spread"}, d);
    pr.require("count", "2");
    pr.require("far_latency", "400");
    if (auto v = pr.count("count", 2, 64)) c.partitions.count = static_cast<std::uint32_t>(*v);
    if (auto v = pr.number("far_latency", 0, 1e7)) c.partitions.far_latency = *v;
    if (auto v = pr.number("copy_latency", 0, 1e7)) c.partitions.copy_latency = *v;
    if (auto v = pr.number("sm_spread", 0, 1e6)) c.partitions.sm_spread = *v;
    if (const SpecNode* rn = pr.get("replicate")) {
      auto v = read_enum(rn, pr.name("replicate"),
                         std::vector<std::pair<std::string, bool>>{{"true", true}, {"false", false}}, d);
      if (v) c.partitions.replicate = *v;
    }
    if (pr.has("copy_latency") && !c.partitions.replicate)
      d.error(pr.get("copy_latency")->loc, pr.name("copy_latency") + " only applies with replicate: true");
    auto pidx = read_index(pr.get("index"), pr.name("index"), d);
    if (pidx) {
      c.partitions.index = *pidx;
      check_index(c.partitions.index, c.partitions.count, c.geometry.line_bytes,
                  pr.has("index") ? pr.get("index")->loc : pr.loc(), pr.name("index"), d);
    }
    if (c.per_sm && pr.valid()) d.error(pn->loc, prefix + "partitions: only a scope device cache (an L2) has partitions");
    // One partition's share: the sets divided among the partitions.
    if (geometry && index && rep && pr.valid()) {
      const std::uint32_t sets = geometry->sets();
      if (sets % c.partitions.count != 0 || geometry->uniform_ways() == 0) {
        d.error(pn->loc, prefix + "partitions: the " + std::to_string(sets) +
                             " sets (of equal ways) must divide evenly among " + std::to_string(c.partitions.count) +
                             " partitions");
      } else {
        CacheGeometry pg = *geometry;
        pg.index = *index;
        pg.replacement = *rep;
        pg.set_ways.assign(sets / c.partitions.count, geometry->uniform_ways());
        check_index(pg.index, pg.sets(), pg.line_bytes, r.has("index") ? r.get("index")->loc : r.loc(), r.name("index"), d);
        c.partition_geometry = pg;
      }
    }
    if (std::isnan(c.partitions.copy_latency)) c.partitions.copy_latency = c.latency;
  }

  if (const SpecNode* cn = r.get("carveout")) {
    Reader cr(cn, prefix + "carveout.", {"default_shared", "configs"}, d);
    cr.require("configs", "[{shared: 48 KiB, size: 16 KiB}, {shared: 16 KiB, size: 48 KiB}]");
    cr.require("default_shared", "48 KiB");
    if (auto v = cr.bytes("default_shared", false)) c.default_shared = *v;
    if (c.geometry.index.kind != IndexFunction::Kind::modulo && c.geometry.index.kind != IndexFunction::Kind::blocked)
      d.error(cn->loc, prefix + "carveout: the sets change with the size; use index modulo or blocked");
    if (in.set_ways != nullptr) d.error(cn->loc, prefix + "carveout: not supported with set_ways");
    if (const SpecNode* list = cr.get("configs")) {
      if (!list->is_sequence() || list->items.empty()) {
        d.error(list->loc, cr.name("configs") + ": expected a list of {shared, size[, ways, replacement]}");
      } else {
        bool default_found = false;
        for (const auto& item : list->items) {
          Reader kr(&item, prefix + "carveout.configs[].", {"shared", "size", "ways", "replacement"}, d);
          if (!kr.valid()) continue;
          kr.require("shared", "16 KiB");
          kr.require("size", "48 KiB");
          CarveoutConfig cfg;
          auto sh = kr.bytes("shared", false);
          auto sz = kr.bytes("size", true);
          if (!sh || !sz) continue;
          cfg.shared_bytes = *sh;
          cfg.size_bytes = *sz;
          if (auto w = kr.count("ways", 1, 1u << 16)) cfg.ways = static_cast<std::uint32_t>(*w);
          if (kr.has("replacement")) {
            auto rr = read_replacement(kr.get("replacement"), kr.name("replacement"), d);
            if (rr) cfg.replacement = *rr;
          }
          const std::uint64_t ways = cfg.ways != 0 ? cfg.ways : c.geometry.uniform_ways();
          if (ways == 0 || cfg.size_bytes % (c.geometry.line_bytes * ways) != 0) {
            d.error(item.loc, prefix + "carveout.configs: size " + format_bytes(cfg.size_bytes) +
                                  " is not a whole number of sets of " + std::to_string(ways) + " ways x " +
                                  format_bytes(c.geometry.line_bytes));
            continue;
          }
          if (cfg.shared_bytes == c.default_shared) default_found = true;
          CacheGeometry g = c.geometry;
          g.set_ways.assign(cfg.size_bytes / (c.geometry.line_bytes * ways), static_cast<std::uint32_t>(ways));
          if (cfg.replacement) g.replacement = *cfg.replacement;
          check_replacement(g.replacement, g, item.loc, prefix + "carveout.configs[].replacement", d);
          c.carveout.push_back(cfg);
        }
        if (!default_found && cr.has("default_shared"))
          d.error(cr.get("default_shared")->loc, cr.name("default_shared") + " (" + format_bytes(c.default_shared) +
                                                     ") is not the shared size of any config");
      }
    }
  }
  if (c.per_sm && c.partitions.count > 1) c.partitions = PartitionSpec{};
  p.caches.push_back(std::move(c));
}

void decode_tlb(const SpecNode& node, Profile& p, Diagnostics& d) {
  if (!node.is_sequence()) {
    d.error(node.loc, "tlb: expected a list of levels, first level first (e.g. '- {name: l1_tlb, page: 2 MiB, entries: 16}')");
    return;
  }
  for (const auto& item : node.items) {
    Reader r(&item, "tlb[].", kTlbKeys, d);
    if (!r.valid()) continue;
    TlbLevelSpec t;
    t.loc = item.loc;
    r.require("name", "l1_tlb");
    r.require("page", "2 MiB");
    r.require("miss_penalty", "30");
    if (auto v = r.text("name")) t.name = *v;
    if (const SpecNode* s = r.get("scope")) {
      auto v = read_enum(s, r.name("scope"), std::vector<std::pair<std::string, bool>>{{"sm", true}, {"device", false}}, d);
      if (v) t.per_sm = *v;
    }
    if (auto v = r.number("miss_penalty", 0, 1e7)) t.miss_penalty = *v;
    if (auto v = r.count("pages_per_entry", 1, 1u << 16)) {
      t.pages_per_entry = static_cast<std::uint32_t>(*v);
      if (!is_pow2(*v)) d.error(r.get("pages_per_entry")->loc, r.name("pages_per_entry") + " must be a power of two");
    }
    GeometryInput in;
    in.line = r.bytes("page", true);
    if (in.line) {
      t.page_bytes = *in.line;
      in.line = *in.line * t.pages_per_entry;  // the model's line: one entry's reach
    }
    in.entries = r.count("entries", 1, 1u << 24);
    in.ways = r.count("ways", 1, 1u << 16);
    in.sets = r.count("sets", 1, 1u << 20);
    in.set_ways = r.get("set_ways");
    auto index = read_index(r.get("index"), r.name("index"), d);
    auto rep = read_replacement(r.get("replacement"), r.name("replacement"), d);
    auto g = build_geometry(in, r, true, d);
    if (g && index && rep) {
      t.geometry = *g;
      t.geometry.index = *index;
      t.geometry.replacement = *rep;
      check_index(t.geometry.index, t.geometry.sets(), t.geometry.line_bytes,
                  r.has("index") ? r.get("index")->loc : r.loc(), r.name("index"), d);
      check_replacement(t.geometry.replacement, t.geometry, r.has("replacement") ? r.get("replacement")->loc : r.loc(),
                        r.name("replacement"), d);
    }
    for (const auto& other : p.tlb)
      if (other.name == t.name && !t.name.empty()) d.error(r.get("name")->loc, "tlb: two levels named '" + t.name + "'");
    p.tlb.push_back(std::move(t));
  }
  for (std::size_t i = 1; i < p.tlb.size(); ++i)
    if (p.tlb[i].page_bytes != p.tlb[0].page_bytes)
      d.error(p.tlb[i].loc, "tlb: every level translates the same page size (" + format_bytes(p.tlb[0].page_bytes) +
                                "), this one has " + format_bytes(p.tlb[i].page_bytes));
}

void decode_paths(const SpecNode& node, Profile& p, Diagnostics& d) {
  if (!node.is_map()) {
    d.error(node.loc, "paths: expected a mapping of load paths to cache chains (e.g. 'ca: [l1, l2]')");
    return;
  }
  std::vector<std::string> cache_names;
  for (const auto& c : p.caches) cache_names.push_back(c.name);
  std::vector<std::string> path_names;
  for (const auto& [n, v] : kPathNames) path_names.push_back(n);
  for (const auto& e : node.entries) {
    auto it = std::find_if(kPathNames.begin(), kPathNames.end(), [&](const auto& x) { return x.first == e.key; });
    if (it == kPathNames.end()) {
      std::string msg = "paths: unknown load path '" + e.key + "'";
      const std::string guess = closest_match(e.key, path_names);
      if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
      if (e.key == "shared") msg += " (shared memory is described under 'shared:')";
      d.error(e.key_loc, msg);
      continue;
    }
    PathSpec ps;
    ps.defined = true;
    ps.loc = e.key_loc;
    const std::string field = "paths." + e.key;
    if (!e.value.is_sequence()) {
      d.error(e.value.loc, field + ": expected the list of caches a load goes through, first level first "
                               "(e.g. [l1, l2]; [] goes straight to DRAM)");
      continue;
    }
    bool tlb_seen = false;
    std::set<std::size_t> used;
    for (const auto& step : e.value.items) {
      PathStep st;
      std::string cname;
      Location loc = step.loc;
      if (step.is_scalar()) {
        cname = step.scalar;
      } else if (step.is_map()) {
        Reader sr(&step, field + "[].", {"cache", "latency"}, d);
        sr.require("cache", "l2");
        if (auto v = sr.text("cache")) cname = *v;
        if (auto v = sr.number("latency", 0, 1e7)) st.latency = *v;
        if (cname.empty()) continue;
      } else {
        d.error(step.loc, field + ": each step is a cache name, 'tlb', or {cache: name, latency: N}");
        continue;
      }
      if (cname == "tlb") {
        if (tlb_seen) d.error(loc, field + ": 'tlb' listed twice");
        if (p.tlb.empty()) d.error(loc, field + ": 'tlb' is listed but the profile has no tlb levels");
        tlb_seen = true;
        st.kind = PathStep::Kind::tlb;
        ps.steps.push_back(st);
        continue;
      }
      auto idx = p.find_cache(cname);
      if (!idx) {
        std::string msg = field + ": no cache named '" + cname + "' under caches:";
        const std::string guess = closest_match(cname, cache_names);
        if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
        d.error(loc, msg);
        continue;
      }
      if (!used.insert(*idx).second) d.error(loc, field + ": cache '" + cname + "' is listed twice");
      if (!ps.steps.empty() && ps.steps.back().kind == PathStep::Kind::cache &&
          !p.caches[ps.steps.back().cache].per_sm && p.caches[*idx].per_sm)
        d.error(loc, field + ": '" + cname + "' (scope sm) comes after a scope device cache; list the SM's caches first");
      st.cache = *idx;
      ps.steps.push_back(st);
    }
    // Translation happens before the first cache unless placed explicitly.
    if (!tlb_seen && !p.tlb.empty()) ps.steps.insert(ps.steps.begin(), PathStep{PathStep::Kind::tlb, 0, std::nan("")});
    p.paths[static_cast<std::size_t>(it->second)] = std::move(ps);
  }
}

}  // namespace

std::optional<std::size_t> Profile::find_cache(const std::string& n) const {
  for (std::size_t i = 0; i < caches.size(); ++i)
    if (caches[i].name == n) return i;
  return std::nullopt;
}

double Profile::hit_latency(const PathStep& step) const {
  if (step.kind != PathStep::Kind::cache) return 0;
  return std::isnan(step.latency) ? caches.at(step.cache).latency : step.latency;
}

CacheGeometry Profile::geometry_for(std::size_t i, int carveout) const {
  const CacheSpec& c = caches.at(i);
  if (c.carveout.empty()) return c.geometry;
  const CarveoutConfig* pick = nullptr;
  if (carveout == kCarveoutDriverDefault) {
    for (const auto& k : c.carveout)
      if (k.shared_bytes == c.default_shared) pick = &k;
  } else {
    // The driver rounds a preference up to the next supported shared size.
    std::uint64_t unified = 0;
    for (const auto& k : c.carveout) unified = std::max(unified, k.shared_bytes + k.size_bytes);
    const int pct = std::clamp(carveout, 0, 100);
    const std::uint64_t want = unified * static_cast<std::uint64_t>(pct) / 100;
    for (const auto& k : c.carveout)
      if (k.shared_bytes >= want && (pick == nullptr || k.shared_bytes < pick->shared_bytes)) pick = &k;
    if (pick == nullptr)
      for (const auto& k : c.carveout)
        if (pick == nullptr || k.shared_bytes > pick->shared_bytes) pick = &k;
  }
  if (pick == nullptr) return c.geometry;
  CacheGeometry g = c.geometry;
  const std::uint32_t ways = pick->ways != 0 ? pick->ways : c.geometry.uniform_ways();
  g.set_ways.assign(pick->size_bytes / (g.line_bytes * ways), ways);
  if (pick->replacement) g.replacement = *pick->replacement;
  return g;
}

std::string Profile::summary() const {
  std::ostringstream os;
  os << "device profile " << name << ": " << caches.size() << " cache" << (caches.size() == 1 ? "" : "s") << ", "
     << tlb.size() << " TLB level" << (tlb.size() == 1 ? "" : "s") << ", " << sm_count << " SM"
     << (sm_count == 1 ? "" : "s") << " @ " << clock_khz / 1000.0 << " MHz";
  return os.str();
}

nlohmann::json Profile::ground_truth() const {
  using nlohmann::json;
  json j;
  j["sm_count"] = sm_count;
  j["clock_khz"] = clock_khz;
  j["timer_overhead_cycles"] = timer_overhead;
  json cj = json::object();
  for (const auto& c : caches) {
    const auto& g = c.geometry;
    json x{{"scope", c.per_sm ? "sm" : "device"},
           {"per_sm", c.instances_per_sm},
           {"size_bytes", g.capacity_bytes()},
           {"line_bytes", g.line_bytes},
           {"sector_bytes", g.sector_bytes},
           {"sets", g.sets()},
           {"ways", g.uniform_ways()},
           {"index", g.index.describe()},
           {"replacement", g.replacement.describe()},
           {"latency_cycles", c.latency},
           {"miss_cost_cycles", c.miss_cost},
           {"bandwidth_bytes_per_cycle", c.bandwidth},
           {"write", c.write_back ? "back" : "through"},
           {"write_bandwidth_bytes_per_cycle", c.store_bandwidth()}};
    if (g.uniform_ways() == 0) x["set_ways"] = g.set_ways;
    if (c.partitions.count > 1)
      x["partitions"] = {{"count", c.partitions.count},
                         {"index", c.partitions.index.describe()},
                         {"replicate", c.partitions.replicate},
                         {"far_latency_cycles", c.partitions.far_latency},
                         {"copy_latency_cycles", c.partitions.copy_latency},
                         {"sm_spread_cycles", c.partitions.sm_spread}};
    if (!c.carveout.empty()) {
      json cfgs = json::array();
      for (const auto& k : c.carveout)
        cfgs.push_back({{"shared_bytes", k.shared_bytes}, {"size_bytes", k.size_bytes}, {"ways", k.ways}});
      x["carveout"] = {{"default_shared_bytes", c.default_shared}, {"configs", cfgs}};
    }
    cj[c.name] = x;
  }
  j["caches"] = cj;
  json tj = json::array();
  for (const auto& t : tlb) {
    tj.push_back({{"name", t.name},
                  {"scope", t.per_sm ? "sm" : "device"},
                  {"page_bytes", t.page_bytes},
                  {"pages_per_entry", t.pages_per_entry},
                  {"reach_bytes", t.geometry.line_bytes},
                  {"coverage_bytes", t.geometry.capacity_bytes()},
                  {"entries", t.geometry.lines()},
                  {"set_ways", t.geometry.set_ways.size() <= 64 ? json(t.geometry.set_ways) : json(nullptr)},
                  {"sets", t.geometry.sets()},
                  {"index", t.geometry.index.describe()},
                  {"replacement", t.geometry.replacement.describe()},
                  {"miss_penalty_cycles", t.miss_penalty}});
  }
  j["tlb"] = tj;
  json pj = json::object();
  json lj = json::object();
  for (const auto& [pname, pv] : kPathNames) {
    const PathSpec& ps = path(pv);
    if (!ps.defined) continue;
    json steps = json::array();
    json lat = json::object();
    double extra = 0;  // miss costs of the caches before: what a hit at this level costs on this path
    for (const auto& s : ps.steps) {
      steps.push_back(s.kind == PathStep::Kind::tlb ? std::string("tlb") : caches[s.cache].name);
      if (s.kind != PathStep::Kind::cache) continue;
      lat[caches[s.cache].name] = extra + hit_latency(s);
      extra += caches[s.cache].miss_cost;
    }
    lat["dram"] = extra + dram_latency;
    pj[pname] = steps;
    lj[pname] = lat;
  }
  j["paths"] = pj;
  // Load-to-use cycles (no timer overhead, no TLB misses, near L2 partition) of a
  // hit at each level of each path, and of a DRAM access.
  j["path_latencies"] = lj;
  // Bandwidths in bytes per cycle (caches: per instance, device-wide for scope device;
  // shared memory: per SM; DRAM: device-wide; 0: unlimited).
  j["dram"] = {{"latency_cycles", dram_latency},
               {"bandwidth_bytes_per_cycle", dram_bandwidth},
               {"write_bandwidth_bytes_per_cycle", dram_store_bandwidth()}};
  j["shared"] = {{"size_bytes", shared.size_bytes},
                 {"banks", shared.banks},
                 {"bank_width_bytes", shared.bank_width},
                 {"latency_cycles", shared.latency},
                 {"conflict_cycles", shared.conflict_cycles},
                 {"bandwidth_bytes_per_cycle", shared.load_bandwidth()},
                 {"write_bandwidth_bytes_per_cycle", shared.store_bandwidth()}};
  j["noise"] = {{"enabled", noise.enabled()},
                {"seed", noise.seed},
                {"jitter_cycles", noise.jitter},
                {"outlier_rate", noise.outlier_rate},
                {"outlier_cycles", noise.outlier_cycles}};
  return j;
}

Profile decode_profile(const SpecNode& root, Diagnostics& d) {
  Profile p;
  p.file = root.loc.file;
  if (!root.is_map()) {
    d.error(root.loc, "a device profile must be a mapping of keys (dissect_profile:, name:, caches:, ...), got " +
                          root.kind_name());
    return p;
  }
  Reader top(&root, "", kTopKeys, d);
  if (const SpecNode* v = top.get("dissect_profile")) {
    if (!v->is_scalar() || v->scalar != std::to_string(kProfileFormatVersion))
      d.error(v->loc, "dissect_profile: this build reads profile format " + std::to_string(kProfileFormatVersion) +
                          ", the file says '" + (v->is_scalar() ? v->scalar : v->kind_name()) + "'");
  } else {
    d.error(Location{root.loc.file, 1, 1}, "missing 'dissect_profile: 1' (it marks the file as a device profile)");
  }
  top.require("name", "fermi-gtx560ti");
  if (auto v = top.text("name")) p.name = *v;
  if (auto v = top.text("description")) p.description = *v;
  if (auto v = top.text("source")) p.source = *v;
  if (auto v = top.text("arch")) p.arch = *v;
  if (auto v = top.number("timer_overhead", 0, 1e6)) p.timer_overhead = *v;
  if (auto v = top.count("seed", 0, ~0ull)) p.seed = *v;

  top.require("sm", "{count: 8, clock_mhz: 1645}");
  {
    Reader r(top.get("sm"), "sm.", {"count", "clock_mhz", "warp_size"}, d);
    r.require("count", "8");
    r.require("clock_mhz", "1645");
    if (auto v = r.count("count", 1, 4096)) p.sm_count = static_cast<std::uint32_t>(*v);
    if (auto v = r.number("clock_mhz", 1, 1e5)) p.clock_khz = *v * 1000.0;
    if (auto v = r.count("warp_size", 1, 1024)) p.warp_size = static_cast<std::uint32_t>(*v);
  }
  {
    Reader r(top.get("address"), "address.", {"base", "translation", "page"}, d);
    if (auto v = r.bytes("base", false)) p.address_base = *v;
    if (auto v = r.bytes("page", true)) p.translation_page = *v;
    if (const SpecNode* t = r.get("translation")) {
      auto v = read_enum(t, r.name("translation"),
                         std::vector<std::pair<std::string, bool>>{{"identity", false}, {"scrambled", true}}, d);
      if (v) p.scrambled = *v;
    }
    if (!is_pow2(p.translation_page) && r.has("page"))
      d.error(r.get("page")->loc, "address.page must be a power of two");
    if (p.address_base % (2ull << 20) != 0 && r.has("base"))
      d.error(r.get("base")->loc, "address.base must be 2 MiB aligned, got " + format_bytes(p.address_base));
  }

  top.require("caches", "{l2: {scope: device, size: 512 KiB, line: 32 B, ways: 16, latency: 371}}");
  if (const SpecNode* cn = top.get("caches")) {
    if (!cn->is_map()) {
      d.error(cn->loc, "caches: expected a mapping of named caches (e.g. 'l1: {size: 16 KiB, ...}')");
    } else {
      for (const auto& e : cn->entries) {
        if (e.key == "tlb") {
          d.error(e.key_loc, "caches: 'tlb' is reserved for the translation step in paths; name the cache differently");
          continue;
        }
        decode_cache(e.key, e.value, e.key_loc, p, d);
      }
    }
  }
  if (const SpecNode* tn = top.get("tlb")) decode_tlb(*tn, p, d);
  if (!p.tlb.empty() && top.get("address") != nullptr && top.get("address")->find("page") == nullptr)
    p.translation_page = p.tlb.front().page_bytes;
  else if (!p.tlb.empty() && top.get("address") == nullptr)
    p.translation_page = p.tlb.front().page_bytes;
  // A coalesced entry stands for contiguous frames; a scrambled mapping has none.
  for (const auto& t : p.tlb)
    if (t.pages_per_entry > 1 && p.scrambled)
      d.error(t.loc, "tlb: pages_per_entry > 1 (coalesced entries) needs contiguous frames: address.translation "
                     "must be identity");

  top.require("paths", "{ca: [l1, l2], cg: [l2]}");
  if (const SpecNode* pn = top.get("paths")) decode_paths(*pn, p, d);

  top.require("dram", "{latency: 600}");
  {
    Reader r(top.get("dram"), "dram.", {"latency", "bandwidth", "write_bandwidth", "size"}, d);
    r.require("latency", "600");
    if (auto v = r.number("latency", 0, 1e7)) p.dram_latency = *v;
    if (auto v = r.number("bandwidth", 0, 1e9)) p.dram_bandwidth = *v;
    if (auto v = r.number("write_bandwidth", 0, 1e9)) p.dram_write_bandwidth = *v;
    if (auto v = r.bytes("size", true)) p.memory_bytes = *v;
  }
  {
    Reader r(top.get("shared"), "shared.",
             {"size", "banks", "bank_width", "latency", "conflict_cycles", "bandwidth", "write_bandwidth"}, d);
    if (auto v = r.bytes("size", true)) p.shared.size_bytes = *v;
    if (auto v = r.count("banks", 1, 1024)) p.shared.banks = static_cast<std::uint32_t>(*v);
    if (auto v = r.bytes("bank_width", true)) p.shared.bank_width = *v;
    if (auto v = r.number("latency", 0, 1e6)) p.shared.latency = *v;
    if (auto v = r.number("conflict_cycles", 0, 1e6)) p.shared.conflict_cycles = *v;
    if (auto v = r.number("bandwidth", 0, 1e9)) p.shared.bandwidth = *v;
    if (auto v = r.number("write_bandwidth", 0, 1e9)) p.shared.write_bandwidth = *v;
  }
  {
    Reader r(top.get("coalescing"), "coalescing.", {"line_cycles", "sector_cycles"}, d);
    if (auto v = r.number("line_cycles", 0, 1e6)) p.coalesce_line_cycles = *v;
    if (auto v = r.number("sector_cycles", 0, 1e6)) p.coalesce_sector_cycles = *v;
  }
  {
    Reader r(top.get("noise"), "noise.", {"seed", "distribution", "jitter", "outlier_rate", "outlier_cycles"}, d);
    if (auto v = r.count("seed", 0, ~0ull)) p.noise.seed = *v;
    if (auto v = r.number("jitter", 0, 1e6)) {
      p.noise.jitter = *v;
      p.noise.distribution = NoiseSpec::Distribution::uniform;
    }
    if (const SpecNode* n = r.get("distribution")) {
      auto v = read_enum(n, r.name("distribution"),
                         std::vector<std::pair<std::string, NoiseSpec::Distribution>>{
                             {"none", NoiseSpec::Distribution::none},
                             {"uniform", NoiseSpec::Distribution::uniform},
                             {"normal", NoiseSpec::Distribution::normal}},
                         d);
      if (v) p.noise.distribution = *v;
    }
    if (auto v = r.number("outlier_rate", 0, 1)) p.noise.outlier_rate = *v;
    if (auto v = r.number("outlier_cycles", -1e6, 1e7)) p.noise.outlier_cycles = *v;
  }
  return p;
}

Profile load_profile_text(const std::string& text, const std::string& file) {
  SpecNode root = parse_yaml(text, file);
  Diagnostics d;
  Profile p = decode_profile(root, d);
  if (!d.empty()) throw SpecError(d);
  p.file = file;
  p.text = text;
  return p;
}

Profile load_profile_file(const std::string& path) { return load_profile_text(read_spec_file(path), path); }

std::vector<std::string> profile_names() {
  std::vector<std::string> out;
  const fs::path dir = fs::path(specs_dir()) / "devices";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return out;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const auto ext = e.path().extension().string();
    if (e.is_regular_file() && (ext == ".yaml" || ext == ".yml")) out.push_back(e.path().stem().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string resolve_profile_path(const std::string& name_or_path) {
  std::error_code ec;
  const bool looks_like_path = name_or_path.find('/') != std::string::npos ||
                               name_or_path.ends_with(".yaml") || name_or_path.ends_with(".yml");
  if (looks_like_path && fs::is_regular_file(name_or_path, ec)) return name_or_path;
  const fs::path dir = fs::path(specs_dir()) / "devices";
  for (const char* ext : {".yaml", ".yml"}) {
    const fs::path f = dir / (name_or_path + ext);
    if (fs::is_regular_file(f, ec)) return f.string();
  }
  const auto names = profile_names();
  std::string msg = "no device profile '" + name_or_path + "' (looked for " + (dir / (name_or_path + ".yaml")).string() +
                    (looks_like_path ? " and the file " + name_or_path : std::string()) + ")";
  const std::string guess = closest_match(name_or_path, names);
  if (!guess.empty()) msg += "; did you mean 'sim:" + guess + "'?";
  msg += names.empty() ? std::string("; no profiles are installed") : "; available:";
  for (const auto& n : names) msg += " sim:" + n;
  throw RunError(msg);
}

}  // namespace dissect::sim
