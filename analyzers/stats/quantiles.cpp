#include "analyzers/stats/quantiles.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace dissect::stats {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void drop_nan(std::vector<double>& v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return std::isnan(x); }), v.end());
}
}  // namespace

double quantile_sorted(std::span<const double> v, double q) {
  if (v.empty()) return kNaN;
  q = std::clamp(q, 0.0, 1.0);
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(v.size() - 1, lo + 1);
  const double frac = pos - static_cast<double>(lo);
  return v[lo] * (1 - frac) + v[hi] * frac;
}

namespace {

// The order statistics at ranks lo and lo + 1 (clamped) of whole numbers spanning a short
// range, counted in a histogram; false (nothing set) for other values. Cycle counts are
// whole numbers a few hundred apart: this is linear where a selection moves every value.
bool ranks_by_histogram(const std::vector<double>& v, std::size_t lo, double& at, double& next) {
  constexpr std::size_t kMinSpan = 4096, kMinValues = 64;  // fewer values: a selection is as quick
  if (v.size() < kMinValues) return false;
  const auto [min_it, max_it] = std::minmax_element(v.begin(), v.end());
  const double base = *min_it, span = *max_it - *min_it;
  if (!(span <= static_cast<double>(std::max(v.size(), kMinSpan)))) return false;
  for (const double x : v)  // whole numbers, no -0 (a histogram would not keep it apart from 0)
    if (x != std::floor(x) || (x == 0 && std::signbit(x))) return false;
  std::vector<std::size_t> count(static_cast<std::size_t>(span) + 1, 0);
  for (const double x : v) ++count[static_cast<std::size_t>(x - base)];
  std::size_t bucket = 0, through = count[0];  // values in the buckets up to `bucket`
  const auto value_at = [&](std::size_t rank) {
    while (through <= rank) through += count[++bucket];
    return base + static_cast<double>(bucket);
  };
  at = value_at(lo);
  next = value_at(std::min(lo + 1, v.size() - 1));
  return true;
}

}  // namespace

double quantile(std::vector<double> values, double q) {
  // The same interpolation as quantile_sorted, in linear time: the two order
  // statistics around the position, not a full sort.
  drop_nan(values);
  if (values.empty()) return kNaN;
  q = std::clamp(q, 0.0, 1.0);
  const double pos = q * static_cast<double>(values.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const double frac = pos - static_cast<double>(lo);
  if (double at = 0, next = 0; ranks_by_histogram(values, lo, at, next))
    return lo + 1 >= values.size() || frac == 0 ? at : at * (1 - frac) + next * frac;
  const auto at = values.begin() + static_cast<std::ptrdiff_t>(lo);
  std::nth_element(values.begin(), at, values.end());
  if (lo + 1 >= values.size() || frac == 0) return *at;
  const double hi = *std::min_element(at + 1, values.end());
  return *at * (1 - frac) + hi * frac;
}

double median(std::vector<double> values) { return quantile(std::move(values), 0.5); }

double mad_sigma(const std::vector<double>& values) {
  std::vector<double> v = values;
  drop_nan(v);
  if (v.empty()) return kNaN;
  const double m = median(v);
  for (auto& x : v) x = std::fabs(x - m);
  return 1.4826 * median(std::move(v));
}

double trimmed_mean(std::vector<double> values, double q) {
  drop_nan(values);
  if (values.empty()) return kNaN;
  std::sort(values.begin(), values.end());
  const auto n = values.size();
  auto cut = static_cast<std::size_t>(std::floor(q * static_cast<double>(n)));
  if (2 * cut >= n) cut = (n - 1) / 2;
  const double sum = std::accumulate(values.begin() + static_cast<std::ptrdiff_t>(cut),
                                     values.end() - static_cast<std::ptrdiff_t>(cut), 0.0);
  return sum / static_cast<double>(n - 2 * cut);
}

double mean(std::span<const double> values) {
  double s = 0;
  std::size_t n = 0;
  for (double x : values)
    if (!std::isnan(x)) s += x, ++n;
  return n == 0 ? kNaN : s / static_cast<double>(n);
}

}  // namespace dissect::stats

namespace dissect::stats {
namespace {

// quantile()'s reading of the order statistics at rank lo and (when frac > 0) lo + 1.
double interpolate(double at, double next, double frac) { return frac == 0 ? at : at * (1 - frac) + next * frac; }

}  // namespace

double median_sorted(std::span<const double> v) {
  if (v.empty()) return kNaN;
  const double pos = 0.5 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const double frac = pos - static_cast<double>(lo);
  return interpolate(v[lo], lo + 1 < v.size() ? v[lo + 1] : v[lo], lo + 1 < v.size() ? frac : 0);
}

double mad_sigma_sorted(std::span<const double> v) {
  if (v.empty()) return kNaN;
  const double m = median_sorted(v);
  // The deviations |x - m| fall towards the median and rise past it: the smallest come
  // from merging the two runs outwards from where m would be inserted.
  const auto split = static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), m) - v.begin());
  std::size_t left = split, right = split;  // next candidates: v[left - 1], v[right]
  auto next = [&]() {
    const bool take_left =
        right >= v.size() || (left > 0 && std::fabs(v[left - 1] - m) <= std::fabs(v[right] - m));
    return std::fabs(take_left ? v[--left] - m : v[right++] - m);
  };
  const double pos = 0.5 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const double frac = pos - static_cast<double>(lo);
  double at = 0;
  for (std::size_t k = 0; k <= lo; ++k) at = next();
  const double following = lo + 1 < v.size() && frac != 0 ? next() : at;
  return 1.4826 * interpolate(at, following, lo + 1 < v.size() ? frac : 0);
}

}  // namespace dissect::stats
