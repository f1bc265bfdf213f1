#include "analyzers/stats/staircase.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/spec/units.hpp"

namespace dissect::stats {

Staircase stage_staircase(std::vector<StairPoint> pts, std::uint64_t stride) {
  Staircase st;
  st.stride = stride;
  if (stride == 0 || pts.size() < 2) {
    st.reason = "needs at least two points with a non-zero stride";
    return st;
  }
  std::sort(pts.begin(), pts.end(), [](const StairPoint& a, const StairPoint& b) { return a.size_bytes < b.size_bytes; });
  const std::size_t J = pts.size();
  // Each point's missed units ascending, read with a cursor per point as the units are
  // walked in order below (no lookups).
  std::vector<std::vector<std::uint64_t>> miss(J);
  std::uint64_t max_unit = 0;
  for (std::size_t j = 0; j < J; ++j) {
    miss[j] = pts[j].missing;
    if (!std::is_sorted(miss[j].begin(), miss[j].end())) std::sort(miss[j].begin(), miss[j].end());
    max_unit = std::max<std::uint64_t>(max_unit, pts[j].size_bytes / stride);
  }
  std::vector<std::size_t> cursor(J, 0);
  const auto missed = [&](std::size_t j, std::uint64_t u) {
    while (cursor[j] < miss[j].size() && miss[j][cursor[j]] < u) ++cursor[j];
    return cursor[j] < miss[j].size() && miss[j][cursor[j]] == u;
  };
  // Onset of each unit: where its misses start. First the step function
  // (0 before, 1 from t on) that disagrees with the fewest points; then, with
  // the rates those onsets give (q: a line of an overflowed set misses at a
  // point; eps: a line misses before its set overflows), the maximum-
  // likelihood onset: under a random policy an overflowed set's line misses
  // only at some points, which a plain step fit takes for a late onset.
  std::vector<std::vector<int>> ys(max_unit);
  std::vector<std::size_t> firsts(max_unit, J);
  for (std::uint64_t u = 0; u < max_unit; ++u)
    for (std::size_t j = 0; j < J; ++j) {
      if ((u + 1) * stride > pts[j].size_bytes) continue;
      if (firsts[u] == J) firsts[u] = j;
      ys[u].push_back(missed(j, u) ? 1 : 0);
    }
  std::vector<std::size_t> onset(max_unit, J);
  auto fit = [&](double q, double eps) {
    const bool ml = q > 0;
    const double l1q = std::log(std::max(q, 1e-9)), l0q = std::log(std::max(1 - q, 1e-9));
    const double l1e = std::log(std::max(eps, 1e-9)), l0e = std::log(std::max(1 - eps, 1e-9));
    double errors = 0, cells = 0;
    for (std::uint64_t u = 0; u < max_unit; ++u) {
      const auto& y = ys[u];
      if (y.empty()) continue;
      // cost(t): before t as clean, from t on as overflowed; t = size: never.
      double after = 0;
      for (int v : y) after += ml ? -(v ? l1q : l0q) : (v == 0 ? 1 : 0);
      double before = 0, best = after;
      std::size_t best_t = 0;
      for (std::size_t t = 1; t <= y.size(); ++t) {
        const int v = y[t - 1];
        before += ml ? -(v ? l1e : l0e) : (v == 1 ? 1 : 0);
        after -= ml ? -(v ? l1q : l0q) : (v == 0 ? 1 : 0);
        if (before + after < best - 1e-12) best = before + after, best_t = t;
      }
      onset[u] = best_t == y.size() ? J : firsts[u] + best_t;
      for (std::size_t t = 0; t < y.size(); ++t) errors += (t < best_t) == (y[t] == 1) ? 1 : 0;
      cells += static_cast<double>(y.size());
    }
    return cells > 0 ? errors / cells : 0.0;
  };
  double errors = 0, cells = 1;
  errors = fit(0, 0);
  for (int round = 0; round < 2; ++round) {
    double ones_after = 0, n_after = 0, ones_before = 0, n_before = 0;
    for (std::uint64_t u = 0; u < max_unit; ++u)
      for (std::size_t t = 0; t < ys[u].size(); ++t) {
        const bool after = firsts[u] + t >= onset[u];
        (after ? ones_after : ones_before) += ys[u][t];
        (after ? n_after : n_before) += 1;
      }
    if (n_after == 0) break;
    const double q = std::clamp(ones_after / n_after, 0.05, 0.995);
    const double eps = std::clamp(n_before > 0 ? ones_before / n_before : 0.0, 1e-4, 0.05);
    errors = fit(q, eps);
    st.miss_rate_after_onset = q;
  }
  st.fit_errors = cells > 0 ? errors : 0;
  // C: the point before the earliest onset that two units or more share (an
  // overflowing set turns at least its old line and the new one into misses;
  // a single early onset is a stray).
  std::map<std::size_t, std::size_t> onset_count;
  for (std::uint64_t u = 0; u < max_unit; ++u)
    if (onset[u] < J) ++onset_count[onset[u]];
  std::size_t t_min = J;
  for (const auto& [t, n] : onset_count)
    if (n >= 2) {
      t_min = t;
      break;
    }
  if (t_min == J) {
    st.reason = "no point misses: every N up to " + format_bytes(pts.back().size_bytes) + " fits";
    return st;
  }
  if (t_min == 0) {
    st.reason = "the smallest N (" + format_bytes(pts.front().size_bytes) +
                ") already misses: the staircase needs a point at N = C without misses";
    return st;
  }
  st.capacity_bytes = pts[t_min - 1].size_bytes;
  const std::uint64_t C = st.capacity_bytes;
  const std::uint64_t old_units = C / stride;
  for (std::size_t j = t_min; j < J; ++j)
    if ((pts[j].size_bytes - C) % stride != 0) {
      st.reason = "N = " + format_bytes(pts[j].size_bytes) + " is not C + k*s (C = " + format_bytes(C) +
                  ", s = " + format_bytes(stride) + "): the stage method steps N by the stride";
      return st;
    }
  std::uint64_t prev_k = 0;
  for (std::size_t j = t_min; j < J; ++j) {
    const std::uint64_t k = (pts[j].size_bytes - C) / stride;
    if (k - prev_k != 1) st.unit_steps = false;
    prev_k = k;
  }
  // Groups of the lines present at N = C, by onset.
  std::map<std::size_t, std::size_t> groups;
  for (std::uint64_t u = 0; u < old_units; ++u) {
    if (onset[u] == J) ++st.never_missing;
    else ++groups[onset[u]];
  }
  // A sliver beside full groups is lines whose onset noise or a random
  // policy moved: give them to their nearest group (sets of one line, direct
  // mapped, are all alike and stay).
  if (groups.size() >= 3) {
    std::vector<std::size_t> sizes;
    for (const auto& [t, n] : groups) sizes.push_back(n);
    std::nth_element(sizes.begin(), sizes.begin() + static_cast<std::ptrdiff_t>(sizes.size() / 2), sizes.end());
    const std::size_t typical = sizes[sizes.size() / 2];
    for (auto it = groups.begin(); it != groups.end();) {
      if (4 * it->second >= typical) {
        ++it;
        continue;
      }
      // To the neighbour next to it in onset; the earlier one when both are
      // (a line that rarely misses is more often late than early).
      auto next = std::next(it);
      const bool has_prev = it != groups.begin(), has_next = next != groups.end();
      if (!has_prev && !has_next) {
        ++it;
        continue;
      }
      auto target = !has_prev                                                     ? next
                    : !has_next                                                   ? std::prev(it)
                    : next->first - it->first < it->first - std::prev(it)->first ? next
                                                                                  : std::prev(it);
      target->second += it->second;
      for (std::uint64_t u = 0; u < old_units; ++u)
        if (onset[u] == it->first) onset[u] = target->first;
      it = groups.erase(it);
    }
  }
  for (const auto& [t, n] : groups) {
    st.step_k.push_back((pts[t].size_bytes - C) / stride);
    st.set_sizes.push_back(n);
  }
  st.sets = groups.size();
  st.complete = st.never_missing == 0;
  for (std::size_t j = 0; j < J; ++j) {
    std::size_t new_sets = 0;
    if (groups.count(j)) new_sets = 1;
    const long long k = pts[j].size_bytes >= C ? static_cast<long long>((pts[j].size_bytes - C) / stride)
                                               : -static_cast<long long>((C - pts[j].size_bytes) / stride);
    st.table.push_back({{"size_bytes", pts[j].size_bytes},
                        {"k", k},
                        {"units", pts[j].units},
                        {"missed_units", pts[j].missing.size()},
                        {"new_set", new_sets == 1},
                        {"set_lines", groups.count(j) ? groups.at(j) : 0}});
  }
  if (st.sets == 0) {
    st.reason = "no step of the staircase was seen";
    return st;
  }
  // Consecutive units sharing a set: the spacing of the steps (its mode).
  if (st.step_k.size() >= 2) {
    std::map<std::uint64_t, int> spacing;
    for (std::size_t i = 1; i < st.step_k.size(); ++i) ++spacing[st.step_k[i] - st.step_k[i - 1]];
    std::uint64_t best = 1;
    int best_n = 0;
    for (auto [d, n] : spacing)
      if (n > best_n) best = d, best_n = n;
    st.lines_per_block = static_cast<std::size_t>(std::max<std::uint64_t>(1, best));
  }
  // Bit-defined: with set(u) = (u / block) mod sets, the first added line of
  // each set fixes its onset; does every line at N = C carry that onset?
  if (st.complete && st.unit_steps) {
    const std::uint64_t lpb = st.lines_per_block;
    auto set_of = [&](std::uint64_t u) { return (u / lpb) % st.sets; };
    std::map<std::uint64_t, std::uint64_t> predicted;  // set -> k of its first added line
    for (std::uint64_t k = 1; predicted.size() < st.sets && k <= 4 * max_unit; ++k)
      predicted.try_emplace(set_of(old_units + k - 1), k);
    std::size_t agree = 0;
    for (std::uint64_t u = 0; u < old_units; ++u) {
      const auto it = predicted.find(set_of(u));
      if (it == predicted.end() || onset[u] == J) continue;
      agree += (pts[onset[u]].size_bytes - C) / stride == it->second ? 1 : 0;
    }
    st.bit_match = old_units == 0 ? 0 : static_cast<double>(agree) / static_cast<double>(old_units);
    st.bit_defined = st.bit_match >= 0.95;
  }
  st.ok = true;
  return st;
}

}  // namespace dissect::stats
