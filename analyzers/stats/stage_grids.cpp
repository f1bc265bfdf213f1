#include "analyzers/stats/stage_grids.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>

#include "analyzers/stats/periodicity.hpp"

namespace dissect::stats {

StageGrids stage_grids(const SweepGroup& g, double noise_floor) {
  StageGrids s;
  std::vector<double> pool;
  const std::size_t cap = pooled_per_point(g.points.size(), 20000);
  std::vector<std::vector<double>> per_point;
  for (const auto* p : g.points) {
    const std::vector<const Sample*> measured = p->measured_samples();
    const auto l = latencies(measured, cap);
    pool.insert(pool.end(), l.begin(), l.end());
    per_point.push_back(latencies(measured, 20000));
  }
  LevelOptions lo;
  lo.min_share = 1e-4;  // with min_count: a few slow samples can be a level; the tests decide
  s.model = cluster_levels(pool, lo);
  if (per_point.empty()) return s;
  s.hit = std::max(0, hit_level_of(s.model, per_point.front()));
  const auto ignore = static_levels(s.model, s.hit, per_point);
  for (const auto* p : g.points) s.grids.push_back(make_grid(main_chase(*p), s.model, s.hit, true, 1.25, &ignore));
  s.noise = noise_rate(s.grids.front(), noise_floor);
  return s;
}

std::shared_ptr<const StageGrids> shared_stage_grids(const TraceSet& traces, const SweepGroup& group,
                                                    double noise_floor) {
  char noise[40];
  std::snprintf(noise, sizeof noise, "%a", noise_floor);  // exact
  std::string key = std::string("stage_grids ") + noise;
  for (const auto* p : group.points) key += " " + std::to_string(reinterpret_cast<std::uintptr_t>(p));
  return traces.derived->get<StageGrids>(key, [&] { return stage_grids(group, noise_floor); });
}

std::vector<std::uint64_t> missing_lines(const PassGrid& grid, double noise, std::uint64_t stride) {
  const auto pos = grid.positions();
  std::vector<std::uint64_t> out;
  for (auto j : missing_positions(pos, noise, 0.01, false)) out.push_back(pos[j].offset / stride);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace dissect::stats
