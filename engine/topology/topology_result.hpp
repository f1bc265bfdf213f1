#pragma once
// What `dissect topology` has measured so far, as typed values: the steps read it
// to size themselves and write their findings into it; `topology_result_json`
// is the one place that knows the keys of topology.json (docs/topology.md).
// An empty optional means "not measured" and writes no key.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dissect {

// One cache or memory row (caches.<name>).
struct CacheResult {
  std::optional<std::string> unsupported;  // the device has no such load path: why

  std::optional<std::uint64_t> size_bytes;
  std::optional<double> size_confidence;
  std::optional<std::string> size_note;                    // why the size is undetermined
  std::optional<std::uint64_t> size_lower_bound_bytes;     // the sweep ended before the knee
  std::optional<double> hit_level_cycles, miss_level_cycles;  // the size step's two latency levels

  std::optional<std::uint64_t> line_bytes;
  std::optional<double> line_confidence;
  std::optional<std::string> line_method, line_note, line_blocks_note;
  std::optional<std::uint64_t> fetch_bytes;

  std::optional<double> latency_cycles, timer_overhead_cycles, latency_corrected_cycles;
  std::optional<double> latency_ns, latency_corrected_ns;  // once the clock is known

  std::optional<std::uint64_t> sets;
  std::optional<double> sets_confidence;
  std::optional<std::string> sets_note;
  std::optional<double> ways;  // a mean where the sets differ (the C2070's L2)
  std::optional<std::uint64_t> lines_per_block;
  std::optional<bool> bit_defined;
  std::optional<std::vector<std::uint64_t>> set_sizes;

  std::optional<std::string> replacement;
  std::optional<bool> replacement_deterministic;  // true: repeated launches missed alike (else absent)
  std::optional<std::vector<double>> way_probabilities;
  // The stage_profile finding of the sets step (details and summary): how misses grow
  // past the capacity, where sets and ways are not determined.
  std::optional<nlohmann::json> stage_profile;
  // The conflict step: lines that fit at each large stride, the ways and sets they imply
  // where all strides agree, and its summary (topology_absorb.hpp).
  std::optional<nlohmann::json> conflict;
  std::optional<std::string> sets_source;  // which step gave sets x ways: "stage method" or "conflicts"

  std::optional<std::vector<std::string>> shared_with;  // caches on the same storage (sharing steps)
  std::optional<std::uint64_t> per_sm;
  std::optional<std::string> per_sm_note;

  std::optional<std::vector<double>> hit_levels_cycles;  // L2: near/far hits
  // L2: what one SM fills (the l2_size step); size_bytes becomes what every SM at once
  // fills with lines of its own (the l2_whole_size step), also kept as whole_gpu_bytes,
  // with how many SMs that took.
  std::optional<std::uint64_t> one_sm_bytes;
  std::optional<double> one_sm_confidence;  // the size analyzer's, for one_sm_bytes
  std::optional<std::uint64_t> whole_gpu_bytes;
  std::optional<std::uint64_t> whole_gpu_sms;
  std::optional<std::string> whole_gpu_note;  // why not measured, or how to read it
  // L2: the partition_map finding's details (SM groups, granularity, function) and summary,
  // or why none (partition_map_note).
  std::optional<nlohmann::json> partition_map;
  std::optional<std::string> partition_map_note;
  // L2: whether far lines are held twice, from one_sm_bytes, whole_gpu_bytes, the
  // partitions and the driver's size (l2_partition_copies.hpp).
  std::optional<nlohmann::json> partition_copies;

  std::optional<std::uint64_t> banks, bank_width_bytes;  // shared memory
};

// What the driver reports, shown beside the measured figures. Always written
// (null where the device reports none: a simulated GPU).
struct DriverFigures {
  std::optional<std::uint64_t> l2_bytes;
  std::optional<std::uint64_t> shared_per_sm_bytes;
  std::optional<std::uint64_t> shared_per_block_bytes;
  std::optional<std::uint64_t> memory_clock_khz, memory_bus_width_bits;

  // The DRAM peak the driver's figures give: 2 transfers per memory clock (double data
  // rate) x the bus width, in GB/s (the figure the CUDA samples' deviceQuery prints).
  [[nodiscard]] std::optional<double> dram_peak_gbps() const;

  // From Device::describe() (the keys engine/device/cuda/cuda_device.cpp writes).
  static DriverFigures from_description(const nlohmann::json& describe);
};

struct SharingResult {
  bool shared = false;
  double confidence = 0;
};

struct TlbResult {
  // One record per level, the tlb analyzer's (entries or entries_range,
  // reach_bytes, coverage_bytes, miss_penalty_cycles, knees, ...) as the 'tlb'
  // step found it, narrowed by 'tlb_entries' and given its sets by 'tlb_sets';
  // pages_per_entry once the page is known. Kept whole: topology.json shows
  // what the analyzers found.
  std::optional<std::vector<nlohmann::json>> levels;
  std::optional<std::string> levels_note;  // why no level was found
  std::optional<std::uint64_t> page_bytes;
  std::optional<std::string> page_note;             // why no page size was claimed
  // Over one allocation: the stride where the penalty saturated (an entry's reach
  // where entries coalesce pages).
  std::optional<std::uint64_t> page_granule_bytes;
  std::optional<std::string> page_method;  // "scattered frames" or "one allocation": where page_bytes was seen
  std::optional<std::uint64_t> page_at_most_bytes;  // no page: the chunk of scattered frames bounds it
};

// The bandwidth figures of topology.json (bandwidth.<key>), in the order the table
// shows them: one per memory level and direction. `global` is the DRAM (reads).
struct BandwidthMeasure {
  const char* key;     // bandwidth.<key>; its step is bandwidth_<key>
  const char* level;   // shared, l1, l2, dram
  const char* access;  // read, write
  const char* label;   // for tables
};
const std::vector<BandwidthMeasure>& bandwidth_measures();
// The measure of a key, or nullptr.
const BandwidthMeasure* bandwidth_measure(const std::string& key);

struct BandwidthResult {
  std::string level, access;  // bandwidth_measure(key)'s
  double value = 0;  // the rate over the SMs that ran
  std::string unit;
  nlohmann::json details;  // the bandwidth finding's details, kept whole
  std::optional<std::uint64_t> sms;
  std::optional<double> bytes_per_cycle_per_sm, gbps;
  std::optional<std::string> method;
  std::optional<std::uint64_t> device_sms;
  // The bound the figure approaches, where one is known: shared memory, the measured
  // banks (banks x width per cycle and SM), and L1 reads where the L1 shares that
  // storage; DRAM, the driver's peak (GB/s).
  std::optional<double> bound_bytes_per_cycle_per_sm;
  std::optional<double> bound_gbps;
  std::optional<std::string> bound_source;
  std::optional<double> share_of_bound;
  // L1 write: the same stores through the path without the L1 (bandwidth_l1_write_control),
  // and what the two together say (write-through, write-back, or not determined).
  std::optional<double> control_bytes_per_cycle_per_sm, control_gbps;
  std::optional<std::string> note;
};

// The device facts steps size themselves from.
struct DeviceFacts {
  std::optional<std::uint64_t> sm_count;
  std::optional<std::uint64_t> memory_bytes;
  double clock_ghz = 0;  // 0: unknown
  // Timed accesses an on-chip chase (timing.mode on_chip: one byte each in dynamic shared
  // memory) can keep without the driver picking a larger shared configuration, i.e. a
  // smaller L1, than the smallest one: that configuration less the per-block reservation
  // and the chase's scratch word. Unknown (a simulated GPU): no limit.
  std::optional<std::uint64_t> on_chip_samples;

  static DeviceFacts from_description(const nlohmann::json& describe);
};

struct TopologyResult {
  DeviceFacts device;
  DriverFigures driver;
  std::map<std::string, CacheResult> caches;
  std::map<std::string, SharingResult> sharing;  // "l1/texture", ...
  std::optional<TlbResult> tlb;
  std::map<std::string, BandwidthResult> bandwidth;  // by bandwidth_measures() key

  // The row of a cache, created when absent (a step that writes to it).
  CacheResult& cache(const std::string& name) { return caches[name]; }
  // The row of a cache, or nullptr.
  const CacheResult* find(const std::string& name) const;
  TlbResult& tlb_row() { return tlb ? *tlb : tlb.emplace(); }

  // A measured figure of an earlier step (nullopt when absent or not positive).
  std::optional<std::uint64_t> size_of(const std::string& cache) const;
  // What one SM fills: one_sm_bytes where a step set it (the L2), else size_of unless that
  // is the whole GPU's (whole_gpu_bytes set).
  std::optional<std::uint64_t> one_sm_size_of(const std::string& cache) const;
  std::optional<std::uint64_t> fetch_of(const std::string& cache) const;
  std::optional<std::uint64_t> line_of(const std::string& cache) const;
  bool unsupported(const std::string& cache) const;

  // Cycles -> ns for every latency, once the clock is known.
  void add_nanoseconds();
};

// The measurement keys of topology.json: caches, sharing, tlb, bandwidth.
nlohmann::json topology_result_json(const TopologyResult& result);

}  // namespace dissect
