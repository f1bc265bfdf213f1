#pragma once
// A latency step over N read from each point's mean, for series whose
// per-unit latencies wobble from point to point by as much as the step.
//
// On a GPU whose pages' data-path latency (L2 partition, slice, DRAM row)
// moves by more than a TLB miss penalty from one point to the next, no page's
// own latency tells hit from miss, but the mean over many pages moves by the
// penalty times the share that misses: with a random visiting order and k
// slots per entry, that share rises gradually past the coverage (about 1 - C/N
// for k >> 1: each access finds its entry held with the chance the entries
// have to hold it), at once for k = 1 in LRU order. The step is claimed only
// where it is persistent (every later point stays raised), significant (each
// raised point exceeds the base by z standard errors of the two means) and at
// least `min_rise`: a wobble of the data path has none of the three.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace dissect::stats {

struct MeanPoint {
  std::uint64_t size_bytes = 0;
  double mean = 0;       // mean latency of the point's units
  double se = 0;         // its standard error (unit-to-unit spread / sqrt(units))
  std::size_t units = 0;
};

struct MeanStep {
  bool found = false;
  std::size_t clean = 0;   // index of the largest point at the base
  std::size_t first = 0;   // index of the first raised point (every later one raised)
  double base = 0;         // weighted mean of the points before the step that stay at the base
  double top = 0;          // median of the last third of the raised points: the step's plateau
  double share_at_first = 0;  // (mean at `first` - base) / (top - base): the share that misses there
  std::size_t exceptions = 0; // points past `first` within noise of the base (at most a tenth)
  std::string reason;         // why no step, when !found
  [[nodiscard]] double rise() const { return top - base; }
  [[nodiscard]] nlohmann::json to_json(const std::vector<MeanPoint>& points) const;
};

// The first persistent step of `points` (ascending by size_bytes). Its plateau is the
// last third of the raised points, at least two of them: six raised points or more;
// with `short_plateau`, two raised points that agree within a tenth of the rise will
// do (a step the next one follows closely).
MeanStep mean_step(const std::vector<MeanPoint>& points, double min_rise, double z = 4.0, bool short_plateau = false);

// Every step of `points`, one after the other (indices into `points`): levels whose
// penalties add up, each with a plateau before the next begins. The first is
// mean_step's, or, where the points past it climb again (no plateau to the end of the
// sweep), the step of the longest leading part of the points that levels off; a step
// whose raised points hold a plateau of two points or more, followed by a climb larger
// than that plateau's own rise, ends at that plateau (a smaller climb is read with the
// step: a gradual rise climbs less at every point, and deeper levels cost more). Each
// later step is read from the points from where the last one's plateau begins, over
// that plateau as its base, with a short plateau (two points or more), and is claimed only
// where it adds a quarter of the last step's rise or more (a smaller one is not told
// from the plateau's drift), at least two points lie at that base and its base agrees
// with the last step's plateau (within a quarter of that step's rise, and min_rise /
// 2): a random order's gradual rise past one level is not a second one.
std::vector<MeanStep> mean_steps(const std::vector<MeanPoint>& points, double min_rise, double z = 4.0);

}  // namespace dissect::stats
