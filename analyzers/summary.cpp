// summary: per-point latency statistics. The simplest honest finding: what was
// measured, without interpretation. Other analyzers interpret.
#include <cmath>

#include "analyzers/analyzer.hpp"

namespace dissect {
namespace {

class SummaryAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "summary"; }
  std::string purpose() const override {
    return "per-point latency statistics (min, p5, median, mean, p95, max), raw and timer-corrected";
  }
  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams&) const override {
    Finding f;
    f.analyzer = name();
    f.unit = "cycles";
    nlohmann::json points = nlohmann::json::array();
    std::vector<double> all;
    for (const auto& p : traces.points) {
      std::vector<double> lat;
      for (const Sample* s : p.measured_samples()) lat.push_back(s->latency);
      all.insert(all.end(), lat.begin(), lat.end());
      const LatencySummary s = summarize(lat);
      nlohmann::json j{{"point_id", p.point_id},   {"size_bytes", p.size_bytes()}, {"stride_bytes", p.stride_bytes()},
                       {"samples", s.count},       {"min", s.min},                 {"p5", s.p5},
                       {"median", s.median},       {"mean", s.mean},               {"p95", s.p95},
                       {"max", s.max}};
      if (!std::isnan(p.timer_overhead_cycles)) {
        j["timer_overhead_cycles"] = p.timer_overhead_cycles;
        j["median_corrected"] = s.median - p.timer_overhead_cycles;
      }
      points.push_back(j);
    }
    const LatencySummary s = summarize(all);
    if (s.count == 0) {
      f.value = nullptr;
      f.confidence = 0;
      f.details["reason"] = "no samples";
      f.summary = "no samples to summarise";
      return {f};
    }
    f.value = s.median;
    f.confidence = 1;
    f.details["points"] = points;
    f.details["overall"] = {{"samples", s.count}, {"min", s.min}, {"p5", s.p5},   {"median", s.median},
                            {"mean", s.mean},     {"p95", s.p95}, {"max", s.max}};
    f.evidence["points_used"] = traces.points.size();
    f.evidence["samples_used"] = s.count;
    char buf[160];
    std::snprintf(buf, sizeof buf, "%zu points, %zu samples: median %.1f cycles (p5 %.1f, p95 %.1f)",
                  traces.points.size(), s.count, s.median, s.p5, s.p95);
    f.summary = buf;
    return {f};
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_summary_analyzer() { return std::make_unique<SummaryAnalyzer>(); }

}  // namespace dissect
