#include "analyzers/stats/change_point.hpp"

#include <limits>

namespace dissect::stats {

double segment_cost(const std::vector<double>& s, std::size_t u, std::size_t v) {
  if (v < u || v >= s.size()) return 0;
  double sum = 0, sq = 0;
  for (std::size_t i = u; i <= v; ++i) sum += s[i], sq += s[i] * s[i];
  const double n = static_cast<double>(v - u + 1);
  const double c = sq - sum * sum / n;
  return c > 0 ? c : 0;
}

ChangePoint single_change_point(const std::vector<double>& s, std::size_t min_segment) {
  ChangePoint cp;
  if (min_segment == 0) min_segment = 1;
  const std::size_t n = s.size();
  if (n < 2 * min_segment) return cp;
  // Prefix sums make every segment cost O(1): the O(T^2) table of the thesis'
  // Algorithm 1 collapses to O(T) for a single change point.
  std::vector<double> ps(n + 1, 0), pq(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) ps[i + 1] = ps[i] + s[i], pq[i + 1] = pq[i] + s[i] * s[i];
  auto cost = [&](std::size_t u, std::size_t v_excl) {
    const double k = static_cast<double>(v_excl - u);
    const double sum = ps[v_excl] - ps[u];
    const double c = (pq[v_excl] - pq[u]) - sum * sum / k;
    return c > 0 ? c : 0.0;
  };
  cp.cost_whole = cost(0, n);
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t t = min_segment; t + min_segment <= n; ++t) {
    const double c = cost(0, t) + cost(t, n);
    if (t == min_segment || c < best - 1e-12 * (1 + best)) {
      best = c;
      cp.last_left = t - 1;
    }
  }
  cp.found = true;
  cp.cost_split = best;
  const std::size_t t = cp.last_left + 1;
  cp.mean_left = ps[t] / static_cast<double>(t);
  cp.mean_right = (ps[n] - ps[t]) / static_cast<double>(n - t);
  return cp;
}

}  // namespace dissect::stats
