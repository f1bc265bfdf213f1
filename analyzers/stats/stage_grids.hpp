#pragma once
// The pass grids of a stage-method sweep (s = b, N = C + k b): every point's main
// chase labelled against one latency model pooled over the series, and the
// misclassification rate its smallest N (at or below C) shows. The sets and
// stage_profile analyzers read the same series this way.
#include <memory>
#include <vector>

#include "analyzers/stats/chase.hpp"
#include "analyzers/stats/levels.hpp"
#include "analyzers/stats/sweep_groups.hpp"

namespace dissect::stats {

struct StageGrids {
  LevelModel model;
  int hit = 0;                  // the hit level (of the smallest N)
  std::vector<PassGrid> grids;  // by point, as in the group
  double noise = 0;             // misclassification rate of the smallest N, at least the floor
};

StageGrids stage_grids(const SweepGroup& group, double noise_floor);
// The same, made once per group of `traces` and noise floor for every analyzer of the bundle
// that asks (sets and stage_profile read the same series: traces.derived keeps it).
std::shared_ptr<const StageGrids> shared_stage_grids(const TraceSet& traces, const SweepGroup& group, double noise_floor);

// The lines (offset / stride) of a grid that miss beyond `noise`, ascending.
std::vector<std::uint64_t> missing_lines(const PassGrid& grid, double noise, std::uint64_t stride);

}  // namespace dissect::stats
