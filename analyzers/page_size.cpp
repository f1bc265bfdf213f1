// page_size: N fixed and large, stride growing (seed 002, Saavedra): the share
// of accesses that miss a page mapping grows as s / page and saturates once
// every access touches a new page. The value is the smallest stride whose
// mean latency (outliers left out) reaches the plateau of the largest one.
#include <algorithm>
#include <cmath>

#include "analyzers/analyzer.hpp"
#include "analyzers/stats/chase.hpp"
#include "analyzers/stats/ks_test.hpp"
#include "analyzers/stats/levels.hpp"
#include "analyzers/stats/quantiles.hpp"
#include "analyzers/stats/report.hpp"
#include "analyzers/stats/sweep_groups.hpp"
#include "engine/spec/units.hpp"

namespace dissect {
namespace {

struct StridePoint {
  const PointTrace* point = nullptr;
  std::uint64_t stride = 0;
  double mean = 0, se = 0;
  std::vector<double> values;
};

class PageSizeAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "page_size"; }
  std::string purpose() const override {
    return "page size: the stride at which the page-miss penalty saturates (N fixed and large, stride growing)";
  }
  std::vector<AnalyzerParam> params() const override {
    return {{"min_points", "4", "strides a series needs"},
            {"tolerance", "0.01", "relative latency change still counted as flat (at least 4 standard errors)"}};
  }
  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const override {
    const auto min_points = static_cast<std::size_t>(params.number("min_points", 4));
    const double tol_share = params.number("tolerance", 0.01);
    auto groups = stats::group_points(traces, "stride_bytes", [](const PointTrace& p) {
      return p.param("kernel", "pchase") == "pchase" && p.stride_bytes() > 0;
    });
    std::vector<Finding> out;
    for (const auto& g : groups) {
      if (g.points.size() < min_points) continue;
      out.push_back(analyze_group(g, tol_share));
      break;  // the largest series
    }
    if (out.empty())
      return {stats::undetermined(name(), "B",
                                  "no series over the stride with at least " + std::to_string(min_points) +
                                      " strides at a fixed N (page_size sweeps array.stride)")};
    return out;
  }

 private:
  Finding analyze_group(const stats::SweepGroup& g, double tol_share) const {
    std::vector<double> pool;
    for (const auto* p : g.points) {
      const auto l = stats::latencies(p->measured_samples(), 20000);
      pool.insert(pool.end(), l.begin(), l.end());
    }
    stats::LevelOptions lo;
    lo.min_share = 1e-4;  // with min_count: a few slow samples can be a level; the tests decide
    const stats::LevelModel model = stats::cluster_levels(pool, lo);
    std::vector<StridePoint> sp;
    for (const auto* p : g.points) {
      StridePoint s;
      s.point = p;
      s.stride = p->stride_bytes();
      for (const Sample* x : p->measured_samples())
        if (model.classify(x->latency) >= 0) s.values.push_back(x->latency);
      if (s.values.empty()) continue;
      s.mean = stats::mean(s.values);
      double var = 0;
      for (double v : s.values) var += (v - s.mean) * (v - s.mean);
      var /= static_cast<double>(std::max<std::size_t>(1, s.values.size() - 1));
      s.se = std::sqrt(var / static_cast<double>(s.values.size()));
      sp.push_back(std::move(s));
    }
    nlohmann::json pts = nlohmann::json::array();
    for (const auto& s : sp)
      pts.push_back({{"point_id", s.point->point_id}, {"stride_bytes", s.stride}, {"mean_latency", s.mean},
                     {"standard_error", s.se}, {"samples", s.values.size()}});
    nlohmann::json ev{{"points", pts}, {"series", g.to_json()}, {"levels", model.to_json()}};
    if (sp.size() < 3) {
      Finding f = stats::undetermined(name(), "B", "fewer than three strides with samples");
      f.evidence = ev;
      return f;
    }
    // Runs of flat neighbours; a candidate is a flat run (two points or more)
    // entered by a rise, scored by the ramp of consecutive rises leading into
    // it. Data-cache effects make other rises and drops (an array that fits
    // a cache at large strides); the page penalty is the ramp that doubles
    // with the stride and then stops.
    auto tol = [&](std::size_t i, std::size_t j) {
      return std::max(4 * std::hypot(sp[i].se, sp[j].se), tol_share * std::max(sp[i].mean, sp[j].mean));
    };
    std::size_t star = sp.size(), best_run_end = 0;
    double best_ramp = 0, vmin = sp[0].mean;
    for (std::size_t a = 1; a + 1 < sp.size(); ++a) {
      if (!(sp[a].mean - sp[a - 1].mean > tol(a, a - 1))) continue;  // not entered by a rise
      if (std::fabs(sp[a + 1].mean - sp[a].mean) > tol(a, a + 1)) continue;  // no plateau after it
      std::size_t b = a + 1;
      while (b + 1 < sp.size() && std::fabs(sp[b + 1].mean - sp[a].mean) <= tol(a, b + 1)) ++b;
      std::size_t r = a;
      while (r > 0 && sp[r].mean - sp[r - 1].mean > -tol(r, r - 1) && sp[a].mean - sp[r - 1].mean > 0) --r;
      const double ramp = sp[a].mean - sp[r].mean;
      if (ramp > best_ramp) best_ramp = ramp, star = a, best_run_end = b, vmin = sp[r].mean;
    }
    if (star == sp.size()) {
      // No plateau after a rise: still rising at the end, or no rise at all.
      const bool rising = sp.back().mean - sp[sp.size() - 2].mean > tol(sp.size() - 1, sp.size() - 2);
      Finding f = stats::undetermined(
          name(), "B",
          rising ? "the latency still rises at the largest stride (" + format_bytes(sp.back().stride) +
                       "): no plateau, the page size is at least that"
                 : "no rise into a plateau over the strides " + format_bytes(sp.front().stride) + " .. " +
                       format_bytes(sp.back().stride) + ": no page-miss penalty seen");
      if (rising) f.details["lower_bound_bytes"] = sp.back().stride;
      f.evidence = ev;
      return f;
    }
    const std::size_t m = star;
    const double rise = best_ramp;
    // A page-miss penalty puts the missing accesses on a latency level of their
    // own; a rise smaller than the spread of one level's samples is the data
    // path's levels shifting (L2 near/far partitions, a cache that the wider
    // strides leave), not a TLB miss (H200: +10 cycles at 8..128 MiB over
    // L2 hits that alternate by 30 cycles, then back down).
    std::size_t r0 = 0;
    for (std::size_t i = 0; i < star; ++i)
      if (sp[i].mean <= vmin + 1e-9) r0 = i;
    const double spread = stats::quantile(sp[r0].values, 0.95) - stats::quantile(sp[r0].values, 0.05);
    ev["hit_spread_cycles"] = spread;
    if (rise < 0.5 * spread) {
      Finding f = stats::undetermined(
          name(), "B",
          "no page-miss penalty seen: the rise into the plateau at " + format_bytes(sp[star].stride) + " (+" +
              stats::fmt(rise, 3) + " cycles) is within the spread of one latency level (p5-p95 " +
              stats::fmt(spread, 3) + " cycles at " + format_bytes(sp[r0].stride) +
              "): the data path's latency levels shifting, not a TLB miss level");
      f.details["rise_cycles"] = rise;
      f.details["hit_spread_cycles"] = spread;
      f.evidence = ev;
      return f;
    }
    (void)best_run_end;
    ev["plateau"] = {{"from_stride_bytes", sp[star].stride}, {"to_stride_bytes", sp[best_run_end].stride}};
    // The step into the plateau, tested: samples at the saturation stride
    // against those at the stride before it.
    const stats::KsResult ks = stats::ks_two_sample_capped(sp[star - 1].values, sp[star].values, 2000);
    const double z = (sp[star].mean - sp[star - 1].mean) / std::max(1e-9, std::hypot(sp[star].se, sp[star - 1].se));
    Finding f;
    f.analyzer = name();
    f.unit = "B";
    f.value = sp[star].stride;
    f.details["page_bytes"] = sp[star].stride;
    f.details["penalty_cycles"] = rise;
    f.details["previous_stride_bytes"] = sp[star - 1].stride;
    f.details["plateau_latency_cycles"] = sp[m].mean;
    f.details["plateau_strides"] = best_run_end - star + 1;
    f.details["rise_share_at_previous_stride"] = rise > 0 ? (sp[star - 1].mean - vmin) / rise : 0;
    ev["step"] = {{"ks_d", ks.d}, {"ks_p_value", ks.p_value}, {"z", z}};
    f.evidence = ev;
    f.confidence = std::clamp(1 - ks.p_value, 0.0, 1.0) * (z > 3 ? 1.0 : std::max(0.0, z / 3));
    f.summary = format_bytes(sp[star].stride) + ": mean latency reaches its plateau (" + stats::fmt(sp[m].mean, 4) +
                " cycles, +" + stats::fmt(rise, 4) + ") at this stride, " +
                stats::percent(rise > 0 ? (sp[star - 1].mean - vmin) / rise : 0) + " of the rise at " +
                format_bytes(sp[star - 1].stride);
    return f;
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_page_size_analyzer() { return std::make_unique<PageSizeAnalyzer>(); }

}  // namespace dissect
