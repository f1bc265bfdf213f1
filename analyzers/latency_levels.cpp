// latency_levels: the latency levels of a trace (hit, miss, TLB miss, ...) by
// robust 1-D clustering (analyzers/stats/levels.hpp): each level's median, p5,
// p95 and share. Rare outliers never make a level. Other analyzers use the
// same clustering to tell hits from misses.
#include <algorithm>
#include <cmath>

#include "analyzers/analyzer.hpp"
#include "analyzers/stats/chase.hpp"
#include "analyzers/stats/levels.hpp"
#include "analyzers/stats/quantiles.hpp"
#include "analyzers/stats/report.hpp"

namespace dissect {
namespace {

class LatencyLevelsAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "latency_levels"; }
  std::string purpose() const override {
    return "clusters all samples into latency levels (median, p5, p95, share each); outliers make no level";
  }
  std::vector<AnalyzerParam> params() const override {
    return {{"min_share", "0.005", "a level holds at least this share of the samples"},
            {"bandwidth", "0.004", "kernel width on the ln(latency + 250) scale (about 1 cycle near 0, 0.4% far above)"},
            {"max_samples_per_point", "50000", "samples per point used (evenly thinned beyond; about 2 million in all)"}};
  }
  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const override {
    stats::LevelOptions o;
    o.min_share = params.number("min_share", 0.005);
    o.bandwidth = params.number("bandwidth", 0.004);
    std::size_t with_samples = 0;
    for (const auto& p : traces.points) with_samples += p.samples.empty() ? 0 : 1;
    const auto cap = stats::pooled_per_point(
        with_samples, static_cast<std::size_t>(params.number("max_samples_per_point", 50000)));
    std::vector<double> pool, overheads;
    std::size_t points = 0;
    for (const auto& p : traces.points) {
      if (p.samples.empty()) continue;
      const auto lat = stats::latencies(p.measured_samples(), cap);
      pool.insert(pool.end(), lat.begin(), lat.end());
      if (!std::isnan(p.timer_overhead_cycles)) overheads.push_back(p.timer_overhead_cycles);
      ++points;
    }
    if (pool.empty()) return {stats::undetermined(name(), "levels", "no samples")};
    const stats::LevelModel m = stats::cluster_levels(pool, o);
    const double overhead = overheads.empty() ? -1 : stats::median(overheads);

    Finding f;
    f.analyzer = name();
    f.unit = "levels";
    f.value = m.levels.size();
    f.details["levels"] = m.to_json(overhead);
    f.details["outlier_share"] = m.outlier_share();
    f.details["boundaries"] = m.boundaries;
    if (overhead >= 0) f.details["timer_overhead_cycles"] = overhead;
    // Per point: the share of its samples in each level.
    if (points <= 400) {
      nlohmann::json per = nlohmann::json::array();
      for (const auto& p : traces.points) {
        if (p.samples.empty()) continue;
        std::vector<std::size_t> n(m.levels.size(), 0);
        std::size_t out = 0, total = 0;
        for (const Sample* s : p.measured_samples()) {
          const int c = m.classify(s->latency);
          ++total;
          if (c < 0) ++out;
          else ++n[static_cast<std::size_t>(c)];
        }
        nlohmann::json shares = nlohmann::json::array();
        for (auto k : n) shares.push_back(total ? static_cast<double>(k) / static_cast<double>(total) : 0.0);
        per.push_back({{"point_id", p.point_id},
                       {"size_bytes", p.size_bytes()},
                       {"stride_bytes", p.stride_bytes()},
                       {"level_shares", shares},
                       {"outliers", out}});
      }
      f.details["points"] = per;
    }
    f.evidence["samples_used"] = pool.size();
    f.evidence["points_used"] = points;
    f.evidence["candidate_modes"] = m.candidate_modes;
    f.evidence["method"] = "kernel density of ln(latency + 250), modes merged unless the valley between is a "
                           "significant dip; levels need min_share; fences at median +- 6 robust sigmas";
    // Confidence: how cleanly neighbouring levels separate, less the outliers;
    // and whether each level is narrow enough that a level twice as slow, as
    // wide as it, would have separated from it. A level as wide as its median
    // may be two levels merged (L1 and L2 hits under jitter of half their gap
    // make one smear): without that term a single level had nothing to lower
    // its confidence, and the calibration test (tests/analyzers/calibration_test.cpp)
    // saw merged levels reported as one at confidence 1. The term is 0.5 +
    // separation from such a twin, median / (2 x (p95 - p5)), at most 1.
    double sep = 1;
    for (std::size_t i = 0; i + 1 < m.levels.size(); ++i)
      sep = std::min(sep, std::clamp(0.5 + m.separation(i, i + 1), 0.0, 1.0));
    double resolution = 1;
    for (const auto& l : m.levels) {
      const double width = l.p95 - l.p5;
      if (width > 0) resolution = std::min(resolution, std::clamp(l.median / (2 * width), 0.0, 1.0));
    }
    f.evidence["resolution"] = resolution;
    f.confidence = sep * resolution * (1 - std::min(0.5, m.outlier_share()));
    std::string s = std::to_string(m.levels.size()) + " level" + (m.levels.size() == 1 ? "" : "s") + ":";
    for (const auto& l : m.levels) s += " " + stats::fmt(l.median, 4) + " (" + stats::percent(l.share) + ")";
    s += " cycles";
    if (m.outliers) s += "; " + stats::percent(m.outlier_share()) + " outliers";
    f.summary = s;
    return {f};
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_latency_levels_analyzer() { return std::make_unique<LatencyLevelsAnalyzer>(); }

}  // namespace dissect
