#include "analyzers/stats/levels.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "analyzers/stats/quantiles.hpp"

namespace dissect::stats {
namespace {

// Median, p5, p95, mean, min and max of a level from its members, sorted, non-empty.
void set_order_stats(Level& l, const std::vector<double>& sorted) {
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

static LevelModel cluster_once(const std::vector<double>& input, const LevelOptions& opt) {
  LevelModel model;
  std::vector<double> x;
  x.reserve(input.size());
  for (double v : input)
    if (std::isfinite(v)) x.push_back(v);
  model.samples = x.size();
  if (x.empty()) return model;

  std::vector<double> t(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) t[i] = to_t(x[i]);
  const auto [tmin_it, tmax_it] = std::minmax_element(t.begin(), t.end());
  const double h = std::max(1e-4, opt.bandwidth);
  double w = h / 8;
  const double span = *tmax_it - *tmin_it;
  if (span / w > 400000) w = span / 400000;
  const auto radius = static_cast<std::size_t>(std::ceil(4 * h / w));
  const double t0 = *tmin_it - static_cast<double>(radius + 1) * w;
  const auto bins = static_cast<std::size_t>(std::ceil((*tmax_it - t0) / w)) + radius + 2;

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

  // Basins: samples between consecutive valleys.
  std::vector<double> cuts;  // in t
  for (auto v : valleys) cuts.push_back(t0 + (static_cast<double>(v) + 0.5) * w);
  std::vector<std::vector<double>> members(modes.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const auto b = static_cast<std::size_t>(std::upper_bound(cuts.begin(), cuts.end(), t[i]) - cuts.begin());
    members[b].push_back(x[i]);
  }
  const double n = static_cast<double>(x.size());
  std::vector<std::size_t> major;
  for (std::size_t b = 0; b < members.size(); ++b) {
    if (members[b].size() < opt.min_count || static_cast<double>(members[b].size()) < opt.min_share * n) continue;
    const double med = median(members[b]);
    if (med > 0 && mad_sigma(members[b]) > opt.max_rel_spread * med) continue;  // scattered, not a level
    major.push_back(b);
  }
  if (major.empty()) {
    // Nothing dense enough: the whole sample is one (broad) level.
    major.push_back(0);
    cuts.clear();
    members.assign(1, x);
  }
  // Cut points between major basins: the lowest valley between them.
  std::vector<double> major_cuts;
  for (std::size_t k = 0; k + 1 < major.size(); ++k) {
    std::size_t best = major[k];
    double best_d = dens[valleys[best]];
    for (std::size_t v = major[k]; v < major[k + 1]; ++v)
      if (dens[valleys[v]] < best_d) best_d = dens[valleys[v]], best = v;
    major_cuts.push_back(cuts[best]);
  }
  // Fences from each major basin's own members, then reassign every sample.
  std::vector<Level> levels(major.size());
  for (std::size_t k = 0; k < major.size(); ++k) {
    auto& m = members[major[k]];
    std::sort(m.begin(), m.end());
    Level& l = levels[k];
    l.median = quantile_sorted(m, 0.5);
    const double floor_sigma = std::max(0.5, 0.004 * l.median);
    l.sigma = std::max(mad_sigma(m), floor_sigma);
    l.fence_lo = l.median - opt.fence_sigmas * l.sigma;
    l.fence_hi = l.median + opt.fence_sigmas * l.sigma;
  }
  for (double c : major_cuts) model.boundaries.push_back(from_t(c));
  std::vector<std::vector<double>> final_members(levels.size());
  model.levels = levels;
  for (double v : x) {
    const int c = model.classify(v);
    if (c < 0) ++model.outliers;
    else final_members[static_cast<std::size_t>(c)].push_back(v);
  }
  for (std::size_t k = 0; k < levels.size(); ++k) {
    auto& m = final_members[k];
    std::sort(m.begin(), m.end());
    Level& l = model.levels[k];
    l.count = m.size();
    l.share = static_cast<double>(m.size()) / n;
    if (m.empty()) continue;
    set_order_stats(l, m);
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
  LevelModel first = cluster_once(input, opt);
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
  return cluster_once(input, o2);
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
