#include "analyzers/stats/periodicity.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "analyzers/stats/binomial.hpp"

namespace dissect::stats {

nlohmann::json PeriodicityResult::to_json() const {
  return {{"positions", positions},   {"missing_positions", missing_positions},
          {"mixed_positions", mixed_positions}, {"rounds", rounds},
          {"noise", noise},           {"min_p", min_p},
          {"mixed_offsets", mixed_offsets}};
}

namespace {
bool exceeds(std::uint32_t k, std::uint32_t n, double noise, double alpha, double tests, double* p_out = nullptr) {
  if (k < 1 || (k < 2 && tests > 1)) return false;
  const double p = std::min(1.0, binomial_sf(k, n, noise) * tests);
  if (p_out) *p_out = p;
  return p < alpha;
}
}  // namespace

PeriodicityResult periodicity_test(const std::vector<PositionStats>& positions, double noise, double alpha) {
  PeriodicityResult r;
  r.noise = noise;
  std::vector<const PositionStats*> tested;
  for (const auto& p : positions) {
    if (p.known() < 2) continue;
    tested.push_back(&p);
    r.rounds = std::max<std::size_t>(r.rounds, p.known());
  }
  r.positions = tested.size();
  const double tests = static_cast<double>(std::max<std::size_t>(1, tested.size()));
  for (const auto* p : tested) {
    if (exceeds(p->misses, p->known(), noise, alpha, tests)) ++r.missing_positions;
    const std::uint32_t minority = std::min(p->hits, p->misses);
    const double share = static_cast<double>(minority) / static_cast<double>(p->known());
    double pv = 1;
    if (share >= 0.05 && exceeds(minority, p->known(), noise, alpha, tests, &pv)) {
      ++r.mixed_positions;
      if (r.mixed_offsets.size() < 16) r.mixed_offsets.push_back(p->offset);
    }
    r.min_p = std::min(r.min_p, pv);
  }
  return r;
}

AggregateMixed aggregate_mixed_test(const std::vector<PositionStats>& positions, double noise) {
  AggregateMixed a;
  for (const auto& ps : positions) {
    const auto n = static_cast<double>(ps.hits + ps.misses);
    if (n < 2) continue;
    a.expected += 1 - std::pow(1 - noise, n) - std::pow(noise, n);
    if (ps.hits > 0 && ps.misses > 0) ++a.mixed;
  }
  const auto m = static_cast<double>(a.mixed);
  if (m <= a.expected || m == 0) return a;
  const double e = std::max(a.expected, 1e-300);
  // Poisson tail bound: P(X >= m) <= pmf(m) / (1 - e / (m + 1)).
  const double log_pmf = m * std::log(e) - e - log_gamma(m + 1);
  a.p = std::min(1.0, std::exp(log_pmf) / (1 - e / (m + 1)));
  return a;
}

double noise_rate(const PassGrid& g, double floor) {
  const double k = static_cast<double>(g.count(1)), n = static_cast<double>(g.known());
  return std::max(floor, (k + 2) / (n + 4));
}

std::vector<std::size_t> missing_positions(const std::vector<PositionStats>& positions, double noise, double alpha,
                                           bool bonferroni) {
  std::vector<std::size_t> out;
  const double tests = bonferroni ? static_cast<double>(std::max<std::size_t>(1, positions.size())) : 1.0;
  // Positions share a few (misses, rounds) pairs: each pair is tested once.
  std::map<std::pair<std::uint32_t, std::uint32_t>, bool> tested;
  for (std::size_t j = 0; j < positions.size(); ++j) {
    const auto& p = positions[j];
    if (p.known() == 0) continue;
    // Few rounds: a majority of misses decides (a test could not reach significance).
    const bool few = bonferroni && p.known() <= 4;
    bool miss = false;
    if (few) {
      miss = 2 * p.misses > p.known();
    } else {
      const auto [it, fresh] = tested.try_emplace({p.misses, p.known()}, false);
      if (fresh) it->second = exceeds(p.misses, p.known(), noise, alpha, tests);
      miss = it->second;
    }
    if (miss) out.push_back(j);
  }
  return out;
}

}  // namespace dissect::stats
