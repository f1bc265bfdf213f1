// The topology result as one table for a terminal, as in Größler 2022 Tables
// 5.4-5.9, with more columns: fetch granularity, corrected latency, sets/ways,
// replacement policy, sharing and driver figures beside measured ones.
#include <cstdio>
#include <sstream>

#include "engine/spec/units.hpp"
#include "engine/topology/topology_runner.hpp"

namespace dissect {
namespace {

using json = nlohmann::json;

std::string num(const json& c, const char* key, const char* fmt = "%.0f") {
  if (!c.contains(key) || !c[key].is_number()) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, c[key].get<double>());
  return buf;
}

std::string size_of(const json& c, const char* key) {
  if (!c.contains(key) || !c[key].is_number()) return "-";
  return format_bytes(static_cast<std::uint64_t>(c[key].get<double>()));
}

std::string pad(std::string s, std::size_t w) {
  // Column widths count characters, not bytes (the table has no multi-byte text).
  if (s.size() < w) s += std::string(w - s.size(), ' ');
  return s + " ";
}

}  // namespace

std::string topology_table(const json& r) {
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
  os << "\n\n";

  const std::vector<std::pair<std::string, std::string>> rows{
      {"l1", "L1 data"},         {"texture", "texture"}, {"readonly", "read-only"},   {"constant_l1", "constant L1"},
      {"constant_l15", "constant L1.5"}, {"l2", "L2"},   {"dram", "main memory"}, {"shared", "shared memory"}};
  os << pad("memory", 14) << pad("size", 10) << pad("(driver)", 10) << pad("line", 6) << pad("fetch", 6)
     << pad("lat cyc", 8) << pad("(corr)", 7) << pad("ns", 7) << pad("sets x ways", 12) << pad("policy", 8)
     << pad("shared with", 18) << "per SM\n";
  const json& caches = r.value("caches", json::object());
  for (const auto& [key, label] : rows) {
    if (!caches.contains(key)) continue;
    const json& c = caches[key];
    std::string size = size_of(c, "size_bytes");
    if (size == "-" && c.contains("size_note")) size = "?";
    std::string driver = size_of(c, "driver_size_bytes");
    if (key == "shared") driver = size_of(c, "driver_per_sm_bytes");
    std::string sets = "-";
    if (c.contains("sets") && c["sets"].is_number()) {
      sets = num(c, "sets");
      sets += " x " + (c.contains("ways") ? (c["ways"].is_number() ? num(c, "ways", "%g") : std::string("?")) : "?");
    }
    if (key == "shared" && c.contains("banks"))
      sets = num(c, "banks") + " banks x " + num(c, "bank_width_bytes") + " B";
    std::string shared_with = "-";
    if (c.contains("shared_with") && c["shared_with"].is_array() && !c["shared_with"].empty()) {
      shared_with.clear();
      for (const auto& s : c["shared_with"]) shared_with += (shared_with.empty() ? "" : ",") + s.get<std::string>();
    }
    os << pad(label, 14) << pad(size, 10) << pad(driver, 10) << pad(size_of(c, "line_bytes"), 6)
       << pad(size_of(c, "fetch_bytes"), 6) << pad(num(c, "latency_cycles"), 8)
       << pad(num(c, "latency_corrected_cycles"), 7) << pad(num(c, "latency_ns", "%.1f"), 7) << pad(sets, 12)
       << pad(c.contains("replacement") ? c["replacement"].get<std::string>() : "-", 8) << pad(shared_with, 18)
       << (c.contains("per_sm") ? num(c, "per_sm") : "-") << "\n";
  }
  if (caches.contains("l2") && caches["l2"].contains("hit_levels_cycles")) {
    os << "\nL2 hit latency levels (near/far partitions): ";
    for (const auto& l : caches["l2"]["hit_levels_cycles"]) os << l.get<double>() << " ";
    os << "cycles\n";
  }
  if (r.contains("tlb")) {
    os << "TLB:";
    if (r["tlb"].contains("levels"))
      for (std::size_t i = 0; i < r["tlb"]["levels"].size(); ++i) {
        const json& l = r["tlb"]["levels"][i];
        os << " L" << i + 1 << " " << num(l, "entries") << " entries (" << size_of(l, "coverage_bytes")
           << ", +" << num(l, "miss_penalty_cycles") << " cycles)";
        if (l.contains("set_sizes") && l["set_sizes"].is_array() && l["set_sizes"].size() > 1)
          os << " sets " << l["set_sizes"].dump();
        os << ";";
      }
    if (r["tlb"].contains("page_bytes")) os << " page " << size_of(r["tlb"], "page_bytes");
    os << "\n";
  }
  if (r.contains("bandwidth")) {
    os << "bandwidth:";
    for (const auto& [name, b] : r["bandwidth"].items())
      os << " " << name << " " << num(b, "value", "%.1f") << " " << b.value("unit", std::string("")) << ";";
    os << "\n";
  }
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
  for (const auto& e : r.value("experiments", json::array())) {
    const std::string s = e.value("status", std::string("?"));
    if (s == "complete") continue;
    os << "  " << e.value("id", std::string("?")) << ": " << s;
    if (e.contains("reason")) os << " (" << e["reason"].get<std::string>() << ")";
    if (e.contains("error")) {
      std::string err = e["error"].get<std::string>();
      if (err.size() > 200) err = err.substr(0, 200) + "...";
      os << ": " << err;
    }
    os << "\n";
  }
  return os.str();
}

}  // namespace dissect
