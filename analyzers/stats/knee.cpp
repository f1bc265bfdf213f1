#include "analyzers/stats/knee.hpp"

#include <algorithm>
#include <cmath>

#include "analyzers/stats/binomial.hpp"
#include "analyzers/stats/quantiles.hpp"
#include "engine/spec/units.hpp"

namespace dissect::stats {
namespace {

constexpr std::size_t kPoolPerPoint = 20000;

std::string fmt_p(double p) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", p);
  return b;
}

LevelModel pooled_levels(const std::vector<const PointTrace*>& points) {
  std::vector<double> pool;
  const std::size_t cap = pooled_per_point(points.size(), kPoolPerPoint);
  for (const auto* p : points) {
    const auto lat = latencies(p->measured_samples(), cap);
    pool.insert(pool.end(), lat.begin(), lat.end());
  }
  LevelOptions o;
  // A few capacity misses in a few points are a level here: whether they
  // matter is for the change-point test to say, not for a share threshold.
  o.min_share = 1e-4;
  return cluster_levels(pool, o);
}

KneePoint reduce(const PointTrace& p, const LevelModel& m, int hit, const std::vector<bool>& ignore,
                 double min_miss_penalty) {
  KneePoint k;
  k.point = &p;
  k.size = p.size_bytes();
  // Every chaser of the point: where several (blocks on SMs of their own, each over its
  // array) fill one shared cache, each sees its share of the misses, and one chaser's
  // share moves with where its own array lies.
  std::vector<const Sample*> all;
  for (const Chase& c : chases_of(p)) {
    const PassGrid g = make_grid(c, m, hit, true, 1 + min_miss_penalty, &ignore);
    k.known += g.known();
    k.misses += g.count(1);
    k.warmup_failed = k.warmup_failed || g.warmup.failed;
    all.insert(all.end(), c.samples.begin(), c.samples.end());
  }
  k.miss_fraction = k.known == 0 ? 0 : static_cast<double>(k.misses) / static_cast<double>(k.known);
  k.median_latency = median(latencies(all, 50000));
  return k;
}

// The knee from the points' clean flags: the split that agrees with the most
// points, and the band where both kinds mix.
std::size_t split_series(KneeResult& r) {
  std::vector<std::uint64_t> keys;
  std::vector<bool> missing;
  for (const auto& k : r.series) keys.push_back(k.size), missing.push_back(!k.clean);
  const MonotoneSplit s = monotone_split(keys, missing);
  r.disagreements = s.disagreements;
  if (s.band_begin < s.band_end) {
    r.band_from_bytes = r.series[s.band_begin].size;
    r.band_to_bytes = r.series[s.band_end].size;
  } else {
    r.band_from_bytes = r.band_to_bytes = 0;
  }
  return s.first_missing;
}

}  // namespace

double chain_clean_bar(const std::vector<double>& baseline) {
  const double base = median(baseline);
  const double noise = std::max({mad_sigma(baseline), 0.0005 * base, 0.01});
  return base + 4 * noise;
}

bool exceeds_baseline(std::uint64_t misses, std::uint64_t known, double p0, const KneeOptions& o) {
  if (known == 0) return false;
  const double expected = static_cast<double>(known) * p0;
  if (static_cast<double>(misses) - expected < o.min_excess) return false;
  if (static_cast<double>(misses) / static_cast<double>(known) - p0 < o.min_miss_share) return false;
  return binomial_sf(misses, known, std::max(p0, 1e-7)) < o.point_alpha;
}

nlohmann::json KneeResult::evidence() const {
  nlohmann::json pts = nlohmann::json::array();
  for (const auto& k : series)
    pts.push_back({{"point_id", k.point ? k.point->point_id : 0},
                   {"size_bytes", k.size},
                   {"miss_fraction", k.miss_fraction},
                   {"misses", k.misses},
                   {"samples", k.known},
                   {"median_latency", k.median_latency},
                   {"clean", k.clean},
                   {"warmup_failed", k.warmup_failed}});
  nlohmann::json j;
  j["reduction"] = reduction;
  j["points"] = pts;
  j["levels"] = levels.to_json();
  j["hit_level"] = hit;
  nlohmann::json ign = nlohmann::json::array();
  for (std::size_t i = 0; i < ignored.size(); ++i)
    if (ignored[i]) ign.push_back(i);
  j["ignored_levels"] = ign;  // rare slow levels that do not grow with N: outliers, not misses
  if (cp.found) {
    j["change_point"] = {{"last_left_size_bytes", series[cp.last_left].size},
                         {"cost_whole", cp.cost_whole},
                         {"cost_split", cp.cost_split},
                         {"mean_left", cp.mean_left},
                         {"mean_right", cp.mean_right}};
    j["ks"] = {{"d", ks.d}, {"p_value", ks.p_value}, {"n_left", ks.n}, {"n_right", ks.m}, {"on", ks_on},
               {"critical_0.05", ks.critical(0.05)}};
  }
  j["baseline_miss_fraction"] = baseline_rate;
  if (!further.empty()) {
    nlohmann::json fk = nlohmann::json::array();
    for (const auto& k : further)
      fk.push_back({{"bracket_bytes", {k.last_clean_bytes, k.first_miss_bytes}},
                    {"latency_before", k.latency_before},
                    {"latency_after", k.latency_after}});
    j["further_knees"] = fk;
  }
  if (penalty_bound >= 0) j["miss_penalty_bound"] = {{"relative", penalty_bound}, {"at_bytes", penalty_bound_at_bytes}};
  j["disagreements"] = disagreements;
  if (band_from_bytes != 0) j["mixed_band_bytes"] = {band_from_bytes, band_to_bytes};
  return j;
}

namespace {

// Plateaus of a chain sweep: maximal runs of at least two consecutive points whose medians stay
// within 1 % of the run's first (chain averages are steady to a few thousandths; a level's own
// mix drifts by a percent at most), and the climbs between them that cost what a miss to the
// next level costs. The first climb is the knee itself; the others are further capacities.
std::vector<FurtherKnee> further_knees(const std::vector<KneePoint>& series, std::uint64_t knee,
                                       double min_miss_penalty) {
  struct Plateau {
    std::size_t begin, end;  // [begin, end)
    double median;
  };
  std::vector<Plateau> plateaus;
  for (std::size_t i = 0; i < series.size();) {
    std::size_t j = i + 1;
    while (j < series.size() && std::abs(series[j].median_latency / series[i].median_latency - 1) <= 0.01) ++j;
    if (j - i >= 2) {
      std::vector<double> m;
      for (std::size_t k = i; k < j; ++k) m.push_back(series[k].median_latency);
      plateaus.push_back({i, j, median(m)});
    }
    i = j;
  }
  std::vector<FurtherKnee> out;
  for (std::size_t k = 0; k + 1 < plateaus.size(); ++k) {
    const Plateau& a = plateaus[k];
    const Plateau& b = plateaus[k + 1];
    if (b.median < (1 + min_miss_penalty) * a.median) continue;
    if (series[a.begin].size <= knee) continue;  // the climb out of the knee's own plateau
    out.push_back({series[a.end - 1].size, series[a.end].size, a.median, b.median});
  }
  return out;
}

}  // namespace

// Chain timing: each sample is already the average of a whole chain, so the
// point reduces to its median average latency; the baseline is the left
// side's median, noise its robust spread (at least 0.5% of it).
KneeResult find_knee_averaged(const std::vector<const PointTrace*>& points, const KneeOptions& o) {
  KneeResult r;
  r.reduction = "median of each point's chain-average latency";
  std::vector<double> red;
  for (const auto* p : points) {
    KneePoint k;
    k.point = p;
    k.size = p->size_bytes();
    const auto lat = latencies(p->measured_samples());
    k.known = lat.size();
    k.median_latency = median(lat);
    red.push_back(k.median_latency);
    r.series.push_back(k);
  }
  const std::uint64_t n_min = r.series.front().size, n_max = r.series.back().size;
  r.cp = single_change_point(red, 1);
  std::vector<double> left(red.begin(), red.begin() + static_cast<std::ptrdiff_t>(r.cp.last_left + 1));
  std::vector<double> right(red.begin() + static_cast<std::ptrdiff_t>(r.cp.last_left + 1), red.end());
  r.ks = ks_two_sample(left, right);
  // The baseline from the points at most half the change point's N where
  // there are a few (they surely fit): the left side of the change point also
  // holds the gradual rise of an LRU cache whose sets overflow one by one,
  // which would lift the bar above the onset.
  std::vector<double> low;
  for (std::size_t i = 0; i <= r.cp.last_left; ++i)
    if (2 * r.series[i].size <= r.series[r.cp.last_left].size) low.push_back(red[i]);
  // Where the sweep starts on a plateau (within 1 % of its first point) of three points or
  // more, that plateau alone: the lower half may already hold a second capacity's climb.
  std::vector<double> lead;
  for (double v : red) {
    if (std::abs(v / red.front() - 1) > 0.01) break;
    lead.push_back(v);
  }
  const std::vector<double>& ref = lead.size() >= 3 && lead.size() < low.size() ? lead : low.size() >= 3 ? low : left;
  const double base = median(ref);
  const double bar = chain_clean_bar(ref);
  r.baseline_rate = base;
  for (auto& k : r.series) {
    k.clean = k.median_latency <= bar;
    k.miss_fraction = base > 0 ? k.median_latency / base - 1 : 0;  // relative rise, for the evidence
  }
  const bool rising = r.cp.mean_right > r.cp.mean_left;
  const std::size_t on = split_series(r);
  if (!(r.ks.p_value < o.alpha) || !rising || on == r.series.size()) {
    r.outcome = KneeResult::Outcome::above_range;
    r.reason = "no significant rise of the average latency over the sweep (KS p = " + fmt_p(r.ks.p_value) +
               "): the knee lies above the largest N (" + format_bytes(n_max) +
               "), or below the smallest (" + format_bytes(n_min) + ") if its latency is already a miss";
    return r;
  }
  if (on == 0) {
    r.outcome = KneeResult::Outcome::below_range;
    r.reason = "the average latency rises from the smallest N (" + format_bytes(n_min) + ") on: the knee lies below it";
    return r;
  }
  r.knee_bytes = r.series[on - 1].size;
  r.first_miss_bytes = r.series[on].size;
  // Is the rise a capacity? Past a cache's capacity C, at most C of the N bytes (or C/line of
  // the N/s lines) can still hit, whatever the replacement policy, so a share of at least
  // 1 - C/N misses. Misses begin near C (below it for a non-LRU policy, never far above), so
  // with C <= 2 x the first missing N, a point of N >= 4 x that misses at least half its
  // accesses, and its rise bounds the miss penalty: penalty <= rise / (1 - 2 x first / N). A
  // bound below the least penalty a cache level has means that the chain's mix of hit levels
  // changed (its lines landing on near and far L2 partitions in other proportions), not that a
  // cache overflowed; the per-access reduction makes the same cut with its 1 + min_miss_penalty
  // level threshold.
  for (const auto& k : r.series) {
    if (k.size < 4 * r.first_miss_bytes) continue;
    const double hit_bound = 2.0 * static_cast<double>(r.first_miss_bytes) / static_cast<double>(k.size);
    const double bound = std::max(0.0, k.miss_fraction) / (1 - hit_bound);
    if (bound > r.penalty_bound) r.penalty_bound = bound, r.penalty_bound_at_bytes = k.size;
  }
  if (r.penalty_bound >= 0 && r.penalty_bound < o.min_miss_penalty) {
    char b[160];
    std::snprintf(b, sizeof b, "%.1f%% at %s (%.0fx the first missing N)", 100 * r.penalty_bound,
                  format_bytes(r.penalty_bound_at_bytes).c_str(),
                  static_cast<double>(r.penalty_bound_at_bytes) / static_cast<double>(r.first_miss_bytes));
    r.outcome = KneeResult::Outcome::undetermined;
    r.reason = "the average latency rises from " + format_bytes(r.first_miss_bytes) +
               " on, but too little for a cache's capacity: a miss would cost at most " + b +
               ", less than the least a cache level's miss costs (" +
               std::to_string(static_cast<int>(std::lround(100 * o.min_miss_penalty))) +
               "%): a changing mix of hit latencies (e.g. near and far L2 partitions) or a TLB, not a capacity; "
               "no knee in " + format_bytes(n_min) + ".." + format_bytes(n_max);
    return r;
  }
  r.outcome = KneeResult::Outcome::knee;
  r.further = further_knees(r.series, r.knee_bytes, o.min_miss_penalty);
  std::size_t consistent = 0;
  for (std::size_t i = 0; i < r.series.size(); ++i) consistent += (i < on) == r.series[i].clean ? 1 : 0;
  r.confidence = (1 - r.ks.p_value) * static_cast<double>(consistent) / static_cast<double>(r.series.size());
  return r;
}

KneeResult find_knee(const std::vector<const PointTrace*>& points, const KneeOptions& o) {
  KneeResult r;
  if (points.size() < 2) {
    r.reason = "needs at least two sizes";
    return r;
  }
  bool averaged = true;
  for (const auto* p : points) averaged = averaged && p->param("timing_mode") == "chain";
  if (averaged) return find_knee_averaged(points, o);
  r.levels = pooled_levels(points);
  if (r.levels.empty()) {
    r.reason = "no samples";
    return r;
  }
  r.hit = hit_level_of(r.levels, latencies(points.front()->measured_samples(), kPoolPerPoint));
  if (r.hit < 0) r.hit = 0;
  {
    std::vector<std::vector<double>> per_point;
    for (const auto* p : points) per_point.push_back(latencies(p->measured_samples(), kPoolPerPoint));
    r.ignored = static_levels(r.levels, r.hit, per_point);
  }
  for (const auto* p : points) r.series.push_back(reduce(*p, r.levels, r.hit, r.ignored, o.min_miss_penalty));
  const std::uint64_t n_min = r.series.front().size, n_max = r.series.back().size;
  const auto hit_median = r.levels.levels[static_cast<std::size_t>(r.hit)].median;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0f", hit_median);

  bool slow_level = false;
  for (std::size_t c = static_cast<std::size_t>(r.hit) + 1; c < r.levels.levels.size(); ++c)
    slow_level = slow_level || (r.levels.levels[c].median > (1 + o.min_miss_penalty) * hit_median && !r.ignored[c]);
  if (!slow_level) {
    r.outcome = KneeResult::Outcome::above_range;
    r.reason = std::string("the sweep never leaves the first latency level (") + buf +
               " cycles): the knee lies above the largest N (" + format_bytes(n_max) +
               "), unless that level is already a miss (then below the smallest N, " + format_bytes(n_min) + ")";
    return r;
  }
  std::vector<double> red;
  for (const auto& k : r.series) red.push_back(k.miss_fraction);
  r.cp = single_change_point(red, 1);
  std::vector<double> left(red.begin(), red.begin() + static_cast<std::ptrdiff_t>(r.cp.last_left + 1));
  std::vector<double> right(red.begin() + static_cast<std::ptrdiff_t>(r.cp.last_left + 1), red.end());
  r.ks = ks_two_sample(left, right);
  r.ks_on = "reduced";
  if (!(r.ks.p_value < o.alpha) && std::min(left.size(), right.size()) < 4) {
    // Too few points on one side for the test on reduced values to have any
    // power: test the samples of the two sides instead, with their effective
    // sizes capped (the samples of a chase are not independent).
    std::vector<double> ls, rs;
    for (std::size_t i = 0; i < r.series.size(); ++i) {
      const auto l = latencies(r.series[i].point->measured_samples(), 2000);
      (i <= r.cp.last_left ? ls : rs).insert((i <= r.cp.last_left ? ls : rs).end(), l.begin(), l.end());
    }
    r.ks = ks_two_sample_capped(ls, rs, 1000);
    r.ks_on = "samples";
  }
  const bool rising = r.cp.mean_right > r.cp.mean_left;
  if (!(r.ks.p_value < o.alpha) || !rising) {
    const auto& first = r.series.front();
    if (first.miss_fraction > o.below_rate && first.misses >= 3) {
      std::snprintf(buf, sizeof buf, "%.1f%%", 100 * first.miss_fraction);
      r.outcome = KneeResult::Outcome::below_range;
      r.reason = std::string("every point misses alike (") + buf + " of the accesses at the smallest N, " +
                 format_bytes(n_min) + "): the knee lies below the smallest N";
    } else {
      r.outcome = KneeResult::Outcome::above_range;
      char p[64];
      std::snprintf(p, sizeof p, "%.3g", r.ks.p_value);
      r.reason = std::string("no significant change of the miss share over the sweep (KS p = ") + p +
                 "): the knee lies above the largest N (" + format_bytes(n_max) + "), or the data are too noisy";
    }
    return r;
  }
  // Onset: the split of clean and missing points that agrees with the most
  // points. The baseline (noise) rate comes from the left side, then from the
  // points before the onset until it settles.
  std::size_t on = 0;
  r.baseline_rate = quantile(left, 0.25);
  for (int round = 0; round < 12; ++round) {
    for (auto& k : r.series) k.clean = !exceeds_baseline(k.misses, k.known, r.baseline_rate, o);
    on = split_series(r);
    if (on == r.series.size()) {
      r.reason = "no point misses beyond the baseline on the right of the change point";
      return r;
    }
    if (on == 0) break;
    std::vector<double> before;
    for (std::size_t i = 0; i < on; ++i) before.push_back(r.series[i].miss_fraction);
    const double next = median(before);
    if (next == r.baseline_rate) break;  // converged
    r.baseline_rate = next;
  }
  // Below the sweep only where the smallest N misses too: the points before the onset may
  // miss more than below_rate and still be clean (min_miss_share: a cache whose misses start
  // gradually), and an adaptive search puts most of them just below the knee, so their
  // median says nothing about the smallest N. Its copies decide by majority.
  std::size_t at_min = 0, missing_at_min = 0;
  for (const auto& k : r.series) {
    if (k.size != n_min) continue;
    ++at_min;
    missing_at_min += k.miss_fraction > o.below_rate && k.misses >= 3 ? 1 : 0;
  }
  const bool smallest_misses = 2 * missing_at_min > at_min;
  if (on == 0 || (r.baseline_rate > o.below_rate && smallest_misses)) {
    std::snprintf(buf, sizeof buf, "%.1f%%", 100 * r.series.front().miss_fraction);
    r.outcome = KneeResult::Outcome::below_range;
    r.reason = std::string("the smallest N (") + format_bytes(n_min) + ") already misses (" + buf +
               " of its accesses): the knee lies below it";
    return r;
  }
  r.outcome = KneeResult::Outcome::knee;
  r.knee_bytes = r.series[on - 1].size;
  r.first_miss_bytes = r.series[on].size;
  // Confidence: the KS test, how consistently the two sides behave, and how
  // cleanly the hit level separates from the next.
  std::size_t left_clean = 0, right_miss = 0;
  for (std::size_t i = 0; i < on; ++i) left_clean += r.series[i].clean ? 1 : 0;
  for (std::size_t i = on; i < r.series.size(); ++i) right_miss += r.series[i].clean ? 0 : 1;
  const double consistency = static_cast<double>(left_clean + right_miss) / static_cast<double>(r.series.size());
  const double sep = r.levels.separation(static_cast<std::size_t>(r.hit), static_cast<std::size_t>(r.hit) + 1);
  const double sep_factor = std::clamp(0.5 + sep, 0.0, 1.0);
  r.confidence = (1 - r.ks.p_value) * consistency * sep_factor * (1 - std::min(0.5, r.levels.outlier_share()));
  return r;
}

KneeProbe probe_capacity_misses(const PointTrace& baseline, const PointTrace& candidate, const KneeOptions& o) {
  KneeProbe pr;
  const std::vector<const PointTrace*> pts{&baseline, &candidate};
  const LevelModel m = pooled_levels(pts);
  if (m.empty()) return pr;
  int hit = hit_level_of(m, latencies(baseline.measured_samples(), kPoolPerPoint));
  if (hit < 0) hit = 0;
  const auto ignore = static_levels(m, hit, {latencies(baseline.measured_samples(), kPoolPerPoint),
                                             latencies(candidate.measured_samples(), kPoolPerPoint)});
  const KneePoint b = reduce(baseline, m, hit, ignore, o.min_miss_penalty);
  const KneePoint c = reduce(candidate, m, hit, ignore, o.min_miss_penalty);
  pr.baseline_rate = b.miss_fraction;
  pr.candidate_rate = c.miss_fraction;
  pr.candidate_misses = c.misses;
  pr.candidate_known = c.known;
  pr.misses = exceeds_baseline(c.misses, c.known, b.miss_fraction, o);
  return pr;
}

}  // namespace dissect::stats
