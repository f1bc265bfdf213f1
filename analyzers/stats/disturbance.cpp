#include "analyzers/stats/disturbance.hpp"

#include <algorithm>

#include "analyzers/stats/chase.hpp"
#include "analyzers/stats/knee.hpp"
#include "analyzers/stats/levels.hpp"

namespace dissect::stats {

nlohmann::json Disturbance::to_json() const {
  return {{"decided", decided},         {"disturbed", disturbed},   {"reference", reference},
          {"reference_miss_share", reference_rate}, {"test_miss_share", test_rate},
          {"test_misses", test_misses}, {"test_samples", test_known}, {"hit_latency_cycles", hit_latency}};
}

Disturbance compare_to_reference(const std::vector<const Sample*>& ref, const std::vector<const Sample*>& test,
                                 const std::string& what) {
  Disturbance d;
  d.reference = what;
  if (ref.empty() || test.empty()) return d;
  std::vector<double> pool = latencies(ref, 50000);
  const auto t = latencies(test, 50000);
  pool.insert(pool.end(), t.begin(), t.end());
  LevelOptions o;
  o.min_share = 1e-4;  // with min_count: a few slow samples can be a level; the tests decide
  const LevelModel m = cluster_levels(pool, o);
  int hit = hit_level_of(m, latencies(ref, 50000));
  if (hit < 0) return d;
  d.hit_latency = m.levels[static_cast<std::size_t>(hit)].median;
  // Slow: clearly above the hit group (levels within 25% of the hit are hits),
  // whether the slow samples form a level of their own or lie scattered.
  double hit_top = 0;
  for (std::size_t c = static_cast<std::size_t>(hit); c < m.levels.size(); ++c)
    if (m.levels[c].median <= 1.25 * d.hit_latency) hit_top = std::max(hit_top, m.levels[c].fence_hi);
  auto rate = [&](const std::vector<const Sample*>& s, std::uint64_t& k, std::uint64_t& n) {
    k = n = 0;
    for (const Sample* x : s) {
      const int c = m.classify(x->latency);
      if (c >= 0 && c < hit) continue;  // faster than a hit: an anomaly
      if (c < 0 && x->latency < d.hit_latency) continue;
      ++n;
      k += x->latency > hit_top ? 1 : 0;
    }
    return n == 0 ? 0.0 : static_cast<double>(k) / static_cast<double>(n);
  };
  std::uint64_t rk = 0, rn = 0;
  d.reference_rate = rate(ref, rk, rn);
  d.test_rate = rate(test, d.test_misses, d.test_known);
  d.decided = rn > 0 && d.test_known > 0;
  d.disturbed = d.decided && exceeds_baseline(d.test_misses, d.test_known, d.reference_rate);
  return d;
}

}  // namespace dissect::stats
