#pragma once
// Robust clustering of latencies into levels (hit, miss, TLB miss, ...).
//
// Method: a Gaussian kernel density of ln(latency + 250) (so the bandwidth is
// about a cycle at L1-hit latencies and a fixed share of the latency far above
// them); its modes
// are candidate levels; two neighbouring modes stay apart only if the valley
// between them is significantly lower than the lower peak (a Poisson dip test
// on kernel-weighted counts), else they merge. A level needs a minimum share
// and count, so rare outliers never make one; samples far outside every
// level's fence (median +- k robust sigmas) are outliers, classified -1. A
// basin as wide as a good part of its median (scattered outliers) is no level.
#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dissect::stats {

struct LevelOptions {
  double bandwidth = 0.004;    // kernel sigma on the ln(x + 250) scale (1 cycle at 0, 0.4% far above)
  double min_share = 0.005;    // a level holds at least this share of the samples ...
  std::size_t min_count = 5;   // ... and at least this many
  double dip_z = 3.0;          // valley must lie this many (Poisson) sigmas below the lower peak ...
  double dip_ratio = 0.7;      // ... and below this share of it
  double fence_sigmas = 6.0;   // farther than this many robust sigmas from a level: outlier
  double max_rel_spread = 0.35;// a level's robust sigma is at most this share of its median (scattered
                               // outliers gathered in one basin are not a level)
};

struct Level {
  double median = 0, p5 = 0, p95 = 0, mean = 0, min = 0, max = 0;
  double sigma = 0;            // robust spread (1.4826 MAD, floored)
  double share = 0;            // of all samples given (outliers included in the denominator)
  std::size_t count = 0;
  double fence_lo = 0, fence_hi = 0;
};

struct LevelModel {
  std::vector<Level> levels;       // ascending by median
  std::vector<double> boundaries;  // levels.size() - 1 cut points (latency) between neighbours
  std::size_t samples = 0;
  std::size_t outliers = 0;
  std::size_t candidate_modes = 0; // modes of the density before merging and share filtering

  // Level index of a latency, or -1 for an outlier (outside every fence).
  [[nodiscard]] int classify(double latency) const;
  [[nodiscard]] double outlier_share() const {
    return samples == 0 ? 0 : static_cast<double>(outliers) / static_cast<double>(samples);
  }
  [[nodiscard]] bool empty() const { return levels.empty(); }
  // How cleanly two levels separate: the gap between i's p95 and j's p5 in
  // units of their spreads (large is clean, <= 0 overlapping).
  [[nodiscard]] double separation(std::size_t i, std::size_t j) const;
  [[nodiscard]] nlohmann::json to_json(double timer_overhead = -1) const;
};

LevelModel cluster_levels(const std::vector<double>& latencies, const LevelOptions& options = {});

// When no level is slower than ratio x the hit level's median (the levels above
// `hit`, if any, are hits too: the L2's near and far partitions): gathers the
// samples above that bar and above the slowest level's upper fence, which
// clustering left as outliers because they are too few or too scattered to
// make a level of their own (a cold chase's misses spread over the L2's near
// and far latencies, or over DRAM's), into one open-ended level above the
// rest. False (model unchanged) when a slow level exists already or fewer
// than `min_share` of the samples (and at least 3) qualify: a stray outlier
// here and there is no level.
bool add_slow_level(LevelModel& model, int hit, const std::vector<double>& latencies, double min_share,
                    double ratio = 1.25);

}  // namespace dissect::stats
