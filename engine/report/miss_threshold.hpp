#pragma once
// Where a hit ends and a miss begins, for miss counts (staircases) and the
// heatmap's reference line. Latencies are raw cycles, as in trace.csv.
//
// 1. A `latency_levels` finding, when findings.json has one: a numeric
//    details.miss_threshold / details.threshold is used as is; else the
//    levels it lists (details.levels: numbers, or objects with one of
//    latency / center / median / mean / cycles / value) give the midpoint
//    between the lowest level and the next one above it.
// 2. Otherwise the levels are clustered from the merged latency histogram of
//    all points: latencies seen in fewer than 0.05 % of samples are ignored
//    (outliers), the rest are split where two consecutive latencies are more
//    than max(10 cycles, 10 %) apart, each cluster's level is its weighted
//    median, and the threshold is again the midpoint between the lowest level
//    and the next one.
// One level only: nothing counts as a miss (threshold +inf).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/report/experiment_data.hpp"

namespace dissect::report {

struct MissThreshold {
  std::vector<double> levels;  // ascending, cycles
  double threshold = 0;        // a sample with latency > threshold is a miss; +inf: no misses
  std::string source;          // how it was found, one line for the report
  [[nodiscard]] bool any() const;  // a finite threshold
  // Every boundary between consecutive levels (midpoints), ascending: one per
  // level above the hit level (e.g. L1 TLB miss, L2 TLB miss). The threshold
  // alone when levels are not known.
  [[nodiscard]] std::vector<double> boundaries() const;
};

MissThreshold miss_threshold(const ExperimentData& data);
// Latency levels from a histogram (latency in whole cycles -> count), as in 2. above.
std::vector<double> cluster_levels(const std::map<std::int64_t, std::uint64_t>& histogram);
// Levels listed by a latency_levels finding, ascending; empty when it lists none.
std::vector<double> levels_from_finding(const nlohmann::json& finding);

}  // namespace dissect::report
