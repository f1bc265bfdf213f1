#pragma once
// A device profile: the memory hierarchy of one (real or imagined) GPU as data,
// read from specs/devices/<name>.yaml. docs/device-profiles.md is the reference
// of the format; every error names file:line:col.
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/diagnostics.hpp"
#include "engine/device/sim/cache_model.hpp"
#include "engine/spec/experiment.hpp"
#include "engine/spec/spec_node.hpp"

namespace dissect::sim {

inline constexpr int kProfileFormatVersion = 1;

// One alternative L1 size chosen by the shared-memory carveout.
struct CarveoutConfig {
  std::uint64_t shared_bytes = 0;
  std::uint64_t size_bytes = 0;
  std::uint32_t ways = 0;                  // 0: the cache's ways
  std::optional<Replacement> replacement;  // default: the cache's
};

// L2 split into partitions. Each partition stores size / count of the cache
// (its own sets); an address's home partition comes from `index`; an SM belongs
// to partition sm * count / sm_count.
//   replicate: false  an access looks the line up in its home partition only:
//                     hit at `latency` from the SM's own partition, `far_latency`
//                     from the other.
//   replicate: true   (H100) an access looks in the SM's own partition first
//                     (hit: `latency` for data homed there, `copy_latency` for a
//                     copy of the other partition's data), then in the home
//                     partition (hit: `far_latency`); lines are filled in both,
//                     so one SM sees about one partition's capacity.
// A DRAM access for data homed in the other partition costs far_latency -
// latency more. `sm_spread` adds a fixed per-SM offset in [0, sm_spread].
struct PartitionSpec {
  std::uint32_t count = 1;
  IndexFunction index;        // address -> home partition
  double far_latency = 0;
  double copy_latency = std::numeric_limits<double>::quiet_NaN();  // default: latency
  bool replicate = false;
  double sm_spread = 0;
};

struct CacheSpec {
  std::string name;
  std::string description;
  bool per_sm = true;                 // scope: sm (private to an SM) or device
  std::uint32_t instances_per_sm = 1; // several physical caches per SM; warp w uses w mod count
  CacheGeometry geometry;             // the default configuration
  double latency = 0;                 // hit latency (load to use, cycles, without timer overhead)
  double miss_cost = 0;               // added to any access that looks this cache up and misses
  double bandwidth = 0;               // bytes/cycle (per instance; device-wide for scope device); 0: unlimited
  // Stores (the throughput kernel's `access: store`): a write-back cache keeps the lines
  // written (a store to an array it holds ends there); a write-through one passes every
  // store on to the next level. Default: through for scope sm (NVIDIA's L1s are
  // write-through for global stores), back for scope device.
  bool write_back = false;
  double write_bandwidth = std::numeric_limits<double>::quiet_NaN();  // bytes/cycle of stores; NaN: bandwidth
  [[nodiscard]] double store_bandwidth() const { return std::isnan(write_bandwidth) ? bandwidth : write_bandwidth; }
  PartitionSpec partitions;
  CacheGeometry partition_geometry;   // one partition's share (partitions.count > 1)
  std::vector<CarveoutConfig> carveout;  // empty: fixed size
  std::uint64_t default_shared = 0;      // shared memory of the driver's default split
  Location loc;
};

// One TLB level. An entry translates `pages_per_entry` consecutive pages whose
// first page number is a multiple of it (coalesced entries: Zhang et al., CCS
// 2023, describe Ampere entries of 16 consecutive 2 MiB pages); the model's
// lines are entries, so geometry.line_bytes is one entry's reach, page_bytes x
// pages_per_entry. The frames behind an entry are taken as contiguous (a fresh
// large allocation's): the profile must map addresses identically.
struct TlbLevelSpec {
  std::string name;
  bool per_sm = false;
  std::uint64_t page_bytes = 2ull << 20;
  std::uint32_t pages_per_entry = 1;
  CacheGeometry geometry;  // line = one entry's reach
  double miss_penalty = 0; // cycles added when this level misses
  Location loc;
};

struct PathStep {
  enum class Kind : std::uint8_t { cache, tlb };
  Kind kind = Kind::cache;
  std::size_t cache = 0;                                   // index into Profile::caches
  double latency = std::numeric_limits<double>::quiet_NaN();  // override of the cache's latency on this path
};

struct PathSpec {
  bool defined = false;
  std::vector<PathStep> steps;
  Location loc;
};

struct SharedSpec {
  std::uint64_t size_bytes = 48 * 1024;
  std::uint32_t banks = 32;
  std::uint64_t bank_width = 4;
  double latency = 30;
  double conflict_cycles = 30;  // per extra access of a conflicting bank
  double bandwidth = 0;         // bytes/cycle per SM; 0: banks * width
  double write_bandwidth = std::numeric_limits<double>::quiet_NaN();  // stores; NaN: as loads
  // Bytes per cycle per SM of loads and of stores.
  [[nodiscard]] double load_bandwidth() const {
    return bandwidth > 0 ? bandwidth : static_cast<double>(banks) * static_cast<double>(bank_width);
  }
  [[nodiscard]] double store_bandwidth() const {
    return std::isnan(write_bandwidth) ? load_bandwidth() : write_bandwidth;
  }
};

struct NoiseSpec {
  enum class Distribution : std::uint8_t { none, uniform, normal };
  std::uint64_t seed = 1;
  Distribution distribution = Distribution::none;
  double jitter = 0;          // uniform: +-jitter; normal: standard deviation
  double outlier_rate = 0;    // probability per access
  double outlier_cycles = 0;  // added to an outlier
  [[nodiscard]] bool enabled() const {
    return (distribution != Distribution::none && jitter > 0) || (outlier_rate > 0 && outlier_cycles != 0);
  }
};

struct Profile {
  std::string name, description, source, arch;
  std::string file;  // where it was read from
  std::string text;  // verbatim
  std::uint32_t sm_count = 1;
  double clock_khz = 1e6;
  std::uint32_t warp_size = 32;
  double timer_overhead = 0;
  std::uint64_t seed = 1;
  std::uint64_t address_base = 1ull << 30;
  bool scrambled = false;               // physical pages are a permutation of virtual ones
  std::uint64_t translation_page = 2ull << 20;
  std::vector<CacheSpec> caches;
  std::vector<TlbLevelSpec> tlb;
  std::array<PathSpec, 9> paths{};      // indexed by LoadPath
  double dram_latency = 500;
  double dram_bandwidth = 0;            // bytes/cycle device-wide; 0: unlimited
  double dram_write_bandwidth = std::numeric_limits<double>::quiet_NaN();  // stores; NaN: dram_bandwidth
  [[nodiscard]] double dram_store_bandwidth() const {
    return std::isnan(dram_write_bandwidth) ? dram_bandwidth : dram_write_bandwidth;
  }
  std::uint64_t memory_bytes = 80ull << 30;  // dram.size: arrays beyond it are refused
  SharedSpec shared;
  double coalesce_line_cycles = 2;      // per extra distinct line of a warp request
  double coalesce_sector_cycles = 1;    // per extra distinct sector
  NoiseSpec noise;

  [[nodiscard]] const PathSpec& path(LoadPath p) const { return paths[static_cast<std::size_t>(p)]; }
  // Geometry of cache `i` under an experiment's carveout (see Experiment::carveout).
  [[nodiscard]] CacheGeometry geometry_for(std::size_t i, int carveout) const;
  [[nodiscard]] std::optional<std::size_t> find_cache(const std::string& name) const;
  // Hit latency of a cache step of a path: the path's override, else the cache's.
  [[nodiscard]] double hit_latency(const PathStep& step) const;
  // One line: "fermi-gtx560ti: 5 caches, 2 TLB levels, 8 SMs @ 1645 MHz".
  [[nodiscard]] std::string summary() const;
  // The model as data (bundle.json "device.ground_truth").
  [[nodiscard]] nlohmann::json ground_truth() const;
};

// Decodes a profile tree; every problem goes to `d`.
Profile decode_profile(const SpecNode& root, Diagnostics& d);
// Reads and checks a profile file or text; throws SpecError with every problem.
Profile load_profile_file(const std::string& path);
Profile load_profile_text(const std::string& text, const std::string& file);

// Profiles of the library: specs_dir()/devices/*.yaml, by name (file stem).
std::vector<std::string> profile_names();
// A name of the library or a path to a file -> the file; throws RunError
// listing the available profiles when neither exists.
std::string resolve_profile_path(const std::string& name_or_path);

}  // namespace dissect::sim
