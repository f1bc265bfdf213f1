#pragma once
// Single change point of a 1-D series (seed 004 §3.3.3, "Simplified Opt"): the
// split that minimises cost(left) + cost(right), found exactly by dynamic
// programming over prefix sums. The cost of a segment is its sum of squared
// deviations from the segment mean (the "empirical mean" homogeneity cost).
#include <cstddef>
#include <vector>

namespace dissect::stats {

struct ChangePoint {
  bool found = false;        // false when the series is too short
  std::size_t last_left = 0; // index of the last value of the left segment
  double cost_split = 0;     // cost(left) + cost(right)
  double cost_whole = 0;     // cost of the series as one segment
  double mean_left = 0, mean_right = 0;
  // Share of the variation the split explains: 1 - cost_split / cost_whole (0 when flat).
  [[nodiscard]] double explained() const { return cost_whole > 0 ? 1 - cost_split / cost_whole : 0; }
};

// Each segment keeps at least `min_segment` values.
ChangePoint single_change_point(const std::vector<double>& series, std::size_t min_segment = 1);

// Cost of series[u..v] (inclusive) as one segment (exposed for tests).
double segment_cost(const std::vector<double>& series, std::size_t u, std::size_t v);

}  // namespace dissect::stats
