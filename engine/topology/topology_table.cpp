// The topology result as tables, as in Größler 2022 Tables 5.4-5.9, with more
// columns: fetch granularity, corrected latency, sets/ways, replacement
// policy, sharing and driver figures beside measured ones.
#include "engine/topology/topology_table.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "engine/report/report_format.hpp"
#include "engine/spec/units.hpp"
#include "engine/topology/topology_result.hpp"

namespace dissect {
namespace {

using json = nlohmann::json;

std::string num(const json& c, const char* key, const char* fmt = "%.0f") {
  if (!c.contains(key) || !c[key].is_number()) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, c[key].get<double>());
  return buf;
}

// In the largest binary unit the size reaches, to 6 significant digits ("148.625 KiB",
// "35.5781 MiB"), as `dissect compare` shows it; topology.json keeps the bytes.
std::string size_of(const json& c, const char* key) {
  if (!c.contains(key) || !c[key].is_number()) return "-";
  return report::binary_size_text(c[key].get<double>());
}

std::string joined(const json& list) {
  std::string out;
  for (const auto& s : list) out += (out.empty() ? "" : ",") + (s.is_string() ? s.get<std::string>() : s.dump());
  return out;
}

// Column widths count characters, not bytes (the tables hold no multi-byte text).
std::string render_padded(const TopologyTable& t) {
  std::vector<std::size_t> width(t.columns.size(), 0);
  for (std::size_t i = 0; i < t.columns.size(); ++i) width[i] = t.columns[i].size();
  for (const auto& row : t.rows)
    for (std::size_t i = 0; i < row.size() && i < width.size(); ++i) width[i] = std::max(width[i], row[i].size());
  std::ostringstream os;
  auto line = [&](const std::vector<std::string>& cells) {
    std::string l;
    for (std::size_t i = 0; i < cells.size() && i < width.size(); ++i)
      l += cells[i] + (i + 1 < cells.size() ? std::string(width[i] - cells[i].size() + 1, ' ') : "");
    os << l << "\n";
  };
  line(t.columns);
  for (const auto& row : t.rows) line(row);
  return os.str();
}

// The policy column: "non-lru, deterministic" when repeated launches missed alike.
std::string policy_cell(const json& c) {
  if (!c.contains("replacement")) return "-";
  std::string p = c["replacement"].get<std::string>();
  if (c.value("replacement_deterministic", false)) p += ", deterministic";
  return p;
}

// The cache table's rows: topology.json key, label.
const std::vector<std::pair<std::string, std::string>>& cache_rows() {
  static const std::vector<std::pair<std::string, std::string>> rows{
      {"l1", "L1 data"},
      {"l1_carveout", "L1 data, other carveout"},
      {"texture", "texture"},
      {"texture_carveout", "texture, other carveout"},
      {"readonly", "read-only"},
      {"readonly_carveout", "read-only, other carveout"},
      {"constant_l1", "constant L1"},
      {"constant_l15", "constant L1.5"},
      {"l2", "L2"},
      {"dram", "main memory"},
      {"shared", "shared memory"}};
  return rows;
}

}  // namespace

std::string topology_headline(const json& r) {
  std::ostringstream os;
  const json& d = r.value("device", json::object());
  os << "device: " << d.value("name", std::string("?")) << " (" << r.value("selector", std::string("?")) << ")";
  if (d.contains("compute_capability")) os << ", sm_" << d["compute_capability"].get<std::string>();
  if (d.contains("sm_count")) os << ", " << d["sm_count"] << " SMs";
  os << ", " << r.value("mode", std::string("full")) << " mode";
  if (r.contains("timings")) {
    char buf[160];
    std::snprintf(buf, sizeof buf, ", wall %.1f s (kernels %.0f ms, compile %.0f ms)",
                  r["timings"].value("wall_s", 0.0), r["timings"].value("kernel_ms", 0.0),
                  r["timings"].value("compile_ms", 0.0));
    os << buf;
  }
  return os.str();
}

TopologyTable topology_cache_table(const json& r) {
  TopologyTable t{"Caches and memories",
                  {"memory", "size", "(driver)", "line", "fetch", "lat cyc", "(corr)", "ns", "sets x ways",
                   "policy", "shared with", "per SM"},
                  {}};
  const json& caches = r.value("caches", json::object());
  for (const auto& [key, label] : cache_rows()) {
    if (!caches.contains(key)) continue;
    const json& c = caches[key];
    std::string size = size_of(c, "size_bytes");
    if (size == "-" && c.contains("size_lower_bound_bytes")) size = "> " + size_of(c, "size_lower_bound_bytes");
    if (size == "-" && c.contains("size_note")) size = "?";
    std::string driver = size_of(c, "driver_size_bytes");
    if (key == "shared") driver = size_of(c, "driver_per_sm_bytes");
    std::string sets = "-";
    if (c.contains("sets") && c["sets"].is_number()) {
      sets = num(c, "sets");
      sets += " x " + (c.contains("ways") ? (c["ways"].is_number() ? num(c, "ways", "%g") : std::string("?")) : "?");
    }
    else if (c.contains("sets_note"))
      sets = "?";  // measured, not determined: the reason is under the table
    if (key == "shared" && c.contains("banks"))
      sets = num(c, "banks") + " banks x " + num(c, "bank_width_bytes") + " B";
    std::string shared_with = "-";
    if (c.contains("shared_with") && c["shared_with"].is_array() && !c["shared_with"].empty())
      shared_with = joined(c["shared_with"]);
    t.rows.push_back({label, size, driver, size_of(c, "line_bytes"), size_of(c, "fetch_bytes"),
                      num(c, "latency_cycles"), num(c, "latency_corrected_cycles"), num(c, "latency_ns", "%.1f"), sets,
                      policy_cell(c), shared_with,
                      c.contains("per_sm") ? num(c, "per_sm") : "-"});
  }
  return t;
}

namespace {

// "16", "4100-4153", "2048 if one set" (a level whose sets are open), ">= 4506" (a level
// whose sets no geometry fits: the slots that fit with an entry each), or "-".
std::string entries_cell(const json& l) {
  if (l.contains("entries") && l["entries"].is_number()) return num(l, "entries");
  if (l.contains("entries_range") && l["entries_range"].is_array() && l["entries_range"].size() == 2)
    return l["entries_range"][0].dump() + "-" + l["entries_range"][1].dump();
  if (l.contains("entries_if_fully_associative") && l["entries_if_fully_associative"].is_number())
    return num(l, "entries_if_fully_associative") + " if one set";
  if (l.contains("entries_at_least") && l["entries_at_least"].is_number()) return ">= " + num(l, "entries_at_least");
  return "-";
}

// "not LRU" (misses that grow a few at a time past the entries), or "-".
std::string tlb_policy_cell(const json& l) {
  return l.contains("replacement") && l["replacement"].is_string() ? l["replacement"].get<std::string>() : "-";
}

// "32 MiB (16 pages)", "2 MiB", "<= 64 MiB" (at most the span: a level whose sets no
// geometry fits), or "-".
std::string reach_cell(const json& l) {
  if (!(l.contains("reach_bytes") && l["reach_bytes"].is_number()) && l.contains("reach_at_most_bytes") &&
      l["reach_at_most_bytes"].is_number())
    return "<= " + size_of(l, "reach_at_most_bytes");
  std::string s = size_of(l, "reach_bytes");
  if (s != "-" && l.contains("pages_per_entry") && l["pages_per_entry"].is_number() &&
      l["pages_per_entry"].get<double>() > 1)
    s += " (" + num(l, "pages_per_entry") + " pages)";
  return s;
}

std::string coverage_cell(const json& l) {
  if (l.contains("coverage_bytes") && l["coverage_bytes"].is_number()) return size_of(l, "coverage_bytes");
  if (l.contains("coverage_range_bytes") && l["coverage_range_bytes"].is_array() &&
      l["coverage_range_bytes"].size() == 2)
    return report::binary_size_text(l["coverage_range_bytes"][0].get<double>()) + " .. " +
           report::binary_size_text(l["coverage_range_bytes"][1].get<double>());
  return "-";
}

// "full", "17,8,8", "32 sets of 8", "2 sets of 512-545", ">= 64 sets x 16", or "-".
std::string sets_cell(const json& l) {
  if (l.value("associativity", "") == "full") return "full";
  if (l.contains("set_sizes") && l["set_sizes"].is_array() && l["set_sizes"].size() > 1) {
    const json& ss = l["set_sizes"];
    double lo = 1e300, hi = 0;
    for (const auto& x : ss)
      if (x.is_number()) lo = std::min(lo, x.get<double>()), hi = std::max(hi, x.get<double>());
    char buf[96];
    if (lo == hi) std::snprintf(buf, sizeof buf, "%zu sets of %g", ss.size(), lo);
    else if (ss.size() <= 12) return joined(ss);
    else std::snprintf(buf, sizeof buf, "%zu sets of %g-%g", ss.size(), lo, hi);  // the list is in topology.json
    return buf;
  }
  if (l.contains("sets") && l["sets"].is_number()) {
    std::string s = num(l, "sets") + " sets";
    if (l.contains("ways") && l["ways"].is_number()) s += " of " + num(l, "ways");
    else if (l.contains("ways_range") && l["ways_range"].is_array() && l["ways_range"].size() == 2)
      s += " of " + l["ways_range"][0].dump() + "-" + l["ways_range"][1].dump();
    return s;
  }
  if (l.contains("sets_at_least") && l["sets_at_least"].is_number())
    return ">= " + num(l, "sets_at_least") + " sets" + (l.contains("ways") && l["ways"].is_number() ? " x " + num(l, "ways") : "");
  if (l.value("associativity", "") == "undetermined" && l.contains("sets_note")) return "?";
  return "-";
}

// "per SM", "per SM (of 32 SMs)" (a topology.json of an earlier build, where fewer than the
// device's SMs chased at once: scope is now set only where every SM did),
// "shared", "groups of SMs", or "-" (not measured, or undetermined).
std::string scope_cell(const json& l, const json& r) {
  const std::string v = l.contains("scope") && l["scope"].is_string() ? l["scope"].get<std::string>() : "";
  if (v == "sm") {
    const json sms = r.contains("device") ? r["device"].value("sm_count", json()) : json();
    if (l.contains("scope_sms_tested") && l["scope_sms_tested"].is_number() && sms.is_number() &&
        l["scope_sms_tested"].get<double>() < sms.get<double>())
      return "per SM (of " + num(l, "scope_sms_tested") + " SMs)";
    return "per SM";
  }
  if (v == "shared") return "shared";
  if (v == "group") return "groups of SMs";
  return "-";
}

}  // namespace

TopologyTable topology_tlb_table(const json& r) {
  TopologyTable t{"TLB", {"level", "entries", "reach", "coverage", "miss penalty (cycles)", "sets", "scope", "policy"}, {}};
  if (!r.contains("tlb")) return t;
  const json& tlb = r["tlb"];
  if (tlb.contains("levels"))
    for (std::size_t i = 0; i < tlb["levels"].size(); ++i) {
      const json& l = tlb["levels"][i];
      t.rows.push_back({"L" + std::to_string(i + 1), entries_cell(l), reach_cell(l), coverage_cell(l),
                        num(l, "miss_penalty_cycles"), sets_cell(l), scope_cell(l, r), tlb_policy_cell(l)});
    }
  return t;
}

std::vector<std::string> topology_tlb_structure_lines(const json& r) {
  std::vector<std::string> out;
  if (!r.contains("tlb") || !r["tlb"].contains("levels")) return out;
  const json& levels = r["tlb"]["levels"];
  for (std::size_t i = 0; i < levels.size(); ++i) {
    const json& l = levels[i];
    if (sets_cell(l) == "?" && l["sets_note"].is_string())
      out.push_back("TLB L" + std::to_string(i + 1) + " sets: undetermined: " + l["sets_note"].get<std::string>());
  }
  return out;
}

std::string topology_page_line(const json& r) {
  if (!r.contains("tlb")) return "";
  const json& tlb = r["tlb"];
  std::string granule;
  if (tlb.contains("page_granule_bytes") && tlb["page_granule_bytes"].is_number())
    granule = "over one allocation the penalty saturates at " + size_of(tlb, "page_granule_bytes");
  if (tlb.contains("page_bytes") && tlb["page_bytes"].is_number()) {
    std::string s = "page size: " + size_of(tlb, "page_bytes");
    if (tlb.contains("page_method")) s += " (" + tlb["page_method"].get<std::string>() + ")";
    if (!granule.empty() && tlb["page_granule_bytes"] != tlb["page_bytes"])
      s += "; " + granule + " (entries that coalesce pages)";
    return s;
  }
  if (tlb.contains("page_at_most_bytes") && tlb["page_at_most_bytes"].is_number() && tlb.contains("page_note")) {
    std::string s = "page size: at most " + size_of(tlb, "page_at_most_bytes") + ": " + tlb["page_note"].get<std::string>();
    // The driver's mapping unit beside it: a second source, not a measurement (a page below
    // it is not ruled out by timing: an entry reading every page of a chunk looks the same).
    if (r.contains("device") && r["device"].contains("allocation_granularity_bytes") &&
        r["device"]["allocation_granularity_bytes"].is_number())
      s += "; the driver maps device memory in " + size_of(r["device"], "allocation_granularity_bytes") +
           " (its allocation granularity)";
    return s;
  }
  if (tlb.contains("page_note")) return "page size: undetermined: " + tlb["page_note"].get<std::string>();
  return "";
}

namespace {

std::string rate_text(double gbps) {
  char buf[48];
  if (gbps >= 1000) std::snprintf(buf, sizeof buf, "%.2f TB/s", gbps / 1000);
  else std::snprintf(buf, sizeof buf, "%.1f GB/s", gbps);
  return buf;
}

const char* level_label(const std::string& level) {
  if (level == "shared") return "shared";
  if (level == "l1") return "L1";
  if (level == "l2") return "L2";
  if (level == "dram") return "DRAM";
  return nullptr;
}

}  // namespace

// One row per figure, read and write of each level (bandwidth_measures(): shared, L1,
// L2, DRAM; keys it does not know after them): the rate over the SMs that ran (TB/s or
// GB/s), bytes per cycle per SM, how many SMs of the device ran (a figure of fewer SMs
// than the device has says so in its own cell), and the bound it approaches where one
// is known (shared memory and an L1 that is its storage: the measured banks; DRAM: the
// driver's peak; an L1 that writes stores through: the same stores without the L1).
TopologyTable topology_bandwidth_table(const json& r) {
  TopologyTable t{"Bandwidth", {"memory", "access", "bandwidth", "per SM", "SMs", "bound"}, {}};
  if (!r.contains("bandwidth") || !r["bandwidth"].is_object()) return t;
  std::vector<std::string> keys;
  for (const auto& m : bandwidth_measures())
    if (r["bandwidth"].contains(m.key)) keys.push_back(m.key);
  for (const auto& [name, b] : r["bandwidth"].items())
    if (bandwidth_measure(name) == nullptr) keys.push_back(name);
  for (const auto& name : keys) {
    const json& b = r["bandwidth"][name];
    const json& d = b.value("details", json::object());
    const BandwidthMeasure* m = bandwidth_measure(name);
    const std::string level = b.value("level", std::string(m != nullptr ? m->level : ""));
    const char* level_name = level_label(level);
    const std::string memory = level_name != nullptr ? level_name : name;
    const std::string access = b.value("access", std::string(m != nullptr ? m->access : "-"));
    char buf[96];
    std::string rate = "-";
    if (b.contains("value") && b["value"].is_number()) {
      const double v = b["value"].get<double>();
      const std::string unit = b.value("unit", std::string(""));
      if (unit == "GB/s") rate = rate_text(v);
      else std::snprintf(buf, sizeof buf, "%.1f %s", v, unit.c_str()), rate = buf;
    }
    std::string per_sm = num(b, "bytes_per_cycle_per_sm", "%.1f B/clk");
    if (per_sm == "-") per_sm = num(d, "peak_bytes_per_cycle_per_sm", "%.1f B/clk");
    const json& sms_v = b.contains("sms") ? b["sms"] : d.value("sms", json());
    std::string sms = "?";
    if (sms_v.is_number() && sms_v.get<double>() >= 1) {
      const auto n = sms_v.get<std::uint64_t>();
      sms = std::to_string(n);
      if (b.contains("device_sms") && b["device_sms"].is_number()) {
        const auto all = b["device_sms"].get<std::uint64_t>();
        sms += " of " + std::to_string(all);
        if (n < all) rate += " (" + std::to_string(n) + (n == 1 ? " SM" : " SMs") + " only)";
      } else if (n == 1) {
        rate += " (1 SM only)";
      }
    }
    std::string bound = "-";
    if (b.contains("bound_bytes_per_cycle_per_sm") && b["bound_bytes_per_cycle_per_sm"].is_number())
      bound = num(b, "bound_bytes_per_cycle_per_sm", "%.0f B/clk") + (name == "l1_write" ? " without the L1" : "");
    else if (b.contains("bound_gbps") && b["bound_gbps"].is_number())
      bound = rate_text(b["bound_gbps"].get<double>()) + " driver peak";
    if (bound != "-" && b.contains("share_of_bound") && b["share_of_bound"].is_number()) {
      // Past the driver's DRAM peak, the L2 served part of the stream (absorb::bandwidth's note).
      const double share = b["share_of_bound"].get<double>();
      const bool past_dram_peak = share > 1 && b.contains("bound_gbps");
      std::snprintf(buf, sizeof buf, past_dram_peak ? " (%.0f%%: above it, L2 hits)" : " (%.0f%% reached)", 100 * share);
      bound += buf;
    }
    t.rows.push_back({memory, access, rate, per_sm, sms, bound});
  }
  return t;
}

TopologyTable topology_experiment_table(const json& r, bool incomplete_only) {
  TopologyTable t{"Experiments", {"experiment", "status", "points", "wall ms", "note"}, {}};
  for (const auto& e : r.value("experiments", json::array())) {
    const std::string s = e.value("status", std::string("?"));
    if (incomplete_only && s == "complete") continue;
    std::string note;
    if (e.contains("reason")) note = e["reason"].get<std::string>();
    if (e.contains("error")) {
      std::string err = e["error"].get<std::string>();
      if (err.size() > 200) err = err.substr(0, 200) + "...";
      note += (note.empty() ? "" : ": ") + err;
    }
    for (const auto& w : e.value("conditions_warnings", json::array()))
      if (w.is_string()) note += (note.empty() ? "warning: " : "; warning: ") + w.get<std::string>();
    // One line per experiment: multi-line compiler logs would break both renderings.
    std::replace(note.begin(), note.end(), '\n', ' ');
    t.rows.push_back({e.value("id", std::string("?")), s, num(e, "points"), num(e, "wall_ms"), note});
  }
  return t;
}

std::string topology_conditions_line(const json& r) {
  const json c = r.value("conditions", json::object());
  std::string steps;
  for (const auto& s : c.value("affected_steps", json::array()))
    if (s.is_string()) steps += (steps.empty() ? "" : ", ") + s.get<std::string>();
  if (steps.empty()) return "";
  return "conditions: " + steps +
         " ran while the SM clock moved or other processes used the GPU: their figures may be off (each step's "
         "bundle.json \"conditions\" says what was seen)";
}

std::string topology_l2_whole_line(const json& r) {
  const json& caches = r.value("caches", json::object());
  if (!caches.contains("l2")) return "";
  const json& c = caches["l2"];
  if (!c.contains("whole_gpu_bytes") && !c.contains("whole_gpu_note")) return "";
  std::string s = "L2 from every SM at once";
  if (c.contains("whole_gpu_sms")) s += " (" + c["whole_gpu_sms"].dump() + " SMs, lines of their own)";
  if (!c.contains("whole_gpu_bytes"))
    return s + ": undetermined: " + c["whole_gpu_note"].get<std::string>() +
           (c.contains("one_sm_bytes") ? "; one SM: " + size_of(c, "one_sm_bytes") : std::string());
  s += ": " + size_of(c, "whole_gpu_bytes");
  // one_sm_bytes since the L2's size_bytes became the whole GPU's; size_bytes before.
  if (c.contains("one_sm_bytes")) s += "; one SM: " + size_of(c, "one_sm_bytes");
  else if (c.contains("size_bytes")) s += "; one SM: " + size_of(c, "size_bytes");
  if (c.contains("driver_size_bytes") && c["driver_size_bytes"].is_number()) s += "; driver: " + size_of(c, "driver_size_bytes");
  return s;
}

std::string topology_l2_copies_line(const json& r) {
  const json& caches = r.value("caches", json::object());
  if (!caches.contains("l2") || !caches["l2"].contains("partition_copies")) return "";
  const json& p = caches["l2"]["partition_copies"];
  const std::string verdict = p.value("verdict", "undetermined");
  return std::string("L2 far lines: ") + (verdict == "undetermined" ? "undetermined: " : "") +
         p.value("summary", std::string());
}

std::string topology_l2_partition_line(const json& r) {
  const json& caches = r.value("caches", json::object());
  if (!caches.contains("l2")) return "";
  const json& c = caches["l2"];
  if (c.contains("partition_map") && c["partition_map"].contains("summary"))
    return "L2 partitions: " + c["partition_map"]["summary"].get<std::string>();
  if (c.contains("partition_map_note")) return "L2 partitions: undetermined: " + c["partition_map_note"].get<std::string>();
  return "";
}

std::vector<std::string> topology_cache_structure_lines(const json& r) {
  std::vector<std::string> out;
  const json& caches = r.value("caches", json::object());
  for (const auto& [key, label] : cache_rows()) {
    if (!caches.contains(key)) continue;
    const json& c = caches[key];
    if (c.contains("stage_profile") && c["stage_profile"].value("determined", false) &&
        c["stage_profile"].contains("summary"))
      out.push_back(label + " past its capacity (stage sweep, s = one line): " +
                    c["stage_profile"]["summary"].get<std::string>());
    if (c.contains("conflict") && c["conflict"].contains("summary"))
      out.push_back(label + " at large strides: " + c["conflict"]["summary"].get<std::string>());
    if (!(c.contains("sets") && c["sets"].is_number()) && c.contains("sets_note") && c["sets_note"].is_string())
      out.push_back(label + " sets x ways: undetermined: " + c["sets_note"].get<std::string>());
  }
  return out;
}

std::string topology_table(const json& r) {
  std::ostringstream os;
  os << topology_headline(r) << "\n\n" << render_padded(topology_cache_table(r));
  const json& caches = r.value("caches", json::object());
  if (caches.contains("l2") && caches["l2"].contains("hit_levels_cycles")) {
    os << "\nL2 hit latency levels (near/far partitions): ";
    for (const auto& l : caches["l2"]["hit_levels_cycles"]) os << l.get<double>() << " ";
    os << "cycles\n";
  }
  if (const std::string whole = topology_l2_whole_line(r); !whole.empty()) os << whole << "\n";
  if (const std::string parts = topology_l2_partition_line(r); !parts.empty()) os << parts << "\n";
  if (const std::string copies = topology_l2_copies_line(r); !copies.empty()) os << copies << "\n";
  for (const std::string& line : topology_cache_structure_lines(r)) os << line << "\n";
  if (const auto tlb = topology_tlb_table(r); !tlb.rows.empty()) os << "\nTLB\n" << render_padded(tlb);
  else if (r.contains("tlb") && r["tlb"].contains("levels_note"))
    os << "\nTLB: no level found: " << r["tlb"]["levels_note"].get<std::string>() << "\n";
  for (const std::string& line : topology_tlb_structure_lines(r)) os << line << "\n";
  if (const std::string page = topology_page_line(r); !page.empty()) os << page << "\n";
  if (const auto bw = topology_bandwidth_table(r); !bw.rows.empty()) os << "\nbandwidth\n" << render_padded(bw);

  std::size_t ok = 0, skipped = 0, unsupported = 0, failed = 0;
  for (const auto& e : r.value("experiments", json::array())) {
    const std::string s = e.value("status", std::string("?"));
    if (s == "complete") ++ok;
    else if (s == "skipped") ++skipped;
    else if (s == "unsupported") ++unsupported;
    else ++failed;
  }
  os << "\nexperiments: " << ok << " complete, " << unsupported << " unsupported by the device, " << skipped
     << " skipped, " << failed << " failed or interrupted\n";
  for (const auto& row : topology_experiment_table(r, true).rows)
    os << "  " << row[0] << ": " << row[1] << (row[4].empty() ? "" : " (" + row[4] + ")") << "\n";
  if (const std::string c = topology_conditions_line(r); !c.empty()) os << c << "\n";
  return os.str();
}

}  // namespace dissect
