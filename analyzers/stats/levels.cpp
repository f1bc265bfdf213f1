#include "analyzers/stats/levels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>

#include "analyzers/stats/quantiles.hpp"
#include "analyzers/stats/sort_values.hpp"

namespace dissect::stats {
namespace {

// Median, p5, p95, mean, min and max of a level from its members, sorted, non-empty.
void set_order_stats(Level& l, std::span<const double> sorted) {
  l.median = quantile_sorted(sorted, 0.5);
  l.p5 = quantile_sorted(sorted, 0.05);
  l.p95 = quantile_sorted(sorted, 0.95);
  l.mean = mean(sorted);
  l.min = sorted.front();
  l.max = sorted.back();
}

// ln(x + 250): with a bandwidth of 0.004 the kernel is about one cycle wide at
// L1-hit latencies and 0.4% of the latency far above them.
constexpr double kShift = 250.0;
double to_t(double x) { return std::log(std::max(x, 0.0) + kShift); }
double from_t(double t) { return std::exp(t) - kShift; }

struct Mode {
  std::size_t at;   // grid index of the peak
  double height;
};

}  // namespace

int LevelModel::classify(double x) const {
  if (levels.empty() || std::isnan(x)) return -1;
  const auto it = std::upper_bound(boundaries.begin(), boundaries.end(), x);
  const auto i = static_cast<std::size_t>(it - boundaries.begin());
  const Level& l = levels[i];
  if (x < l.fence_lo || x > l.fence_hi) return -1;
  return static_cast<int>(i);
}

double LevelModel::separation(std::size_t i, std::size_t j) const {
  if (i >= levels.size() || j >= levels.size()) return 0;
  if (i > j) std::swap(i, j);
  const Level& a = levels[i];
  const Level& b = levels[j];
  const double spread = std::max(1e-9, (a.p95 - a.p5) + (b.p95 - b.p5));
  return (b.p5 - a.p95) / spread;
}

nlohmann::json LevelModel::to_json(double overhead) const {
  nlohmann::json arr = nlohmann::json::array();
  for (const auto& l : levels) {
    nlohmann::json j{{"median", l.median}, {"p5", l.p5},       {"p95", l.p95},         {"mean", l.mean},
                     {"share", l.share},   {"count", l.count}, {"min", l.min},         {"max", l.max}};
    if (overhead >= 0) j["median_corrected"] = l.median - overhead;
    arr.push_back(j);
  }
  return arr;
}

// `x`: the finite samples, ascending. Every step below reads them in that order: the
// transform of ascending x is ascending, so a basin (samples between two valleys) and a
// level's members (between two boundaries and inside its fences) are runs of x, already
// sorted, and nothing is copied or sorted again.
static LevelModel cluster_once(const std::vector<double>& x, const LevelOptions& opt) {
  LevelModel model;
  model.samples = x.size();
  if (x.empty()) return model;

  // ln(x + 250) of each sample, computed once per distinct value.
  std::vector<double> t(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) t[i] = i > 0 && x[i] == x[i - 1] ? t[i - 1] : to_t(x[i]);
  const auto [tmin_it, tmax_it] = std::minmax_element(t.begin(), t.end());
  const double tmin = *tmin_it, tmax = *tmax_it;
  const double h = std::max(1e-4, opt.bandwidth);
  double w = h / 8;
  const double span = tmax - tmin;
  if (span / w > 400000) w = span / 400000;
  const auto radius = static_cast<std::size_t>(std::ceil(4 * h / w));
  const double t0 = tmin - static_cast<double>(radius + 1) * w;
  const auto bins = static_cast<std::size_t>(std::ceil((tmax - t0) / w)) + radius + 2;

  std::vector<double> hist(bins, 0);
  for (double v : t) hist[std::min(bins - 1, static_cast<std::size_t>((v - t0) / w))] += 1;
  std::vector<double> kernel(radius + 1);
  for (std::size_t k = 0; k <= radius; ++k) {
    const double u = static_cast<double>(k) * w / h;
    kernel[k] = std::exp(-0.5 * u * u);
  }
  // Kernel-weighted counts: a point mass of n samples makes a peak of height n.
  std::vector<double> dens(bins, 0);
  for (std::size_t g = 0; g < bins; ++g) {
    if (hist[g] == 0) continue;
    const std::size_t lo = g >= radius ? g - radius : 0;
    const std::size_t hi = std::min(bins - 1, g + radius);
    for (std::size_t k = lo; k <= hi; ++k) dens[k] += hist[g] * kernel[k > g ? k - g : g - k];
  }

  // Candidate modes: local maxima (a flat top counts once, at its middle).
  std::vector<Mode> modes;
  for (std::size_t g = 1; g + 1 < bins;) {
    if (dens[g] > dens[g - 1] && dens[g] > 1e-9) {
      std::size_t e = g;
      while (e + 1 < bins && dens[e + 1] == dens[g]) ++e;
      if (e + 1 >= bins || dens[e + 1] < dens[g]) modes.push_back({(g + e) / 2, dens[g]});
      g = e + 1;
    } else {
      ++g;
    }
  }
  if (modes.empty()) modes.push_back({static_cast<std::size_t>(std::max_element(dens.begin(), dens.end()) - dens.begin()),
                                      *std::max_element(dens.begin(), dens.end())});
  model.candidate_modes = modes.size();

  // Valleys between neighbouring modes.
  auto valley_between = [&](std::size_t a, std::size_t b) {
    std::size_t best = a;
    for (std::size_t g = a; g <= b; ++g)
      if (dens[g] < dens[best]) best = g;
    return best;
  };
  std::vector<std::size_t> valleys;
  for (std::size_t i = 0; i + 1 < modes.size(); ++i) valleys.push_back(valley_between(modes[i].at, modes[i + 1].at));

  // Merge the least significant neighbours until every dip is significant.
  auto dip_z = [&](std::size_t i) {
    const double p = std::min(modes[i].height, modes[i + 1].height);
    const double v = dens[valleys[i]];
    if (v > opt.dip_ratio * p) return -1.0;
    // An empty stretch of many kernel widths between two modes separates
    // them however few samples the smaller one has, if those few lie together
    // (a peak of min_count); the Poisson dip test is for valleys that are not
    // empty, and scattered outliers merge.
    if (v < 1e-3 && p >= static_cast<double>(opt.min_count) &&
        static_cast<double>(modes[i + 1].at - modes[i].at) * w > 16 * h)
      return 1e9;
    return (p - v) / std::sqrt(p + v + 1e-12);
  };
  while (!valleys.empty()) {
    std::size_t worst = 0;
    double worst_z = dip_z(0);
    for (std::size_t i = 1; i < valleys.size(); ++i) {
      const double z = dip_z(i);
      if (z < worst_z) worst_z = z, worst = i;
    }
    if (worst_z >= opt.dip_z) break;
    // Merge modes worst and worst+1 into the higher one.
    if (modes[worst + 1].height > modes[worst].height) modes[worst] = modes[worst + 1];
    modes.erase(modes.begin() + static_cast<std::ptrdiff_t>(worst + 1));
    valleys.erase(valleys.begin() + static_cast<std::ptrdiff_t>(worst));
  }

  // Basins: samples between consecutive valleys. Ascending x make ascending t, so each
  // basin is a run of x; should the logarithm's rounding ever break that order between
  // two neighbouring values, a basin's members are gathered in order instead (a
  // subsequence of x, still sorted).
  std::vector<double> cuts;  // in t
  for (auto v : valleys) cuts.push_back(t0 + (static_cast<double>(v) + 0.5) * w);
  std::vector<std::size_t> basin_of(x.size());
  bool runs = true;
  for (std::size_t i = 0; i < x.size(); ++i) {
    basin_of[i] = i > 0 && t[i] == t[i - 1]
                      ? basin_of[i - 1]
                      : static_cast<std::size_t>(std::upper_bound(cuts.begin(), cuts.end(), t[i]) - cuts.begin());
    runs = runs && (i == 0 || basin_of[i] >= basin_of[i - 1]);
  }
  std::vector<std::vector<double>> gathered;
  std::vector<std::span<const double>> basins(modes.size());
  if (runs) {
    for (std::size_t i = 0; i < x.size();) {
      std::size_t e = i;
      while (e < x.size() && basin_of[e] == basin_of[i]) ++e;
      basins[basin_of[i]] = std::span<const double>(x).subspan(i, e - i);
      i = e;
    }
  } else {
    gathered.resize(modes.size());
    for (std::size_t i = 0; i < x.size(); ++i) gathered[basin_of[i]].push_back(x[i]);
    for (std::size_t b = 0; b < modes.size(); ++b) basins[b] = gathered[b];
  }
  const auto basin = [&](std::size_t b) { return basins[b]; };
  const double n = static_cast<double>(x.size());
  std::vector<std::span<const double>> major;
  std::vector<std::size_t> major_index;
  for (std::size_t b = 0; b < basins.size(); ++b) {
    const auto m = basin(b);
    if (m.size() < opt.min_count || static_cast<double>(m.size()) < opt.min_share * n) continue;
    const double med = median_sorted(m);
    if (med > 0 && mad_sigma_sorted(m) > opt.max_rel_spread * med) continue;  // scattered, not a level
    major.push_back(m);
    major_index.push_back(b);
  }
  if (major.empty()) {
    // Nothing dense enough: the whole sample is one (broad) level.
    major.assign(1, std::span<const double>(x));
    major_index.assign(1, 0);
    cuts.clear();
  }
  // Cut points between major basins: the lowest valley between them.
  std::vector<double> major_cuts;
  for (std::size_t k = 0; k + 1 < major_index.size(); ++k) {
    std::size_t best = major_index[k];
    double best_d = dens[valleys[best]];
    for (std::size_t v = major_index[k]; v < major_index[k + 1]; ++v)
      if (dens[valleys[v]] < best_d) best_d = dens[valleys[v]], best = v;
    major_cuts.push_back(cuts[best]);
  }
  // Fences from each major basin's own members, then reassign every sample.
  std::vector<Level> levels(major.size());
  for (std::size_t k = 0; k < major.size(); ++k) {
    const auto m = major[k];
    Level& l = levels[k];
    l.median = quantile_sorted(m, 0.5);
    const double floor_sigma = std::max(0.5, 0.004 * l.median);
    l.sigma = std::max(mad_sigma_sorted(m), floor_sigma);
    l.fence_lo = l.median - opt.fence_sigmas * l.sigma;
    l.fence_hi = l.median + opt.fence_sigmas * l.sigma;
  }
  for (double c : major_cuts) model.boundaries.push_back(from_t(c));
  model.levels = levels;
  // A level's members are a run of x (ascending x: a level index that never falls, and
  // inside it one stretch within the fences).
  std::vector<std::size_t> first(levels.size(), x.size()), count(levels.size(), 0);
  for (std::size_t i = 0; i < x.size(); ++i) {
    const int c = model.classify(x[i]);
    if (c < 0) {
      ++model.outliers;
      continue;
    }
    const auto k = static_cast<std::size_t>(c);
    if (count[k]++ == 0) first[k] = i;
  }
  for (std::size_t k = 0; k < levels.size(); ++k) {
    Level& l = model.levels[k];
    l.count = count[k];
    l.share = static_cast<double>(count[k]) / n;
    if (count[k] == 0) continue;
    set_order_stats(l, std::span<const double>(x).subspan(first[k], count[k]));
  }
  return model;
}

}  // namespace dissect::stats

namespace dissect::stats {

// Two passes: the default bandwidth first; then, when the levels found are
// much tighter than the kernel (per-page medians, quiet simulators), again
// with a kernel half as wide as the tightest level -- never narrower than
// 0.6 of the data's quantum (integer cycles), so quantisation makes no modes.
LevelModel cluster_levels(const std::vector<double>& input, const LevelOptions& opt) {
  std::vector<double> x;
  x.reserve(input.size());
  for (double v : input)
    if (std::isfinite(v)) x.push_back(v);
  sort_values(x);
  LevelModel first = cluster_once(x, opt);
  if (first.levels.empty()) return first;
  std::size_t integral = 0, halves = 0, n = 0;
  for (double v : input) {
    if (!std::isfinite(v)) continue;
    ++n;
    integral += v == std::floor(v) ? 1 : 0;
    halves += 2 * v == std::floor(2 * v) ? 1 : 0;
  }
  const double nn = static_cast<double>(n);
  const double quantum = static_cast<double>(integral) >= 0.9 * nn ? 1.0 : static_cast<double>(halves) >= 0.9 * nn ? 0.5 : 0.0;
  double sig_t = 1e9, min_median = 1e18;
  for (const auto& l : first.levels) {
    if (l.count == 0) continue;
    sig_t = std::min(sig_t, l.sigma / (std::max(l.median, 0.0) + kShift));
    min_median = std::min(min_median, std::max(l.median, 0.0));
  }
  const double floor_t = std::max(1e-5, 0.6 * quantum / (min_median + kShift));
  const double h2 = std::max(floor_t, std::min(opt.bandwidth, 0.5 * sig_t));
  if (h2 >= 0.8 * opt.bandwidth) return first;
  LevelOptions o2 = opt;
  o2.bandwidth = h2;
  return cluster_once(x, o2);
}

}  // namespace dissect::stats

namespace dissect::stats {

bool add_slow_level(LevelModel& model, int hit, const std::vector<double>& latencies, double min_share,
                    double ratio) {
  if (hit < 0 || static_cast<std::size_t>(hit) >= model.levels.size()) return false;
  // Levels above the hit level but within `ratio` of it are hits too (the L2's far
  // partition); a level beyond that is a slow level already.
  const double bar = ratio * model.levels[static_cast<std::size_t>(hit)].median;
  if (model.levels.back().median >= bar) return false;
  const double cut = std::max(model.levels.back().fence_hi, bar);
  std::vector<double> slow;
  for (double v : latencies)
    if (std::isfinite(v) && v > cut) slow.push_back(v);
  if (slow.size() < 3 || static_cast<double>(slow.size()) < min_share * static_cast<double>(latencies.size()))
    return false;
  std::sort(slow.begin(), slow.end());
  Level l;
  set_order_stats(l, slow);
  l.sigma = std::max(mad_sigma(slow), std::max(0.5, 0.004 * l.median));
  l.count = slow.size();
  l.share = latencies.empty() ? 0 : static_cast<double>(slow.size()) / static_cast<double>(latencies.size());
  l.fence_lo = cut;
  l.fence_hi = std::numeric_limits<double>::infinity();
  model.boundaries.push_back(cut);
  model.levels.push_back(l);
  model.outliers -= std::min(model.outliers, slow.size());
  return true;
}

}  // namespace dissect::stats
