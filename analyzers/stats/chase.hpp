#pragma once
// The pass structure of a pointer chase: one chasing thread's measured samples
// in order, cut into passes over the array (the chase period), each sample
// labelled with its latency level. Works on imported traces too: the period is
// inferred from the offsets when accesses_per_pass is unknown.
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/stats/levels.hpp"
#include "engine/trace/trace.hpp"

namespace dissect::stats {

struct Chase {
  const PointTrace* point = nullptr;
  std::uint32_t thread = 0;
  std::uint32_t phase = 0;             // measure phase (phases kernel; seq restarts per phase)
  std::vector<const Sample*> samples;  // measured samples of this thread, by seq
  std::size_t period = 0;              // accesses per pass
  bool period_inferred = false;
};

// Smallest p with offset[i] == offset[i + p] for (almost) every i; the sample
// count when no offset repeats (a single pass).
std::size_t infer_period(const std::vector<const Sample*>& samples);
// One Chase per chasing thread and measure phase (measured samples only),
// ascending by (thread, phase).
std::vector<Chase> chases_of(const PointTrace& point);
// The thread with the most samples (thread 0 of a single-thread chase).
Chase main_chase(const PointTrace& point);

constexpr std::int8_t kUnknown = -1;  // outlier: no level
constexpr std::int8_t kAbsent = -2;   // no sample at this pass and position (cut short)

struct WarmupCheck {
  bool checked = false;   // needs two passes or more
  bool failed = false;    // the first pass missed clearly more than the later ones
  double first_pass_miss_rate = 0, later_miss_rate = 0, z = 0;
  [[nodiscard]] nlohmann::json to_json() const;
};

struct PositionStats {
  std::uint64_t offset = 0;
  std::uint32_t hits = 0, misses = 0, unknown = 0;
  [[nodiscard]] std::uint32_t known() const { return hits + misses; }
  [[nodiscard]] double miss_rate() const { return known() == 0 ? 0 : static_cast<double>(misses) / known(); }
};

struct PassGrid {
  std::size_t period = 0;
  std::vector<std::uint64_t> offsets;              // by position (from the first pass that has it)
  std::vector<std::vector<std::int8_t>> level;     // [pass][position]: level index, kUnknown, kAbsent
  std::size_t dropped_passes = 0;                  // leading passes left out (warm-up did not warm)
  WarmupCheck warmup;

  [[nodiscard]] std::size_t passes() const { return level.size(); }
  // Per position: hits are levels below miss_level, misses levels at or above it.
  [[nodiscard]] std::vector<PositionStats> positions(int miss_level = 1) const;
  // Over every labelled sample.
  [[nodiscard]] std::uint64_t count(int min_level, int max_level = 127) const;
  [[nodiscard]] std::uint64_t known() const { return count(0); }
  [[nodiscard]] double miss_fraction(int miss_level = 1) const;
  // Misses per complete pass, averaged.
  [[nodiscard]] double misses_per_pass(int miss_level = 1) const;
};

// Labels the chase with `model`'s levels, relative to `hit_level` (stored
// level = model level - hit_level: 0 hit, >= 1 slower; levels below the hit
// level are anomalies, kUnknown). When check_warmup, compares the first pass
// with the later ones and drops it if it clearly missed more (PITFALLS: "a
// warm-up pass may not warm").
// Levels above the hit level but within `hit_ratio` of its median are hits
// too (sub-levels of a hit, not a slower level of the hierarchy); 1 keeps
// every level apart.
// Model levels flagged in `ignore` are labelled kUnknown (see static_levels).
PassGrid make_grid(const Chase& chase, const LevelModel& model, int hit_level = 0, bool check_warmup = true,
                   double hit_ratio = 1.25, const std::vector<bool>* ignore = nullptr);

// Slow levels that are no misses: rare at the first point (small N, under
// `rare` of its samples) and never significantly more frequent at any later
// point. A constant delay added to a few random accesses (an interrupt, a
// simulator's outliers) makes such a level; capacity misses grow with N (and
// may shrink again when a larger N misses the next level too).
std::vector<bool> static_levels(const LevelModel& model, int hit_level,
                                const std::vector<std::vector<double>>& per_point, double rare = 0.02);

// The lowest level holding at least `min_share` of the samples (the hit level
// of a chase): rarer, faster levels are anomalies (samples cut short).
int hit_level(const LevelModel& model, double min_share = 0.05);
// The level holding most of these latencies (-1 when none is classified).
int dominant_level(const LevelModel& model, const std::vector<double>& latencies);
// The hit level of a reference (a point that should hit): its dominant
// level, lowered to the fastest level within `ratio` of it (near and far L2
// partitions, per-SM offsets: one hit, several latencies).
int hit_level_of(const LevelModel& model, const std::vector<double>& reference, double ratio = 1.25);

// Latencies of samples, evenly thinned to at most max_count (0: all), for
// pooled level models.
std::vector<double> latencies(const std::vector<const Sample*>& samples, std::size_t max_count = 0);
// Samples per point for a level fit pooled over `points` points: at most
// `per_point`, and about two million in all (a 513-point set sweep of 25,000
// samples each would otherwise sort 13 million values), never below 2,000.
std::size_t pooled_per_point(std::size_t points, std::size_t per_point);

}  // namespace dissect::stats
