#include <doctest/doctest.h>

#include "analyzers/stats/periodicity.hpp"
#include "support/ref_model.hpp"

using namespace dissect;
using namespace dissect::stats;

namespace {
PeriodicityResult run(const test::RefCacheConfig& cfg, double outlier_rate) {
  test::ChaseSpec cs;
  cs.size = cfg.capacity() + cfg.line;  // one set overflowed by one line
  cs.stride = cfg.line;
  cs.iterations = 129 * 40;
  test::RefNoise noise;
  noise.jitter = 2;
  noise.outlier_rate = outlier_rate;
  const PointTrace p = test::cache_chase(0, cfg, cs, {}, noise);
  std::vector<double> lat;
  for (const auto& s : p.samples) lat.push_back(s.latency);
  const LevelModel m = cluster_levels(lat);
  const PassGrid g = make_grid(main_chase(p), m, 0, true);
  return periodicity_test(g.positions());
}
}  // namespace

TEST_CASE("periodicity: LRU is periodic, also with outliers") {
  auto cfg = test::RefCacheConfig::uniform(16384, 128, 4);
  const auto r = run(cfg, 0.005);
  CHECK(r.periodic());
  CHECK(r.positions == 129);
  CHECK(r.missing_positions == 5);
}

TEST_CASE("periodicity: FIFO is periodic on a cycle too") {
  auto cfg = test::RefCacheConfig::uniform(16384, 128, 4);
  cfg.policy = test::RefCacheConfig::Policy::fifo;
  CHECK(run(cfg, 0).periodic());
}

TEST_CASE("periodicity: weighted random replacement is not") {
  auto cfg = test::RefCacheConfig::uniform(16384, 128, 4);
  cfg.policy = test::RefCacheConfig::Policy::weighted;
  cfg.weights = {1, 3, 1, 1};
  const auto r = run(cfg, 0.002);
  CHECK_FALSE(r.periodic());
  CHECK(r.mixed_positions >= 2);
  CHECK(r.min_p < 1e-3);
}
