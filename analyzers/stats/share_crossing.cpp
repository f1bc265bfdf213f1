#include "analyzers/stats/share_crossing.hpp"

#include <cstddef>

namespace dissect::stats {

std::optional<double> share_crossing(const std::vector<std::uint64_t>& sizes, const std::vector<double>& shares,
                                     double level) {
  if (sizes.size() != shares.size() || sizes.empty()) return std::nullopt;
  // One value per distinct size: the mean of its points, weighted by their count.
  struct Block {
    std::uint64_t size;
    double sum;
    double weight;
  };
  std::vector<Block> b;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    if (!b.empty() && b.back().size == sizes[i]) {
      b.back().sum += shares[i], b.back().weight += 1;
      continue;
    }
    b.push_back({sizes[i], shares[i], 1});
  }
  // Pool adjacent violators: merged blocks keep every member's size for interpolation.
  struct Pool {
    std::size_t first, last;  // indices into b
    double sum, weight;
    [[nodiscard]] double mean() const { return sum / weight; }
  };
  std::vector<Pool> pools;
  for (std::size_t i = 0; i < b.size(); ++i) {
    pools.push_back({i, i, b[i].sum, b[i].weight});
    while (pools.size() >= 2 && pools[pools.size() - 2].mean() > pools.back().mean()) {
      Pool top = pools.back();
      pools.pop_back();
      pools.back().last = top.last;
      pools.back().sum += top.sum;
      pools.back().weight += top.weight;
    }
  }
  std::vector<double> fit(b.size());
  for (const Pool& p : pools)
    for (std::size_t i = p.first; i <= p.last; ++i) fit[i] = p.mean();
  if (fit.front() >= level) return std::nullopt;
  for (std::size_t i = 1; i < fit.size(); ++i) {
    if (fit[i] < level) continue;
    const double x0 = static_cast<double>(b[i - 1].size), x1 = static_cast<double>(b[i].size);
    if (fit[i] == fit[i - 1]) return x1;
    return x0 + (x1 - x0) * (level - fit[i - 1]) / (fit[i] - fit[i - 1]);
  }
  return std::nullopt;
}

}  // namespace dissect::stats
