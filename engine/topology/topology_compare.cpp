#include "engine/topology/topology_compare.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>

#include "engine/core/paths.hpp"
#include "engine/report/report_format.hpp"
#include "engine/spec/units.hpp"
#include "engine/topology/topology_result.hpp"

namespace dissect {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// Sizes in the largest binary unit they reach, to 6 significant digits ("183.5 KiB",
// "23.25 MiB", "139.801 GiB"): a table read at a glance, exact for search steps.
std::string bytes_text(double v) { return report::binary_size_text(v); }

// Device names in verdicts without the vendor ("H100 80GB HBM3").
std::string short_device(const std::string& d) { return d.rfind("NVIDIA ", 0) == 0 ? d.substr(7) : d; }

enum class Kind { bytes, size, cycles, count, text, gbps, mhz, penalty };

using Range = std::pair<double, double>;

struct RowSpec {
  std::string key, label;
  Kind kind;
  std::function<std::optional<double>(const TopologyFile&)> number;
  std::function<std::optional<std::string>(const TopologyFile&)> text;  // display override
  std::string size_cache;                                                // Kind::size: the cache searched
  // Kind::size of a figure that is the searched size times a count the file records (the
  // L2 from every SM: the per-SM knee times the SMs): the key of that count in the cache.
  std::string step_scale_key = {};
  // A figure that may be a range (Kind::count or Kind::bytes endpoints): compared by overlap.
  std::function<std::optional<Range>(const TopologyFile&)> range = {};
};

const char* unit_of(Kind k) {
  switch (k) {
    case Kind::bytes:
    case Kind::size: return "B";
    case Kind::cycles:
    case Kind::penalty: return "cycles";
    case Kind::gbps: return "GB/s";
    case Kind::mhz: return "MHz";
    case Kind::text: return "text";
    case Kind::count: break;
  }
  return "";
}

std::optional<double> cache_latency(const TopologyFile& t, const std::string& c) {
  if (auto v = t.cache_number(c, "latency_corrected_cycles")) return v;
  return t.cache_number(c, "latency_cycles");
}

std::optional<double> l2_level(const TopologyFile& t, std::size_t i) {
  const json& caches = t.topology["caches"];
  if (!caches.contains("l2") || !caches["l2"].contains("hit_levels_cycles")) return std::nullopt;
  const json& v = caches["l2"]["hit_levels_cycles"];
  if (!v.is_array() || v.size() <= i || !v[i].is_number()) return std::nullopt;
  return v[i].get<double>();
}

std::optional<double> bandwidth(const TopologyFile& t, const std::string& which) {
  if (!t.topology.contains("bandwidth") || !t.topology["bandwidth"].is_object()) return std::nullopt;
  const json& b = t.topology["bandwidth"];
  if (!b.contains(which) || !b[which].is_object()) return std::nullopt;
  const json& r = b[which];
  if (r.contains("gbps") && r["gbps"].is_number()) return r["gbps"].get<double>();
  if (r.contains("value") && r["value"].is_number() && r.value("unit", "") == "GB/s") return r["value"].get<double>();
  return std::nullopt;
}

const json* tlb_level(const TopologyFile& t, std::size_t i) {
  if (!t.topology.contains("tlb") || !t.topology["tlb"].is_object()) return nullptr;
  const json& tlb = t.topology["tlb"];
  if (!tlb.contains("levels") || !tlb["levels"].is_array() || tlb["levels"].size() <= i) return nullptr;
  const json& l = tlb["levels"][i];
  return l.is_object() ? &l : nullptr;
}

std::optional<double> level_number(const TopologyFile& t, std::size_t i, const char* key) {
  const json* l = tlb_level(t, i);
  if (l == nullptr || !l->contains(key) || !(*l)[key].is_number()) return std::nullopt;
  return (*l)[key].get<double>();
}

// "undetermined" is no reading: a run that says it has no figure for the row.
std::optional<std::string> level_text(const TopologyFile& t, std::size_t i, const char* key) {
  const json* l = tlb_level(t, i);
  if (l == nullptr || !l->contains(key) || !(*l)[key].is_string()) return std::nullopt;
  std::string v = (*l)[key].get<std::string>();
  if (v == "undetermined") return std::nullopt;
  return v;
}

// A level's figure that is exact (`key`) or a range (`range_key`: [lo, hi]).
std::optional<Range> level_range(const TopologyFile& t, std::size_t i, const char* key, const char* range_key) {
  if (auto v = level_number(t, i, key)) return Range{*v, *v};
  const json* l = tlb_level(t, i);
  if (l == nullptr || !l->contains(range_key)) return std::nullopt;
  const json& r = (*l)[range_key];
  if (!r.is_array() || r.size() != 2 || !r[0].is_number() || !r[1].is_number()) return std::nullopt;
  return Range{r[0].get<double>(), r[1].get<double>()};
}

// A level's figure that is exact (`key`), a range (`range_key`) or bounded (`at_least_key`:
// [bound, infinity); `at_most_key`: [1, bound]), in that order of preference.
std::optional<Range> level_bounded(const TopologyFile& t, std::size_t i, const char* key, const char* range_key,
                                   const char* at_least_key, const char* at_most_key) {
  if (auto r = range_key != nullptr ? level_range(t, i, key, range_key) : std::nullopt) return r;
  if (auto v = level_number(t, i, key)) return Range{*v, *v};
  if (at_least_key != nullptr)
    if (auto v = level_number(t, i, at_least_key)) return Range{*v, std::numeric_limits<double>::infinity()};
  if (at_most_key != nullptr)
    if (auto v = level_number(t, i, at_most_key)) return Range{1.0, *v};
  return std::nullopt;
}

// A TLB level's rows, levels numbered as in the topology's table (by coverage).
void add_tlb_level_rows(std::vector<RowSpec>& rows, std::size_t i) {
  const std::string base = "tlb.levels[" + std::to_string(i) + "].";
  const std::string name = "TLB L" + std::to_string(i + 1) + " ";
  rows.push_back({base + "entries", name + "entries", Kind::count, {}, {}, {}, {},
                  [i](const TopologyFile& t) {
                    return level_bounded(t, i, "entries", "entries_range", "entries_at_least", nullptr);
                  }});
  rows.push_back({base + "reach_bytes", name + "reach", Kind::bytes, {}, {}, {}, {},
                  [i](const TopologyFile& t) {
                    return level_bounded(t, i, "reach_bytes", nullptr, nullptr, "reach_at_most_bytes");
                  }});
  rows.push_back({base + "coverage_bytes", name + "coverage", Kind::bytes, {}, {}, {}, {},
                  [i](const TopologyFile& t) { return level_range(t, i, "coverage_bytes", "coverage_range_bytes"); }});
  rows.push_back({base + "miss_penalty_cycles", name + "miss penalty", Kind::penalty,
                  [i](const TopologyFile& t) { return level_number(t, i, "miss_penalty_cycles"); }, {}, {}});
  rows.push_back({base + "associativity", name + "associativity", Kind::text, {},
                  [i](const TopologyFile& t) { return level_text(t, i, "associativity"); }, {}});
  rows.push_back({base + "sets", name + "sets", Kind::count,
                  [i](const TopologyFile& t) { return level_number(t, i, "sets"); }, {}, {}});
  rows.push_back({base + "scope", name + "scope", Kind::text, {},
                  [i](const TopologyFile& t) { return level_text(t, i, "scope"); }, {}});
}

std::vector<RowSpec> row_specs(std::size_t tlb_levels) {
  std::vector<RowSpec> rows;
  const std::vector<std::pair<std::string, std::string>> caches{
      {"l1", "L1 data"},          {"l1_carveout", "L1 data, other carveout"},
      {"texture", "texture"},     {"texture_carveout", "texture, other carveout"},
      {"readonly", "read-only"},  {"readonly_carveout", "read-only, other carveout"},
      {"constant_l1", "constant L1"}, {"constant_l15", "constant L1.5"},
      {"l2", "L2"},               {"dram", "main memory"},
      {"shared", "shared memory"}};
  auto num = [](std::string c, std::string k) {
    return [c, k](const TopologyFile& t) { return t.cache_number(c, k); };
  };
  for (const auto& [c, name] : caches) {
    const std::string base = "caches." + c + ".";
    if (c != "dram" && c != "shared") {
      const bool searched =
          c == "l1" || c == "l1_carveout" || c == "texture" || c == "texture_carveout" || c == "readonly" ||
          c == "readonly_carveout" || c == "constant_l1" || c == "l2";
      // The L2's one-SM figure: one_sm_bytes, or size_bytes in files written before the L2's
      // size_bytes became the whole GPU's (they have no one_sm_bytes); the whole GPU's is the
      // "every SM" row below.
      RowSpec size{base + (c == "l2" ? "one_sm_bytes" : "size_bytes"), name + " size" + (c == "l2" ? " (one SM)" : ""),
                   Kind::size,
                   c == "l2" ? std::function<std::optional<double>(const TopologyFile&)>([](const TopologyFile& t) {
                     if (auto one = t.cache_number("l2", "one_sm_bytes")) return one;
                     return t.cache_number("l2", "size_bytes");
                   })
                             : num(c, "size_bytes"),
                   [c](const TopologyFile& t) -> std::optional<std::string> {
                     if (t.cache_number(c, "size_bytes") || (c == "l2" && t.cache_number(c, "one_sm_bytes")))
                       return std::nullopt;
                     if (auto lb = t.cache_number(c, "size_lower_bound_bytes"))
                       return "> " + bytes_text(*lb);
                     if (t.cache_string(c, "size_note")) return std::string("undetermined");
                     return std::nullopt;
                   },
                   searched ? c : std::string()};
      if (!searched) size.kind = Kind::bytes;
      rows.push_back(size);
      if (c == "l2") rows.push_back({base + "driver_size_bytes", "L2 size (driver)", Kind::bytes, num(c, "driver_size_bytes"), {}, {}});
      if (c == "l2")
        rows.push_back({base + "whole_gpu_bytes", "L2 size (every SM)", Kind::size, num(c, "whole_gpu_bytes"),
                        [](const TopologyFile& t) -> std::optional<std::string> {
                          if (t.cache_number("l2", "whole_gpu_bytes")) return std::nullopt;
                          if (t.cache_string("l2", "whole_gpu_note")) return std::string("undetermined");
                          return std::nullopt;
                        },
                        "l2_whole", "whole_gpu_sms"});
      if (c == "l2")
        rows.push_back({base + "partition_copies.verdict", "L2 far lines", Kind::text, {},
                        [](const TopologyFile& t) -> std::optional<std::string> {
                          const json all = t.topology.value("caches", json::object());
                          if (!all.contains("l2") || !all["l2"].contains("partition_copies")) return std::nullopt;
                          const json& p = all["l2"]["partition_copies"];
                          if (!p.contains("verdict") || !p["verdict"].is_string()) return std::nullopt;
                          return p["verdict"].get<std::string>();
                        },
                        {}});
      rows.push_back({base + "line_bytes", name + " line", Kind::bytes, num(c, "line_bytes"), {}, {}});
      rows.push_back({base + "fetch_bytes", name + " fetch granularity", Kind::bytes, num(c, "fetch_bytes"), {}, {}});
    }
    rows.push_back({base + "latency_corrected_cycles", name + " latency", Kind::cycles,
                    [c](const TopologyFile& t) { return cache_latency(t, c); }, {}, {}});
    if (c == "l2") {
      rows.push_back({base + "hit_levels_cycles[0]", "L2 near hit level", Kind::cycles,
                      [](const TopologyFile& t) { return l2_level(t, 0); }, {}, {}});
      rows.push_back({base + "hit_levels_cycles[1]", "L2 far hit level", Kind::cycles,
                      [](const TopologyFile& t) { return l2_level(t, 1); }, {}, {}});
    }
    if (c != "dram" && c != "shared") {
      rows.push_back({base + "sets", name + " sets", Kind::count, num(c, "sets"), {}, {}});
      rows.push_back({base + "ways", name + " ways", Kind::count, num(c, "ways"), {}, {}});
      rows.push_back({base + "replacement", name + " replacement", Kind::text, {},
                      [c](const TopologyFile& t) { return t.cache_string(c, "replacement"); }, {}});
      rows.push_back({base + "per_sm", name + " per SM", Kind::count, num(c, "per_sm"), {}, {}});
    }
    if (c == "shared") {
      rows.push_back({base + "banks", "shared memory banks", Kind::count, num(c, "banks"), {}, {}});
      rows.push_back({base + "bank_width_bytes", "shared memory bank width", Kind::bytes, num(c, "bank_width_bytes"), {}, {}});
      rows.push_back({base + "driver_per_sm_bytes", "shared memory per SM (driver)", Kind::bytes,
                      num(c, "driver_per_sm_bytes"), {}, {}});
    }
  }
  rows.push_back({"tlb.levels", "TLB levels found", Kind::count,
                  [](const TopologyFile& t) -> std::optional<double> {
                    if (!t.topology.contains("tlb") || !t.topology["tlb"].is_object()) return std::nullopt;
                    const json& tlb = t.topology["tlb"];
                    if (tlb.contains("levels") && tlb["levels"].is_array())
                      return static_cast<double>(tlb["levels"].size());
                    if (tlb.contains("levels_note")) return 0.0;
                    return std::nullopt;
                  },
                  {}, {}});
  // Levels in order of coverage, as the topology's table numbers them: a GPU that lacks
  // one shifts the later rows (the "levels found" row says so).
  for (std::size_t i = 0; i < tlb_levels; ++i) add_tlb_level_rows(rows, i);
  // The page, or the bound scattered frames give ("at most 2 MiB", shown so): a range from
  // one byte, so that a page within a bound is no difference.
  rows.push_back({"tlb.page_bytes", "page size", Kind::bytes, {},
                  [](const TopologyFile& t) -> std::optional<std::string> {
                    if (!t.topology.contains("tlb") || !t.topology["tlb"].is_object()) return std::nullopt;
                    const json& tlb = t.topology["tlb"];
                    if (tlb.contains("page_bytes") && tlb["page_bytes"].is_number()) return std::nullopt;
                    if (tlb.contains("page_at_most_bytes") && tlb["page_at_most_bytes"].is_number())
                      return "at most " + bytes_text(tlb["page_at_most_bytes"].get<double>());
                    return std::nullopt;
                  },
                  {}, {},
                  [](const TopologyFile& t) -> std::optional<Range> {
                    if (!t.topology.contains("tlb") || !t.topology["tlb"].is_object()) return std::nullopt;
                    const json& tlb = t.topology["tlb"];
                    if (tlb.contains("page_bytes") && tlb["page_bytes"].is_number())
                      return Range{tlb["page_bytes"].get<double>(), tlb["page_bytes"].get<double>()};
                    if (tlb.contains("page_at_most_bytes") && tlb["page_at_most_bytes"].is_number())
                      return Range{1.0, tlb["page_at_most_bytes"].get<double>()};
                    return std::nullopt;
                  }});
  // Every bandwidth figure, read and write of each level.
  for (const auto& m : bandwidth_measures()) {
    const std::string key = m.key;
    rows.push_back({"bandwidth." + key, std::string(m.label) + " bandwidth", Kind::gbps,
                    [key](const TopologyFile& t) { return bandwidth(t, key); }, {}, {}});
  }
  rows.push_back({"device.sm_count", "SMs (driver)", Kind::count,
                  [](const TopologyFile& t) { return t.device_number("sm_count"); }, {}, {}});
  rows.push_back({"device.sm_clock_khz", "SM clock (driver)", Kind::mhz,
                  [](const TopologyFile& t) -> std::optional<double> {
                    if (auto k = t.device_number("sm_clock_khz")) return *k / 1000.0;
                    return std::nullopt;
                  },
                  {}, {}});
  rows.push_back({"device.memory_bytes", "device memory (driver)", Kind::bytes,
                  [](const TopologyFile& t) { return t.device_number("memory_bytes"); }, {}, {}});
  rows.push_back({"device.allocation_granularity_bytes", "allocation granularity (driver)", Kind::bytes,
                  [](const TopologyFile& t) { return t.device_number("allocation_granularity_bytes"); }, {}, {}});
  return rows;
}

// The resolution of a size step's knee search, from its spec (sweep
// "array.size": {resolution: 0.1%} or a size), and the spec's stride.
struct Resolution {
  double share = 0;              // relative
  std::uint64_t bytes = 0;       // absolute
  std::uint64_t stride = 0;      // the spec's own stride (the topology sets the fetch granularity)
  std::string text;
};

std::optional<Resolution> size_resolution(const std::string& specs_root, const std::string& cache) {
  const fs::path spec = fs::path(specs_root) / "topology" / (cache + "_size.yaml");
  std::error_code ec;
  if (!fs::is_regular_file(spec, ec)) return std::nullopt;
  try {
    const YAML::Node root = YAML::LoadFile(spec.string());
    const YAML::Node sweep = root["sweep"];
    if (!sweep || !sweep["array.size"] || !sweep["array.size"]["resolution"]) return std::nullopt;
    Resolution r;
    r.text = sweep["array.size"]["resolution"].as<std::string>();
    std::string error;
    if (!r.text.empty() && r.text.back() == '%') {
      r.share = std::stod(r.text.substr(0, r.text.size() - 1)) / 100.0;
    } else if (auto q = parse_quantity(r.text, "B", error); q && q->unit == QuantityUnit::bytes) {
      r.bytes = q->amount;
    } else {
      return std::nullopt;
    }
    if (root["array"] && root["array"]["stride"])
      if (auto q = parse_quantity(root["array"]["stride"].as<std::string>(), "B", error);
          q && q->unit == QuantityUnit::bytes)
        r.stride = q->amount;
    return r;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The topology's record of a size step (experiments[].id == "<cache>_size").
const json* size_experiment(const TopologyFile& t, const std::string& cache) {
  if (!t.topology.contains("experiments") || !t.topology["experiments"].is_array()) return nullptr;
  for (const auto& e : t.topology["experiments"])
    if (e.is_object() && e.value("id", std::string()) == cache + "_size") return &e;
  return nullptr;
}

// A search step the topology recorded ("resolution_bytes" anywhere in the step's record).
std::optional<std::uint64_t> recorded_step(const json& j) {
  if (j.is_object()) {
    if (j.contains("resolution_bytes") && j["resolution_bytes"].is_number() && j["resolution_bytes"].get<double>() > 0)
      return static_cast<std::uint64_t>(j["resolution_bytes"].get<double>());
    for (const auto& [k, v] : j.items())
      if (auto r = recorded_step(v)) return r;
  } else if (j.is_array()) {
    for (const auto& v : j)
      if (auto r = recorded_step(v)) return r;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> override_stride(const json& experiment) {
  if (!experiment.contains("overrides") || !experiment["overrides"].is_object()) return std::nullopt;
  const json& o = experiment["overrides"];
  if (!o.contains("array.stride") || !o["array.stride"].is_string()) return std::nullopt;
  std::string error;
  const auto q = parse_quantity(o["array.stride"].get<std::string>(), "B", error);
  if (!q || q->unit != QuantityUnit::bytes) return std::nullopt;
  return q->amount;
}

// The adaptive search's step at a size (engine/run/adaptive_search.cpp): a share
// of the size, rounded down to 4 B x a power of two, at least the stride.
std::uint64_t search_step(const Resolution& r, double size, std::uint64_t stride) {
  if (r.share <= 0) return std::max(r.bytes, stride);
  const auto share_of = static_cast<std::uint64_t>(r.share * size);
  std::uint64_t step = 4;
  while (step * 2 <= share_of) step *= 2;
  return std::max(step, stride);
}

std::string number_text(Kind k, double v) {
  switch (k) {
    case Kind::bytes:
    case Kind::size: return bytes_text(v);
    case Kind::cycles:
    case Kind::penalty: return fmt::format("{:.1f}", v);
    case Kind::gbps: return fmt::format("{:.0f}", v);
    case Kind::mhz: return fmt::format("{:.0f}", v);
    case Kind::count:
      return std::fabs(v - std::round(v)) < 1e-9 ? fmt::format("{:.0f}", v) : fmt::format("{:.2f}", v);
    case Kind::text: break;
  }
  return fmt::format("{}", v);
}

std::string amount_text(Kind k, double v) {
  if (k == Kind::bytes || k == Kind::size) return bytes_text(v);
  const std::string u = unit_of(k);
  return number_text(k == Kind::count ? Kind::count : Kind::cycles, v) + (u.empty() ? "" : " " + u);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// A row's verdict: how the GPUs compare (`parts`: the differences found; `present` and
// `absent`: the GPUs that measured the row and those that did not), then each GPU's repeat
// runs. `spread_amount`: an unstable group says by how much its runs vary (numeric rows).
std::string compose_verdict(const CompareRow& row, Kind kind, bool spread_amount, const std::vector<std::string>& parts,
                            const std::vector<std::string>& present, const std::vector<std::string>& absent) {
  auto join = [](const std::vector<std::string>& v, const char* sep) {
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : sep) + x;
    return out;
  };
  std::string verdict;
  if (row.differs) verdict = "**differs**: " + join(parts, "; ");
  else if (row.groups.size() > 1 && !absent.empty()) verdict = "measured on " + join(present, ", ") + " only";
  else if (row.groups.size() > 1) verdict = "same";
  for (const auto& g : row.groups) {
    std::size_t measured = 0;
    for (std::size_t i : g.inputs) measured += row.texts[i] ? 1 : 0;
    if (g.inputs.size() < 2 || measured == 0) continue;
    std::string s;
    if (g.stable)
      s = fmt::format("{} runs of {} stable", g.inputs.size(), short_device(g.device));
    else if (spread_amount && g.spread)
      s = fmt::format("{} varies by {} over {} runs", short_device(g.device), amount_text(kind, *g.spread),
                      g.inputs.size());
    else
      s = fmt::format("{} differs between its {} runs", short_device(g.device), g.inputs.size());
    verdict += (verdict.empty() ? "" : "; ") + s;
  }
  return verdict.empty() ? "-" : verdict;
}

// "4096", "2048 .. 2049", "at least 4506" (a bound with no upper end), "at most 64 MiB"
// (a size bounded from above: from 1 B).
std::string range_text(Kind kind, const Range& r) {
  if (r.first == r.second) return number_text(kind, r.first);
  if (std::isinf(r.second)) return "at least " + number_text(kind, r.first);
  if (r.first <= 1 && kind == Kind::bytes) return "at most " + number_text(kind, r.second);
  return number_text(kind, r.first) + " .. " + number_text(kind, r.second);
}

// Range rows: runs of one GPU agree when one value lies in every run's range; GPUs
// differ when their runs' ranges (each group's hull) share no value.
void compare_ranges(CompareRow& row, Kind kind, const Comparison& c, const std::vector<std::size_t>& group_of) {
  row.tolerance = 0;
  row.tolerance_source = "ranges share a value";
  std::vector<std::optional<Range>> hulls;
  for (std::size_t g = 0; g < c.devices.size(); ++g) {
    CompareRow::Group group;
    group.device = c.devices[g];
    std::optional<Range> common, hull;
    std::size_t present = 0;
    for (std::size_t i = 0; i < c.inputs.size(); ++i) {
      if (group_of[i] != g) continue;
      group.inputs.push_back(i);
      if (!row.ranges[i]) continue;
      ++present;
      const Range& r = *row.ranges[i];
      common = common ? Range{std::max(common->first, r.first), std::min(common->second, r.second)} : r;
      hull = hull ? Range{std::min(hull->first, r.first), std::max(hull->second, r.second)} : r;
    }
    // Stable: every run measured it and one value lies in every range (or none measured it,
    // as numeric rows read it). The spread is how far the ranges miss each other, not their width.
    group.stable = present == 0 || (present == group.inputs.size() && common->first <= common->second);
    if (common && present >= 2) group.spread = std::max(0.0, common->first - common->second);
    row.groups.push_back(group);
    hulls.push_back(hull);
  }
  std::vector<std::string> parts, present, absent;
  std::optional<std::size_t> ref;
  for (std::size_t g = 0; g < row.groups.size(); ++g) {
    if (!hulls[g]) {
      absent.push_back(short_device(row.groups[g].device));
      continue;
    }
    present.push_back(short_device(row.groups[g].device));
    if (!ref) {
      ref = g;
      continue;
    }
    const Range& a = *hulls[*ref];
    const Range& b = *hulls[g];
    if (b.first > a.second || a.first > b.second) {
      row.differs = true;
      parts.push_back(fmt::format("{} {} vs {} {}", short_device(row.groups[g].device), range_text(kind, b),
                                  short_device(row.groups[*ref].device), range_text(kind, a)));
    }
  }
  row.verdict = compose_verdict(row, kind, false, parts, present, absent);
}

}  // namespace

std::vector<std::string> default_labels(const std::vector<std::string>& paths) {
  std::vector<std::vector<std::string>> parts;
  for (const auto& p : paths) {
    std::vector<std::string> v;
    for (const auto& e : fs::path(p).lexically_normal()) {
      const std::string s = e.string();
      if (!s.empty() && s != "/") v.push_back(s);
    }
    if (!v.empty() && v.back() == "topology.json") v.pop_back();
    if (!v.empty() && v.back().size() > 5 && v.back().ends_with(".json")) v.back().resize(v.back().size() - 5);
    parts.push_back(v);
  }
  std::size_t common = 0;
  if (parts.size() > 1)
    while (true) {
      bool same = true;
      for (const auto& v : parts) same = same && v.size() > common + 1 && v[common] == parts[0][common];
      if (!same) break;
      ++common;
    }
  std::vector<std::string> labels;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    std::string l;
    for (std::size_t k = common; k < parts[i].size(); ++k) {
      if (parts[i][k] == "topology" && k + 1 < parts[i].size()) continue;
      l += (l.empty() ? "" : "/") + parts[i][k];
    }
    labels.push_back(l.empty() ? paths[i] : l);
  }
  return labels;
}

Comparison compare_topologies(std::vector<TopologyFile> inputs, const std::string& specs_root_in) {
  Comparison c;
  c.inputs = std::move(inputs);
  const std::string specs_root = specs_root_in.empty() ? specs_dir() : specs_root_in;
  std::vector<std::size_t> group_of;
  for (const auto& t : c.inputs) {
    const std::string d = t.device_name();
    auto it = std::find(c.devices.begin(), c.devices.end(), d);
    if (it == c.devices.end()) {
      c.devices.push_back(d);
      it = c.devices.end() - 1;
    }
    group_of.push_back(static_cast<std::size_t>(it - c.devices.begin()));
  }
  std::map<std::string, std::optional<Resolution>> resolutions;

  std::size_t tlb_levels = 0;
  for (const auto& t : c.inputs)
    if (t.topology.contains("tlb") && t.topology["tlb"].is_object() && t.topology["tlb"].contains("levels") &&
        t.topology["tlb"]["levels"].is_array())
      tlb_levels = std::max(tlb_levels, t.topology["tlb"]["levels"].size());
  for (const RowSpec& spec : row_specs(tlb_levels)) {
    CompareRow row;
    row.key = spec.key;
    row.label = spec.label;
    row.unit = unit_of(spec.kind);
    bool any = false;
    for (const auto& t : c.inputs) {
      std::optional<double> n = spec.number ? spec.number(t) : std::nullopt;
      std::optional<std::string> text = spec.text ? spec.text(t) : std::nullopt;
      const std::optional<Range> range = spec.range ? spec.range(t) : std::nullopt;
      if (range && !text) text = range_text(spec.kind, *range);
      if (n && !text) text = number_text(spec.kind, *n);
      any = any || n || text || range;
      row.numbers.push_back(n);
      row.texts.push_back(text);
      row.ranges.push_back(range);
    }
    if (!any) continue;

    if (spec.range) {
      compare_ranges(row, spec.kind, c, group_of);
      c.rows.push_back(std::move(row));
      continue;
    }

    // Tolerance.
    double max_value = 0;
    for (const auto& n : row.numbers)
      if (n) max_value = std::max(max_value, std::fabs(*n));
    switch (spec.kind) {
      case Kind::size: {
        if (!resolutions.count(spec.size_cache)) resolutions[spec.size_cache] = size_resolution(specs_root, spec.size_cache);
        const auto& r = resolutions[spec.size_cache];
        std::uint64_t step = 0;
        bool recorded = false;
        for (std::size_t i = 0; i < c.inputs.size(); ++i) {
          if (!row.numbers[i]) continue;
          // A figure that is the searched size times a count: the step scales with it.
          std::uint64_t scale = 1;
          if (!spec.step_scale_key.empty())
            if (auto n = c.inputs[i].cache_number("l2", spec.step_scale_key); n && *n >= 1)
              scale = static_cast<std::uint64_t>(*n);
          const json* experiment = size_experiment(c.inputs[i], spec.size_cache);
          if (auto rec = experiment != nullptr ? recorded_step(*experiment) : std::nullopt) {
            step = std::max(step, *rec * scale);
            recorded = true;
            continue;
          }
          // The stride the search used: the step's override (the fetch granularity
          // measured before), else the fetch granularity, else the spec's own.
          std::uint64_t stride = experiment != nullptr ? override_stride(*experiment).value_or(0) : 0;
          if (stride == 0)
            if (auto f = c.inputs[i].cache_number(spec.size_cache, "fetch_bytes")) stride = static_cast<std::uint64_t>(*f);
          if (r) {
            if (stride == 0) stride = r->stride;
            step = std::max(step, scale * search_step(*r, *row.numbers[i] / static_cast<double>(scale), stride));
          } else {
            step = std::max(step, scale * stride);
          }
        }
        row.tolerance = static_cast<double>(step);
        row.tolerance_source =
            recorded ? fmt::format("search step {} (recorded in topology.json)", format_bytes(step))
            : r      ? fmt::format("search step {} ({}_size: resolution {}, at least the stride)", format_bytes(step),
                                   spec.size_cache, r->text)
                     : fmt::format("stride {} (the size step's spec was not found)", format_bytes(step));
        break;
      }
      case Kind::cycles:
        row.tolerance = std::max(0.5, 0.01 * max_value);
        row.tolerance_source = "noise floor: 1 %, at least 0.5 cycles";
        break;
      case Kind::gbps:
        row.tolerance = 0.02 * max_value;
        row.tolerance_source = "noise floor: 2 %";
        break;
      case Kind::penalty:
        // A TLB miss penalty is a step between latency levels, read from a few pages
        // (or their means) at one stride, by the footprint or the stage sweep: repeat
        // runs on one card spread by up to a tenth (results/h200/README.md: +93 to +103),
        // and the footprint analysis holds readings within a third as one level
        // (analyzers/stats/tlb_footprint.cpp).
        row.tolerance = std::max(2.0, 0.15 * max_value);
        row.tolerance_source = "TLB penalty: 15 %, at least 2 cycles";
        break;
      default:
        row.tolerance = 0;
        row.tolerance_source = spec.kind == Kind::text ? "equal" : "exact";
        break;
    }

    // Groups: repeat runs of one GPU.
    for (std::size_t g = 0; g < c.devices.size(); ++g) {
      CompareRow::Group group;
      group.device = c.devices[g];
      for (std::size_t i = 0; i < c.inputs.size(); ++i)
        if (group_of[i] == g) group.inputs.push_back(i);
      std::vector<double> vals;
      std::vector<std::string> texts;
      for (std::size_t i : group.inputs) {
        if (row.numbers[i]) vals.push_back(*row.numbers[i]);
        if (row.texts[i]) texts.push_back(*row.texts[i]);
      }
      if (spec.kind == Kind::text || vals.empty()) {
        group.stable = std::all_of(texts.begin(), texts.end(), [&](const std::string& s) { return s == texts[0]; });
        if (!vals.empty() || !texts.empty()) {
          std::size_t present = 0;
          for (std::size_t i : group.inputs) present += row.texts[i] ? 1 : 0;
          group.stable = group.stable && present == group.inputs.size();
        }
      } else {
        const auto [lo, hi] = std::minmax_element(vals.begin(), vals.end());
        group.spread = *hi - *lo;
        group.stable = *group.spread <= row.tolerance + 1e-9 && vals.size() == group.inputs.size();
      }
      row.groups.push_back(group);
    }

    // Between GPUs: the groups' medians against the first group's, beyond the
    // tolerance widened by either group's spread.
    std::vector<std::string> parts, present, absent;
    const CompareRow::Group* ref = nullptr;
    std::optional<double> ref_value;
    std::optional<std::string> ref_text;
    for (const auto& g : row.groups) {
      std::vector<double> vals;
      std::optional<std::string> first_text;
      for (std::size_t i : g.inputs) {
        if (row.numbers[i]) vals.push_back(*row.numbers[i]);
        if (row.texts[i] && !first_text) first_text = row.texts[i];
      }
      const std::optional<double> value = vals.empty() ? std::nullopt : std::optional<double>(median(vals));
      if (!value && !first_text) {
        absent.push_back(short_device(g.device));
        continue;
      }
      present.push_back(short_device(g.device));
      if (ref == nullptr) {
        ref = &g;
        ref_value = value;
        ref_text = first_text;
        continue;
      }
      if (value && ref_value && spec.kind != Kind::text) {
        const double tol = std::max({row.tolerance, g.spread.value_or(0), ref->spread.value_or(0)});
        const double d = *value - *ref_value;
        if (std::fabs(d) > tol + 1e-9) {
          row.differs = true;
          std::string pct = *ref_value != 0 ? fmt::format(" ({:+.1f} %)", 100.0 * d / *ref_value) : "";
          parts.push_back(fmt::format("{} {}{}{} vs {}", short_device(g.device), d > 0 ? "+" : "-",
                                      amount_text(spec.kind, std::fabs(d)), pct, short_device(ref->device)));
        }
      } else if (first_text != ref_text) {
        row.differs = true;
        parts.push_back(fmt::format("{} {} vs {} {}", short_device(g.device), first_text.value_or("-"),
                                    short_device(ref->device), ref_text.value_or("-")));
      }
    }
    row.verdict = compose_verdict(row, spec.kind, true, parts, present, absent);
    c.rows.push_back(std::move(row));
  }
  return c;
}

namespace {

std::vector<std::vector<std::string>> table_cells(const Comparison& c, bool markdown) {
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> head{"figure"};
  for (const auto& t : c.inputs) head.push_back(t.label);
  head.push_back("tolerance");
  head.push_back("verdict");
  cells.push_back(head);
  for (const auto& r : c.rows) {
    std::vector<std::string> line{r.label + (r.unit.empty() || r.unit == "B" || r.unit == "text" ? "" : " (" + r.unit + ")")};
    for (const auto& t : r.texts) line.push_back(t.value_or("-"));
    std::string tol = r.tolerance > 0 ? (r.unit == "B" ? bytes_text(r.tolerance)
                                                       : fmt::format("{:.1f}", r.tolerance))
                                      : r.tolerance_source;
    line.push_back(tol);
    std::string v = r.verdict;
    if (!markdown) {
      std::string plain;
      for (std::size_t i = 0; i < v.size(); ++i)
        if (!(v[i] == '*' && i + 1 < v.size() && v[i + 1] == '*') && !(v[i] == '*' && i > 0 && v[i - 1] == '*'))
          plain += v[i];
      v = plain;
    }
    line.push_back(v);
    cells.push_back(line);
  }
  return cells;
}

std::string inputs_text(const Comparison& c, const char* bullet) {
  std::string out;
  for (const auto& t : c.inputs) {
    out += fmt::format("{}{}: {} ({}", bullet, t.label, t.path, t.device_name());
    if (t.topology.contains("started") && t.topology["started"].is_string())
      out += ", " + t.topology["started"].get<std::string>();
    if (t.topology.contains("mode") && t.topology["mode"].is_string()) out += ", " + t.topology["mode"].get<std::string>();
    out += ")\n";
  }
  return out;
}

}  // namespace

std::string comparison_markdown(const Comparison& c) {
  std::string out = "Inputs:\n\n" + inputs_text(c, "- ") + "\n";
  const auto cells = table_cells(c, true);
  for (std::size_t r = 0; r < cells.size(); ++r) {
    out += "|";
    for (const auto& cell : cells[r]) {
      std::string e = cell;
      for (std::size_t p = e.find('|'); p != std::string::npos; p = e.find('|', p + 2)) e.replace(p, 1, "\\|");
      out += " " + e + " |";
    }
    out += "\n";
    if (r == 0) {
      out += "|";
      for (std::size_t k = 0; k < cells[0].size(); ++k) out += " --- |";
      out += "\n";
    }
  }
  out += "\nTolerances: a size search's step (its spec's resolution, at least the stride); latencies 1 % (at least "
         "0.5 cycles); bandwidths 2 %; TLB miss penalties 15 % (at least 2 cycles); a TLB level's entries and "
         "coverage and the page, which may be ranges or bounds, agree when the ranges share a value; everything else "
         "exact. Between GPUs a difference counts beyond the tolerance "
         "or either GPU's spread over its runs, whichever is larger.\n";
  return out;
}

std::string comparison_text(const Comparison& c) {
  std::string out = inputs_text(c, "");
  out += "\n";
  const auto cells = table_cells(c, false);
  std::vector<std::size_t> width(cells[0].size(), 0);
  for (const auto& line : cells)
    for (std::size_t k = 0; k + 1 < line.size(); ++k) width[k] = std::max(width[k], line[k].size());
  for (const auto& line : cells) {
    std::string l;
    for (std::size_t k = 0; k < line.size(); ++k) {
      l += line[k];
      if (k + 1 < line.size()) l += std::string(width[k] - line[k].size() + 2, ' ');
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  }
  return out;
}

json comparison_json(const Comparison& c) {
  json j;
  j["inputs"] = json::array();
  for (const auto& t : c.inputs) j["inputs"].push_back({{"label", t.label}, {"path", t.path}, {"device", t.device_name()}});
  j["devices"] = c.devices;
  j["rows"] = json::array();
  for (const auto& r : c.rows) {
    json row{{"key", r.key}, {"label", r.label}, {"unit", r.unit}, {"tolerance", r.tolerance},
             {"tolerance_source", r.tolerance_source}, {"differs", r.differs}, {"verdict", r.verdict}};
    row["values"] = json::array();
    for (std::size_t i = 0; i < r.texts.size(); ++i) {
      if (i < r.ranges.size() && r.ranges[i])
        // A bound with no upper end: [lo, null] (JSON has no infinity).
        row["values"].push_back(r.ranges[i]->first == r.ranges[i]->second ? json(r.ranges[i]->first)
                                : std::isinf(r.ranges[i]->second)
                                    ? json::array({r.ranges[i]->first, nullptr})
                                    : json::array({r.ranges[i]->first, r.ranges[i]->second}));
      else if (r.numbers[i])
        row["values"].push_back(*r.numbers[i]);
      else if (r.texts[i])
        row["values"].push_back(*r.texts[i]);
      else
        row["values"].push_back(nullptr);
    }
    row["groups"] = json::array();
    for (const auto& g : r.groups) {
      json gj{{"device", g.device}, {"inputs", g.inputs}, {"stable", g.stable}};
      gj["spread"] = g.spread ? json(*g.spread) : json(nullptr);
      row["groups"].push_back(gj);
    }
    j["rows"].push_back(row);
  }
  return j;
}

}  // namespace dissect
