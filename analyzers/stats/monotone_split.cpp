#include "analyzers/stats/monotone_split.hpp"

#include <stdexcept>

namespace dissect::stats {

MonotoneSplit monotone_split(const std::vector<std::uint64_t>& keys, const std::vector<bool>& missing) {
  if (keys.size() != missing.size()) throw std::invalid_argument("monotone_split: keys and flags differ in length");
  const std::size_t n = missing.size();
  MonotoneSplit r;
  // Disagreements of the split at k: missing points before k + clean points
  // from k on. Walk k from 0 to n, allowed only between different keys.
  std::size_t clean_total = 0;
  for (bool m : missing) clean_total += m ? 0 : 1;
  std::size_t missing_before = 0, clean_before = 0;
  std::size_t best = n + 1;
  std::vector<std::size_t> best_ks;
  for (std::size_t k = 0; k <= n; ++k) {
    if (k > 0) (missing[k - 1] ? missing_before : clean_before) += 1;
    if (k > 0 && k < n && keys[k] == keys[k - 1]) continue;
    const std::size_t cost = missing_before + (clean_total - clean_before);
    if (cost < best) best = cost, best_ks.clear();
    if (cost == best) best_ks.push_back(k);
  }
  r.first_missing = best_ks[(best_ks.size() - 1) / 2];
  r.disagreements = best;
  r.band_begin = n;
  for (std::size_t i = 0; i < n; ++i)
    if (missing[i]) {
      r.band_begin = i;
      break;
    }
  r.band_end = 0;
  for (std::size_t i = n; i-- > 0;)
    if (!missing[i]) {
      r.band_end = i;
      break;
    }
  return r;
}

}  // namespace dissect::stats
