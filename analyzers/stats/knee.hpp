#pragma once
// The knee of latency over array size N (seed 004 §3.3): each point reduced to
// one dimension (the share of its accesses slower than the hit level), the
// single most likely change point of that series by dynamic programming, a
// two-sample Kolmogorov-Smirnov test of the reduced values on either side, and
// the onset: the clean/missing split that agrees with the most points
// (monotone_split.hpp), so that a band where clean and missing points mix
// does not move the knee to wherever its first stray miss fell. Used by the
// cache_size analyzer and by the adaptive search of `run`.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/stats/change_point.hpp"
#include "analyzers/stats/chase.hpp"
#include "analyzers/stats/ks_test.hpp"
#include "analyzers/stats/levels.hpp"
#include "analyzers/stats/monotone_split.hpp"

namespace dissect::stats {

struct KneeOptions {
  double alpha = 0.05;          // KS test level for "there is a change"
  double point_alpha = 1e-4;    // per-point binomial test: misses beyond the baseline
  double min_excess = 5;        // ... and at least this many misses more than the baseline explains
                                // (real GPUs show 1-3 sporadic slow samples in a clean point of 8192)
  double below_rate = 0.01;     // a baseline above this miss share, where the smallest N's points miss
                                // above it too: the knee lies below the smallest N
  double min_miss_share = 0;    // ... and a miss share at least this much above the baseline's (a
                                // cache whose misses start gradually: the knee where they matter)
  // The least a capacity miss costs, relative to the hit latency: a miss goes to the next level of
  // the hierarchy, and on every GPU published that costs far more than this (L1 -> L2 several
  // times, L2 -> DRAM about twice, constant L1 -> L1.5 about twice). Per-access samples slower
  // than the hit level by less are not misses; a chain average that rises by less is a changing
  // mix of hit levels (near and far L2 partitions), or a TLB, not a cache's capacity.
  double min_miss_penalty = 0.25;
};

struct KneePoint {
  const PointTrace* point = nullptr;
  std::uint64_t size = 0;
  std::uint64_t misses = 0, known = 0;
  double miss_fraction = 0;     // chain timing: the relative rise over the baseline
  double median_latency = 0;
  bool warmup_failed = false;
  bool clean = true;            // no misses beyond the baseline
};

// Chain timing: a further capacity past the knee, where the chain's average climbs from one
// plateau of latency to a slower one (a partitioned L2 seen from one SM: near hits, then near
// misses served by the far partition, then DRAM).
struct FurtherKnee {
  std::uint64_t last_clean_bytes = 0, first_miss_bytes = 0;
  double latency_before = 0, latency_after = 0;  // the two plateaus' medians
};

struct KneeResult {
  enum class Outcome { knee, above_range, below_range, undetermined };
  Outcome outcome = Outcome::undetermined;
  std::string reason;
  std::uint64_t knee_bytes = 0;        // largest N without capacity misses
  std::uint64_t first_miss_bytes = 0;  // the next point
  // Chain timing: the largest miss penalty (relative to the baseline) that the rise at sizes of
  // four times the first miss or more allows; negative when no such size was measured.
  double penalty_bound = -1;
  std::uint64_t penalty_bound_at_bytes = 0;
  std::vector<FurtherKnee> further;    // chain timing: capacities past the first, ascending
  // Where clean and missing points mix around the knee (both 0 when the
  // series switches at one N): the smallest N that misses, the largest clean.
  std::uint64_t band_from_bytes = 0, band_to_bytes = 0;
  std::size_t disagreements = 0;       // points on the wrong side of the knee
  std::vector<KneePoint> series;
  std::string reduction = "share of each point's accesses slower than the hit level";
  LevelModel levels;
  int hit = 0;
  std::vector<bool> ignored;           // levels left out (static_levels)
  ChangePoint cp;
  KsResult ks;
  std::string ks_on = "reduced";       // "reduced": per-point values (seed 004); "samples": raw latencies
  double baseline_rate = 0;
  double confidence = 0;
  [[nodiscard]] nlohmann::json evidence() const;
};

// `points` ascending by size_bytes (one series: same stride, path, ...).
KneeResult find_knee(const std::vector<const PointTrace*>& points, const KneeOptions& options = {});

// Chain timing: the largest average a point may show and still count as clean,
// given the chain averages of points known to fit: their median plus 4 robust
// sigmas, the sigma at least 0.05% of the median and 0.01 cycles (chain averages
// are steady to a few thousandths of a cycle on an H100; a few misses in a chain
// of thousands of loads must count: a texture miss just above C adds 0.3%).
// `baseline` must not be empty.
double chain_clean_bar(const std::vector<double>& baseline);

// Whether `misses` of `known` accesses exceed a baseline miss rate beyond noise.
bool exceeds_baseline(std::uint64_t misses, std::uint64_t known, double baseline_rate,
                      const KneeOptions& options = {});

// One step of the adaptive search: does `candidate` show capacity misses that
// `baseline` (a smaller N, known to fit) does not?
struct KneeProbe {
  bool misses = false;
  double baseline_rate = 0, candidate_rate = 0;
  std::uint64_t candidate_misses = 0, candidate_known = 0;
};
KneeProbe probe_capacity_misses(const PointTrace& baseline, const PointTrace& candidate,
                                const KneeOptions& options = {});

}  // namespace dissect::stats
