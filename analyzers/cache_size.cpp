// cache_size: the knee of latency over N (seed 004 §3.3). Each point of a size
// sweep is reduced to one dimension (the share of its accesses slower than the
// hit level), the single change point of that series is found by dynamic
// programming, a two-sample Kolmogorov-Smirnov test of the reduced values on
// either side confirms it (its p-value drives the confidence), and the onset
// is walked back to the largest N whose misses noise explains: that N is the
// value. `run` uses the same test for adaptive `search: knee` axes.
#include "analyzers/analyzer.hpp"
#include "analyzers/stats/knee.hpp"
#include "analyzers/stats/report.hpp"
#include "analyzers/stats/sweep_groups.hpp"
#include "engine/spec/units.hpp"

namespace dissect {
namespace {

class CacheSizeAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "cache_size"; }
  std::string purpose() const override {
    return "largest N without capacity misses: change point of the per-point miss share (DP) + two-sample KS test";
  }
  std::vector<AnalyzerParam> params() const override {
    return {{"alpha", "0.05", "KS test level for accepting a change point"},
            {"point_alpha", "1e-4", "per-point binomial test level for misses beyond the baseline"},
            {"min_points", "3", "sizes a series needs to be analysed"},
            {"min_miss_share", "0",
             "share of its accesses a fine-grained point must miss beyond the baseline to count as missing: for "
             "a cache whose misses start gradually (the H100's L2 seen from one SM: 0.2% at 20 MiB, 20% at 24 "
             "MiB), the knee where misses matter; the adaptive search reads it too"}};
  }
  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const override {
    stats::KneeOptions o;
    o.alpha = params.number("alpha", 0.05);
    o.point_alpha = params.number("point_alpha", 1e-4);
    o.min_miss_share = params.number("min_miss_share", 0);
    const auto min_points = static_cast<std::size_t>(params.number("min_points", 3));
    auto groups = stats::group_points(traces, "size_bytes", [](const PointTrace& p) {
      const std::string k = p.param("kernel", "pchase");
      return k == "pchase" && p.size_bytes() > 0;
    });
    std::vector<Finding> out;
    for (const auto& g : groups) {
      std::size_t distinct = 0;
      std::uint64_t last = 0;
      for (const auto* p : g.points)
        if (distinct == 0 || p->size_bytes() != last) ++distinct, last = p->size_bytes();
      if (distinct < min_points) continue;
      out.push_back(analyze_group(g, o));
    }
    if (out.empty())
      return {stats::undetermined(name(), "B",
                                  "no pointer-chase series over N with at least " + std::to_string(min_points) +
                                      " sizes (cache_size needs a sweep of array.size)")};
    return out;
  }

 private:
  Finding analyze_group(const stats::SweepGroup& g, const stats::KneeOptions& o) const {
    const stats::KneeResult k = stats::find_knee(g.points, o);
    Finding f;
    f.analyzer = name();
    f.unit = "B";
    f.details["series"] = g.to_json();
    f.evidence = k.evidence();
    const std::uint64_t n_min = g.points.front()->size_bytes(), n_max = g.points.back()->size_bytes();
    f.details["range_bytes"] = {n_min, n_max};
    if (!k.levels.empty() && static_cast<std::size_t>(k.hit) < k.levels.levels.size()) {
      f.details["hit_latency_cycles"] = k.levels.levels[static_cast<std::size_t>(k.hit)].median;
      if (static_cast<std::size_t>(k.hit) + 1 < k.levels.levels.size())
        f.details["miss_latency_cycles"] = k.levels.levels[static_cast<std::size_t>(k.hit) + 1].median;
    }
    std::size_t warm_failed = 0;
    for (const auto& p : k.series) warm_failed += p.warmup_failed ? 1 : 0;
    if (warm_failed) {
      f.details["warmup_failed_points"] = warm_failed;
      f.details["warmup_note"] = "the first timed pass missed clearly more than later ones at " +
                                 std::to_string(warm_failed) + " points: it was left out";
    }
    const std::string label = g.label().empty() ? "" : " [" + g.label() + "]";
    switch (k.outcome) {
      case stats::KneeResult::Outcome::knee: {
        f.value = k.knee_bytes;
        f.confidence = k.confidence;
        f.details["knee_bytes"] = k.knee_bytes;
        f.details["first_miss_bytes"] = k.first_miss_bytes;
        f.details["resolution_bytes"] = k.first_miss_bytes - k.knee_bytes;
        double first_rate = 0;
        for (const auto& p : k.series)
          if (p.size == k.first_miss_bytes) first_rate = p.miss_fraction;
        f.details["miss_share_after_knee"] = first_rate;
        const bool averaged = k.levels.empty();
        if (averaged) f.details.erase("miss_share_after_knee"), f.details["latency_rise_after_knee"] = first_rate;
        f.summary = format_bytes(k.knee_bytes) + " (first capacity misses at " + format_bytes(k.first_miss_bytes) +
                    ": " + (averaged ? "+" + stats::percent(first_rate) + " average latency"
                                     : stats::percent(first_rate) + " of accesses") +
                    "; KS D = " + stats::fmt(k.ks.d) + ", p = " + stats::fmt(k.ks.p_value) + ")" + label;
        if (k.band_from_bytes != 0) {
          // Points from band_from on miss at random (replacement, or capacity
          // differing between SMs): the knee is where half of them do.
          f.details["mixed_band_bytes"] = {k.band_from_bytes, k.band_to_bytes};
          f.details["points_against_knee"] = k.disagreements;
          f.summary += "; clean and missing points mix from " + format_bytes(k.band_from_bytes) + " to " +
                       format_bytes(k.band_to_bytes) + " (" + std::to_string(k.disagreements) +
                       " points on the other side of the knee)";
        }
        break;
      }
      case stats::KneeResult::Outcome::above_range:
        f.value = nullptr;
        f.confidence = 0;
        f.details["reason"] = k.reason;
        f.details["lower_bound_bytes"] = n_max;
        f.summary = k.reason + label;
        break;
      case stats::KneeResult::Outcome::below_range:
        f.value = nullptr;
        f.confidence = 0;
        f.details["reason"] = k.reason;
        f.details["upper_bound_bytes"] = n_min;
        f.summary = k.reason + label;
        break;
      case stats::KneeResult::Outcome::undetermined:
        f.value = nullptr;
        f.confidence = 0;
        f.details["reason"] = k.reason;
        f.summary = k.reason + label;
        break;
    }
    return f;
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_cache_size_analyzer() { return std::make_unique<CacheSizeAnalyzer>(); }

}  // namespace dissect
