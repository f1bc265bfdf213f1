#pragma once
// The analyzer findings the topology steps read, as typed values: the one place
// that knows each analyzer's name and the keys of its `details`. Each reader
// returns nullopt when the step's findings hold no finding of that analyzer (or,
// where noted, none with a value).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/analyzer.hpp"

namespace dissect::findings {

using Findings = std::vector<Finding>;

// What every finding says besides its figure.
struct Verdict {
  bool determined = false;  // the finding has a value
  double confidence = 0;
  std::string summary;
  std::string reason;  // details.reason, else the summary
};

// summary: the median latency of a timed chain (only with a value).
struct Latency {
  double cycles = 0;
  std::optional<double> timer_overhead_cycles;  // of the first point's launch
};
std::optional<Latency> latency(const Findings& fs);

// line_size: the miss spacing of a small-stride chase (only with a value).
struct LineSize {
  Verdict verdict;
  std::uint64_t line_bytes = 0;
  std::optional<std::uint64_t> fetch_bytes;
};
std::optional<LineSize> line_size(const Findings& fs);

// cache_size: the knee of a size sweep.
struct CacheSize {
  Verdict verdict;
  std::optional<std::uint64_t> size_bytes;
  std::optional<double> hit_latency_cycles, miss_latency_cycles;
  std::optional<std::uint64_t> lower_bound_bytes;  // no knee up to the sweep's end
};
std::optional<CacheSize> cache_size(const Findings& fs);

// line_capacity: the allocation line by occupancy.
struct LineCapacity {
  Verdict verdict;
  std::optional<std::uint64_t> line_bytes;
};
std::optional<LineCapacity> line_capacity(const Findings& fs);

// sets: the stage method's staircase.
struct Sets {
  Verdict verdict;
  std::optional<std::uint64_t> sets;
  std::optional<double> ways;
  std::optional<std::uint64_t> lines_per_block;
  std::optional<bool> bit_defined;
  std::optional<std::vector<std::uint64_t>> set_sizes;
};
std::optional<Sets> sets(const Findings& fs);

// replacement: "lru" / "non-lru" (only with a value); deterministic: true where repeated
// launches of a point missed alike at every sample (else unknown).
struct Replacement {
  std::string policy;
  std::optional<std::vector<double>> way_probabilities;
  std::optional<bool> deterministic;
};
std::optional<Replacement> replacement(const Findings& fs);

// sharing: whether two load paths share one cache (only with a value).
struct Sharing {
  bool shared = false;
  double confidence = 0;
};
std::optional<Sharing> sharing(const Findings& fs);

// amount: caches per SM (only with a value).
std::optional<std::uint64_t> amount(const Findings& fs);

// latency_levels: the medians of the levels (only when it lists levels).
std::optional<std::vector<double>> latency_level_medians(const Findings& fs);

// bank_conflicts: shared-memory banks (only with a value).
struct Banks {
  std::uint64_t banks = 0;
  std::optional<std::uint64_t> width_bytes;
};
std::optional<Banks> banks(const Findings& fs);

// tlb: the TLB levels found, each the analyzer's record.
struct Tlb {
  Verdict verdict;
  std::vector<nlohmann::json> levels;
};
std::optional<Tlb> tlb(const Findings& fs);

// page_size: the page, or why none (and the granule measured, when it is no
// page size of the GPU's page tables: the reach of coalesced entries).
struct PageSize {
  Verdict verdict;
  std::optional<std::uint64_t> page_bytes;
  std::optional<std::uint64_t> granule_bytes;  // details.saturation_stride_bytes
  std::optional<std::uint64_t> at_most_bytes;  // details.page_at_most_bytes (scattered frames)
};
std::optional<PageSize> page_size(const Findings& fs);

// bandwidth (only with a value).
struct Bandwidth {
  double value = 0;
  std::string unit;
  nlohmann::json details;
  std::optional<std::uint64_t> sms;
  std::optional<double> bytes_per_cycle_per_sm, gbps;
  std::optional<std::string> method;
};
std::optional<Bandwidth> bandwidth(const Findings& fs);

// The finding of an analyzer in a list (nullptr when absent).
const Finding* find(const Findings& fs, const std::string& analyzer);

}  // namespace dissect::findings
