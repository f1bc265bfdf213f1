#include "engine/topology/topology_result.hpp"

#include <cmath>

namespace dissect {
namespace {

using json = nlohmann::json;

template <typename T>
void put(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}

// Ways are a whole number unless the sets differ in size.
json ways_json(double w) { return w == std::floor(w) ? json(static_cast<std::uint64_t>(w)) : json(w); }

json cache_json(const CacheResult& c) {
  json j = json::object();
  put(j, "unsupported", c.unsupported);
  put(j, "size_bytes", c.size_bytes);
  put(j, "one_sm_bytes", c.one_sm_bytes);
  put(j, "one_sm_confidence", c.one_sm_confidence);
  put(j, "whole_gpu_bytes", c.whole_gpu_bytes);
  put(j, "whole_gpu_sms", c.whole_gpu_sms);
  put(j, "whole_gpu_note", c.whole_gpu_note);
  put(j, "partition_map", c.partition_map);
  put(j, "partition_map_note", c.partition_map_note);
  put(j, "partition_copies", c.partition_copies);
  put(j, "size_confidence", c.size_confidence);
  put(j, "size_note", c.size_note);
  put(j, "size_lower_bound_bytes", c.size_lower_bound_bytes);
  put(j, "hit_level_cycles", c.hit_level_cycles);
  put(j, "miss_level_cycles", c.miss_level_cycles);
  put(j, "line_bytes", c.line_bytes);
  put(j, "line_confidence", c.line_confidence);
  put(j, "line_method", c.line_method);
  put(j, "line_note", c.line_note);
  put(j, "line_blocks_note", c.line_blocks_note);
  put(j, "fetch_bytes", c.fetch_bytes);
  put(j, "latency_cycles", c.latency_cycles);
  put(j, "timer_overhead_cycles", c.timer_overhead_cycles);
  put(j, "latency_corrected_cycles", c.latency_corrected_cycles);
  put(j, "latency_ns", c.latency_ns);
  put(j, "latency_corrected_ns", c.latency_corrected_ns);
  put(j, "sets", c.sets);
  put(j, "sets_confidence", c.sets_confidence);
  put(j, "sets_note", c.sets_note);
  if (c.ways) j["ways"] = ways_json(*c.ways);
  put(j, "lines_per_block", c.lines_per_block);
  put(j, "bit_defined", c.bit_defined);
  put(j, "set_sizes", c.set_sizes);
  put(j, "replacement", c.replacement);
  put(j, "replacement_deterministic", c.replacement_deterministic);
  put(j, "way_probabilities", c.way_probabilities);
  put(j, "stage_profile", c.stage_profile);
  put(j, "conflict", c.conflict);
  put(j, "sets_source", c.sets_source);
  put(j, "shared_with", c.shared_with);
  put(j, "per_sm", c.per_sm);
  put(j, "per_sm_note", c.per_sm_note);
  put(j, "hit_levels_cycles", c.hit_levels_cycles);
  put(j, "banks", c.banks);
  put(j, "bank_width_bytes", c.bank_width_bytes);
  return j;
}

json bandwidth_json(const BandwidthResult& b) {
  json j{{"value", b.value}, {"unit", b.unit}, {"details", b.details}};
  if (!b.level.empty()) j["level"] = b.level;
  if (!b.access.empty()) j["access"] = b.access;
  put(j, "sms", b.sms);
  put(j, "bytes_per_cycle_per_sm", b.bytes_per_cycle_per_sm);
  put(j, "gbps", b.gbps);
  put(j, "method", b.method);
  put(j, "device_sms", b.device_sms);
  put(j, "bound_bytes_per_cycle_per_sm", b.bound_bytes_per_cycle_per_sm);
  put(j, "bound_gbps", b.bound_gbps);
  put(j, "bound_source", b.bound_source);
  put(j, "share_of_bound", b.share_of_bound);
  put(j, "control_bytes_per_cycle_per_sm", b.control_bytes_per_cycle_per_sm);
  put(j, "control_gbps", b.control_gbps);
  put(j, "note", b.note);
  return j;
}

json or_null(const std::optional<std::uint64_t>& v) { return v ? json(*v) : json(nullptr); }

std::optional<std::uint64_t> positive(const std::optional<std::uint64_t>& v) {
  return v && *v > 0 ? v : std::nullopt;
}

std::optional<std::uint64_t> device_number(const json& d, const char* key) {
  if (!d.contains(key) || !d[key].is_number()) return std::nullopt;
  return d[key].get<std::uint64_t>();
}

}  // namespace

DeviceFacts DeviceFacts::from_description(const json& d) {
  DeviceFacts f;
  f.sm_count = device_number(d, "sm_count");
  f.memory_bytes = device_number(d, "memory_bytes");
  if (d.contains("sm_clock_khz") && d["sm_clock_khz"].is_number()) f.clock_ghz = d["sm_clock_khz"].get<double>() / 1e6;
  if (d.contains("shared_configs_kib") && d["shared_configs_kib"].is_array()) {
    std::uint64_t smallest = 0;
    for (const auto& c : d["shared_configs_kib"]) {
      if (!c.is_number_integer() || c.get<std::int64_t>() <= 0) continue;
      const auto kib = static_cast<std::uint64_t>(c.get<std::int64_t>());
      if (smallest == 0 || kib < smallest) smallest = kib;
    }
    const std::uint64_t reserved = device_number(d, "shared_reserved_per_block_bytes").value_or(0);
    constexpr std::uint64_t kScratch = 64;  // the chaser's scratch word, rounded, with room to spare
    if (smallest * 1024 > reserved + kScratch) f.on_chip_samples = smallest * 1024 - reserved - kScratch;
  }
  return f;
}

DriverFigures DriverFigures::from_description(const json& d) {
  return {device_number(d, "l2_bytes"),           device_number(d, "shared_per_sm_bytes"),
          device_number(d, "shared_per_block_bytes"), positive(device_number(d, "memory_clock_khz")),
          positive(device_number(d, "memory_bus_width_bits"))};
}

std::optional<double> DriverFigures::dram_peak_gbps() const {
  if (!memory_clock_khz || !memory_bus_width_bits) return std::nullopt;
  return 2.0 * static_cast<double>(*memory_clock_khz) * 1e3 * static_cast<double>(*memory_bus_width_bits) / 8 / 1e9;
}

const std::vector<BandwidthMeasure>& bandwidth_measures() {
  static const std::vector<BandwidthMeasure> m{
      {"shared", "shared", "read", "shared memory read"}, {"shared_write", "shared", "write", "shared memory write"},
      {"l1", "l1", "read", "L1 read"},                    {"l2", "l2", "read", "L2 read"},
      {"l1_write", "l1", "write", "L1 write"},            {"l2_write", "l2", "write", "L2 write"},
      {"global", "dram", "read", "DRAM read"},            {"global_write", "dram", "write", "DRAM write"}};
  return m;
}

const BandwidthMeasure* bandwidth_measure(const std::string& key) {
  for (const auto& m : bandwidth_measures())
    if (key == m.key) return &m;
  return nullptr;
}

const CacheResult* TopologyResult::find(const std::string& name) const {
  const auto it = caches.find(name);
  return it == caches.end() ? nullptr : &it->second;
}

std::optional<std::uint64_t> TopologyResult::size_of(const std::string& name) const {
  const CacheResult* c = find(name);
  return c ? positive(c->size_bytes) : std::nullopt;
}

std::optional<std::uint64_t> TopologyResult::one_sm_size_of(const std::string& name) const {
  const CacheResult* c = find(name);
  if (c && positive(c->one_sm_bytes)) return c->one_sm_bytes;
  // A size of every SM at once is no one SM's: steps sized from one SM's figure read the
  // same whether the whole-GPU step was folded in yet or not.
  if (c && c->whole_gpu_bytes) return std::nullopt;
  return size_of(name);
}

std::optional<std::uint64_t> TopologyResult::fetch_of(const std::string& name) const {
  const CacheResult* c = find(name);
  return c ? positive(c->fetch_bytes) : std::nullopt;
}

std::optional<std::uint64_t> TopologyResult::line_of(const std::string& name) const {
  const CacheResult* c = find(name);
  return c ? positive(c->line_bytes) : std::nullopt;
}

bool TopologyResult::unsupported(const std::string& name) const {
  const CacheResult* c = find(name);
  return c != nullptr && c->unsupported.has_value();
}

void TopologyResult::add_nanoseconds() {
  if (!(device.clock_ghz > 0)) return;
  for (auto& [name, c] : caches) {
    (void)name;
    if (c.latency_cycles) c.latency_ns = *c.latency_cycles / device.clock_ghz;
    if (c.latency_corrected_cycles) c.latency_corrected_ns = *c.latency_corrected_cycles / device.clock_ghz;
  }
}

json topology_result_json(const TopologyResult& r) {
  json out;
  json& caches = out["caches"] = json::object();
  for (const auto& [name, c] : r.caches) caches[name] = cache_json(c);
  caches["l2"]["driver_size_bytes"] = or_null(r.driver.l2_bytes);
  caches["shared"]["driver_per_sm_bytes"] = or_null(r.driver.shared_per_sm_bytes);
  caches["shared"]["driver_per_block_bytes"] = or_null(r.driver.shared_per_block_bytes);
  for (const auto& [pair, s] : r.sharing) out["sharing"][pair] = {{"shared", s.shared}, {"confidence", s.confidence}};
  if (r.tlb) {
    json& t = out["tlb"] = json::object();
    if (r.tlb->levels) t["levels"] = *r.tlb->levels;
    put(t, "levels_note", r.tlb->levels_note);
    put(t, "page_bytes", r.tlb->page_bytes);
    put(t, "page_note", r.tlb->page_note);
    put(t, "page_granule_bytes", r.tlb->page_granule_bytes);
    put(t, "page_method", r.tlb->page_method);
    put(t, "page_at_most_bytes", r.tlb->page_at_most_bytes);
  }
  for (const auto& [memory, b] : r.bandwidth) out["bandwidth"][memory] = bandwidth_json(b);
  return out;
}

}  // namespace dissect
