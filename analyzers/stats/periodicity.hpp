#pragma once
// Periodicity of a chase (seed 003 §3.2 (4)): under LRU (and FIFO) a cyclic
// chase is periodic, so every position is always a hit or always a miss across
// rounds. A position is "mixed" when its minority outcome is too frequent for
// a per-sample misclassification rate `noise` (binomial tail, Bonferroni over
// the positions tested).
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/stats/chase.hpp"

namespace dissect::stats {

struct PeriodicityResult {
  std::size_t positions = 0;        // positions with at least 2 labelled rounds
  std::size_t missing_positions = 0;// positions that miss beyond noise
  std::size_t mixed_positions = 0;  // hit in some rounds, miss in others, beyond noise
  std::size_t rounds = 0;           // most rounds seen at one position
  double noise = 0;                 // misclassification rate allowed per sample
  double min_p = 1;                 // smallest Bonferroni-corrected p of a mixed-position test
  std::vector<std::uint64_t> mixed_offsets;  // the first few
  [[nodiscard]] bool periodic() const { return mixed_positions == 0; }
  [[nodiscard]] nlohmann::json to_json() const;
};

PeriodicityResult periodicity_test(const std::vector<PositionStats>& positions, double noise = 0.02,
                                   double alpha = 1e-3);

// Positions that are sometimes hit, sometimes miss, counted over the whole chase:
// misclassification at rate p makes a position of n labelled rounds look mixed with
// probability 1 - (1-p)^n - p^n; many more mixed positions than that predicts (a Poisson
// upper tail, p) make the chase aperiodic even where no single position is significant
// (a few different lines missing in each round, each only once).
struct AggregateMixed {
  std::size_t mixed = 0;
  double expected = 0;
  double p = 1;
  [[nodiscard]] nlohmann::json to_json() const { return {{"mixed_positions", mixed}, {"expected_from_noise", expected}, {"p", p}}; }
};
AggregateMixed aggregate_mixed_test(const std::vector<PositionStats>& positions, double noise);

// Positions whose misses exceed what a misclassification rate `noise` explains
// (Bonferroni over the positions): the lines that really miss.
std::vector<std::size_t> missing_positions(const std::vector<PositionStats>& positions, double noise = 0.01,
                                           double alpha = 1e-3, bool bonferroni = true);

// Misclassification rate of a chase that should not miss at all (a point at or
// below C): an upper bound on its miss rate (Wilson-like: (k + 2) / (n + 4)),
// at least `floor`.
double noise_rate(const PassGrid& clean_grid, double floor = 1e-4);

}  // namespace dissect::stats
