#include "analyzers/stats/mean_step.hpp"

#include <algorithm>
#include <cmath>

#include "analyzers/stats/quantiles.hpp"
#include "analyzers/stats/report.hpp"

namespace dissect::stats {
namespace {

// A point's standard error, floored: a point of thousands of units would
// otherwise claim a precision below the clock's (one cycle) and dominate.
double se_of(const MeanPoint& p) { return std::max(p.se, 0.25); }

struct Base {
  double sum = 0, weight = 0, var = 0;
  void add(const MeanPoint& p) {
    const double w = 1 / (se_of(p) * se_of(p));
    sum += w * p.mean;
    weight += w;
  }
  double mean() const { return weight > 0 ? sum / weight : 0; }
  double se() const { return weight > 0 ? 1 / std::sqrt(weight) : 0; }
};

}  // namespace

MeanStep mean_step(const std::vector<MeanPoint>& points, double min_rise, double z, bool short_plateau) {
  MeanStep s;
  if (points.size() < 3) {
    s.reason = "fewer than three points";
    return s;
  }
  Base base;
  base.add(points[0]);
  std::vector<std::size_t> at_base{0};  // the points the base is made of (blips left out)
  std::size_t clean = 0;
  auto raised = [&](const MeanPoint& p, const Base& b) {
    const double thr = std::max(min_rise / 2, z * std::sqrt(se_of(p) * se_of(p) + b.se() * b.se()));
    return p.mean - b.mean() > thr;
  };
  std::size_t blips = 0;
  for (std::size_t i = 1; i < points.size(); ++i) {
    if (!raised(points[i], base)) {
      base.add(points[i]);
      at_base.push_back(i);
      clean = i;
      continue;
    }
    // A step only if every later point stays raised (a tenth may fall within
    // noise: a point of few units); else a blip, left out of the base.
    std::size_t later = 0, down = 0;
    for (std::size_t j = i + 1; j < points.size(); ++j) ++later, down += raised(points[j], base) ? 0 : 1;
    if (10 * down > later) {
      ++blips;
      continue;
    }
    // Raised points past the last one at the base: the plateau is their last third.
    std::vector<double> tops;
    const std::size_t n_up = points.size() - i;
    // The points' scatter about the base where nothing changes: standard
    // errors over units leave out what moves a whole point (where its arrays
    // lie, which L2 slices they use), which the scatter shows.
    double noise = 0;
    if (at_base.size() >= 3) {
      double ss = 0;
      for (const std::size_t j : at_base) ss += (points[j].mean - base.mean()) * (points[j].mean - base.mean());
      noise = std::sqrt(ss / static_cast<double>(at_base.size() - 1));
    }
    const std::size_t plateau = std::max<std::size_t>(short_plateau ? std::min<std::size_t>(n_up, 2) : 1, n_up / 3);
    for (std::size_t j = points.size() - plateau; j < points.size(); ++j)
      tops.push_back(points[j].mean), noise = std::max(noise, se_of(points[j]));
    s.top = median(tops);
    s.base = base.mean();
    // The plateau must be one: a rise still climbing at the end of the sweep
    // (a gradual rise cut short, or a second level following the first)
    // has no penalty to read.
    const auto [lo, hi] = std::minmax_element(tops.begin(), tops.end());
    // A short plateau (a step the next one follows closely, often far larger than
    // the first) may drift by a tenth of its rise: the misses of a level whose
    // penalty is hundreds of cycles vary by more than the points' errors.
    const double drift = short_plateau ? 0.1 * std::max(0.0, median(tops) - base.mean()) : 0.0;
    if (tops.size() < 2 || *hi - *lo > std::max({min_rise / 2, z * noise, drift})) {
      s.reason = tops.size() < 2 ? "too few points past the rise to see it level off"
                                 : "the rise past " + std::to_string(points[clean].size_bytes) +
                                       " B does not level off within the sweep (its last third spans " +
                                       fmt(*hi - *lo) + " cycles)";
      return s;
    }
    if (s.top - s.base < min_rise) {
      s.reason = "the points past " + std::to_string(points[clean].size_bytes) + " B rise by only " +
                 fmt(s.top - s.base) + " cycles (a level adds at least " + fmt(min_rise) + ")";
      return s;
    }
    // A gradual rise (a random order past the coverage) begins with points
    // raised by less than z errors: the knee is before the run of points
    // raised by two errors (or half the minimum rise) that leads up to `i`.
    while (clean > 0) {
      const MeanPoint& p = points[clean];
      const double mild = std::max(min_rise / 2, 2 * std::sqrt(se_of(p) * se_of(p) + base.se() * base.se()));
      if (p.mean - s.base <= mild) break;
      --clean;
    }
    // The base of the points that stay before the knee (the mildly raised
    // ones past it left out), and the rise over it.
    Base before;
    for (const std::size_t j : at_base)
      if (j <= clean) before.add(points[j]);
    if (before.weight > 0) s.base = before.mean();
    if (s.top - s.base < min_rise) {
      s.reason = "the points past " + std::to_string(points[clean].size_bytes) + " B rise by only " +
                 fmt(s.top - s.base) + " cycles (a level adds at least " + fmt(min_rise) + ")";
      return s;
    }
    s.found = true;
    s.clean = clean;
    s.first = i;
    s.exceptions = down;
    s.share_at_first = std::clamp((points[i].mean - s.base) / (s.top - s.base), 0.0, 1.0);
    return s;
  }
  s.base = base.mean();
  s.reason = blips == 0 ? "no point rises over the base beyond its noise"
                        : std::to_string(blips) + " point(s) rise over the base, but later points fall back";
  return s;
}

namespace {

// Where the raised points of a found step climb from a plateau of their own (two
// points or more, at least min_rise over the base, agreeing within a tenth of their
// rise) by more than that plateau's rise and a quarter of the whole rise: the index of
// the first point of that climb (two steps read as one, the second levelling off); 0
// where none.
std::size_t intermediate_climb(const std::vector<MeanPoint>& points, const MeanStep& s, double min_rise) {
  const double whole = s.rise();
  for (std::size_t k = s.first + 2; k < points.size(); ++k) {
    const double a = points[k - 2].mean, b = points[k - 1].mean;
    const double mid = (a + b) / 2 - s.base;
    if (mid < min_rise || std::fabs(a - b) > std::max(min_rise / 2, 0.1 * mid)) continue;
    // A climb larger than the plateau's own rise: deeper levels of a translation
    // cost more (a walk goes further); a gradual rise climbs by less at every point.
    const double climb = points[k].mean - b;
    if (climb > std::max({min_rise, 0.25 * whole, mid})) return k;
  }
  return 0;
}

// The step of the longest leading part of `points` (at least three points) that
// levels off, and whose raised points hold no plateau below the top (else the step
// up to that plateau); not found where none does.
MeanStep leading_step(const std::vector<MeanPoint>& points, double min_rise, double z, bool short_plateau) {
  std::size_t end = points.size();
  while (end >= 3) {
    const std::vector<MeanPoint> head(points.begin(), points.begin() + static_cast<std::ptrdiff_t>(end));
    const MeanStep h = mean_step(head, min_rise, z, short_plateau);
    if (h.found) {
      const std::size_t climb = intermediate_climb(head, h, min_rise);
      if (climb == 0) return h;
      end = climb;
      short_plateau = true;  // the plateau below the climb may be two points
      continue;
    }
    --end;
  }
  return mean_step(points, min_rise, z, short_plateau);
}

}  // namespace

std::vector<MeanStep> mean_steps(const std::vector<MeanPoint>& points, double min_rise, double z) {
  std::vector<MeanStep> out;
  std::size_t from = 0;
  while (from + 3 <= points.size()) {
    const std::vector<MeanPoint> rest(points.begin() + static_cast<std::ptrdiff_t>(from), points.end());
    // A later step over a plateau: at least a quarter of the last step's rise, which
    // the plateau's own drift from point to point stays well within.
    const double rise_needed = out.empty() ? min_rise : std::max(min_rise, 0.25 * out.back().rise());
    MeanStep s = leading_step(rest, rise_needed, z, !out.empty());
    if (!s.found) break;
    if (!out.empty()) {
      const MeanStep& last = out.back();
      if (s.clean < 1 || std::fabs(s.base - last.top) > std::max(min_rise / 2, 0.25 * last.rise())) break;
    }
    s.clean += from;
    s.first += from;
    out.push_back(s);
    // The next step's base: the points from where this one's plateau begins (a
    // gradual rise's first raised points left out).
    const double tol = std::max(min_rise / 2, 0.25 * s.rise());
    std::size_t next = s.first;
    while (next < points.size() && std::fabs(points[next].mean - s.top) > tol) ++next;
    if (next >= points.size()) break;
    from = next;
  }
  return out;
}

nlohmann::json MeanStep::to_json(const std::vector<MeanPoint>& points) const {
  nlohmann::json j;
  j["found"] = found;
  j["base_cycles"] = base;
  if (!found) {
    j["reason"] = reason;
  } else {
    j["top_cycles"] = top;
    j["rise_cycles"] = rise();
    j["clean_size_bytes"] = points[clean].size_bytes;
    j["first_raised_size_bytes"] = points[first].size_bytes;
    j["share_at_first"] = share_at_first;
    j["points_back_within_noise"] = exceptions;
  }
  nlohmann::json table = nlohmann::json::array();
  for (const auto& p : points) table.push_back({p.size_bytes, p.mean, p.se, p.units});
  j["points"] = table;
  j["points_columns"] = {"size_bytes", "mean", "se", "units"};
  return j;
}

}  // namespace dissect::stats
