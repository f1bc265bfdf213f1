#include "analyzers/stats/unit_excess.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>

#include "analyzers/stats/quantiles.hpp"

namespace dissect::stats {

void unit_excess(std::vector<UnitPoint>& points) {
  std::unordered_map<std::uint64_t, double> ref;  // unit -> reference latency
  for (auto& p : points) {
    p.excess.assign(p.median.size(), std::nan(""));
    // The shift of the units seen before: the state a newcomer is taken to be in.
    std::vector<double> old_excess;
    for (std::size_t i = 0; i < p.median.size(); ++i) {
      if (std::isnan(p.median[i])) continue;
      const auto it = ref.find(p.unit[i]);
      if (it != ref.end()) old_excess.push_back(p.median[i] - it->second);
    }
    const double shift = old_excess.empty() ? 0.0 : median(old_excess);
    for (std::size_t i = 0; i < p.median.size(); ++i) {
      if (std::isnan(p.median[i])) continue;
      const auto [it, fresh] = ref.try_emplace(p.unit[i], p.median[i] - shift);
      p.excess[i] = p.median[i] - it->second;
      (void)fresh;
    }
  }
}

std::vector<std::uint32_t> unit_order(const std::vector<std::uint64_t>& units) {
  const std::size_t n = units.size();
  std::vector<std::uint32_t> order(n, UINT32_MAX);
  bool placed = true;
  for (std::size_t k = 0; k < n && placed; ++k) {
    const std::uint64_t u = units[k];
    placed = u < n && order[u] == UINT32_MAX;
    if (placed) order[u] = static_cast<std::uint32_t>(k);
  }
  if (placed) return order;
  for (std::size_t k = 0; k < n; ++k) order[k] = static_cast<std::uint32_t>(k);
  std::stable_sort(order.begin(), order.end(),
                   [&units](std::uint32_t a, std::uint32_t b) { return units[a] < units[b]; });
  return order;
}

}  // namespace dissect::stats
