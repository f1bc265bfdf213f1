// page_size: the translation granule from a stride sweep at a fixed, large N
// (seed 002, Saavedra). While the stride is below what one TLB entry
// translates, consecutive accesses share an entry and only every (reach / s)-th
// misses: the mean latency grows in proportion to the stride and saturates at
// the reach, where every access needs an entry of its own. Past it the curve
// stays flat (a plateau: the array still holds more entries than the TLB), or
// falls back once the array's N / s entries fit the TLB again (a peak). Either
// is evidence; the smallest stride where a ramp saturates is the finest
// granule the TLBs show.
//
// A TLB entry may cover several pages (Zhang et al., CCS 2023: Ampere entries
// of 16 consecutive 2 MiB pages): a ramp then saturates at the entry's reach,
// which is no page. So the granule is reported as the page only when it is a
// page size the GPU's page tables use (parameter page_sizes); otherwise the
// finding is undetermined, with the measured figure and why.
//
// Data caches make steps of their own (an array whose lines fit the L2 at
// larger strides: a drop below the ramp's start); a peak counts only where the
// curve falls back no lower than where its ramp began.
#include <algorithm>
#include <cmath>
#include <sstream>

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

// A ramp that stops rising at `at` (its saturation stride).
struct Saturation {
  std::size_t at = 0, from = 0;  // the ramp runs from `from` to `at`
  double rise = 0;
  std::string shape;             // "plateau" or "peak"
  std::size_t plateau_end = 0;   // plateau: its last point
};

std::vector<std::uint64_t> parse_sizes(const std::string& text) {
  std::vector<std::uint64_t> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    std::string err;
    if (auto q = parse_quantity(item, "", err); q && q->unit == QuantityUnit::bytes) out.push_back(q->amount);
  }
  return out;
}

std::string list_text(const std::vector<std::uint64_t>& sizes) {
  std::string s;
  for (std::size_t i = 0; i < sizes.size(); ++i) s += (i == 0 ? "" : ", ") + format_bytes(sizes[i]);
  return s;
}

class PageSizeAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "page_size"; }
  std::string purpose() const override {
    return "page size: the smallest stride at which the translation penalty saturates (N fixed and large, stride "
           "growing from below any page), told apart from the reach of coalesced TLB entries";
  }
  std::vector<AnalyzerParam> params() const override {
    return {{"min_points", "4", "strides a series needs"},
            {"tolerance", "0.01", "relative latency change still counted as flat (at least 4 standard errors)"},
            {"page_sizes", "4 KiB, 64 KiB, 2 MiB, 512 MiB",
             "the page sizes the GPU's page tables use (NVIDIA: 4 KiB, 64 KiB, 2 MiB; 512 MiB on Hopper): a granule "
             "outside the list is reported as measured, not as the page"}};
  }
  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const override {
    const auto min_points = static_cast<std::size_t>(params.number("min_points", 4));
    const double tol_share = params.number("tolerance", 0.01);
    const auto page_sizes = parse_sizes(params.text("page_sizes", "4 KiB, 64 KiB, 2 MiB, 512 MiB"));
    auto groups = stats::group_points(traces, "stride_bytes", [](const PointTrace& p) {
      return p.param("kernel", "pchase") == "pchase" && p.stride_bytes() > 0;
    });
    std::vector<Finding> out;
    for (const auto& g : groups) {
      if (g.points.size() < min_points) continue;
      out.push_back(analyze_group(g, tol_share, page_sizes));
      break;  // the largest series
    }
    if (out.empty())
      return {stats::undetermined(name(), "B",
                                  "no series over the stride with at least " + std::to_string(min_points) +
                                      " strides at a fixed N (page_size sweeps array.stride)")};
    return out;
  }

 private:
  Finding analyze_group(const stats::SweepGroup& g, double tol_share,
                        const std::vector<std::uint64_t>& page_sizes) const {
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
      // Outliers (no level's) left out; a point that would lose most of its
      // samples keeps them: a few chain averages between the pooled levels
      // are the curve, not outliers.
      const auto samples = p->measured_samples();
      for (const Sample* x : samples)
        if (model.classify(x->latency) >= 0) s.values.push_back(x->latency);
      if (2 * s.values.size() < samples.size()) {
        s.values.clear();
        for (const Sample* x : samples) s.values.push_back(x->latency);
      }
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
    auto tol = [&](std::size_t i, std::size_t j) {
      return std::max(4 * std::hypot(sp[i].se, sp[j].se), tol_share * std::max(sp[i].mean, sp[j].mean));
    };
    // Every ramp that saturates: a point entered by a rise, whose ramp of
    // consecutive rises is followed by a flat neighbour (plateau) or by a fall
    // that stays above the ramp's start (peak).
    std::vector<Saturation> sat;
    for (std::size_t a = 1; a + 1 < sp.size(); ++a) {
      if (!(sp[a].mean - sp[a - 1].mean > tol(a, a - 1))) continue;  // not entered by a rise
      std::size_t r = a;
      while (r > 0 && sp[r].mean - sp[r - 1].mean > -tol(r, r - 1) && sp[a].mean - sp[r - 1].mean > 0) --r;
      Saturation s;
      s.at = a;
      s.from = r;
      s.rise = sp[a].mean - sp[r].mean;
      const double next = sp[a + 1].mean - sp[a].mean;
      if (std::fabs(next) <= tol(a, a + 1)) {
        s.shape = "plateau";
        std::size_t b = a + 1;
        while (b + 1 < sp.size() && std::fabs(sp[b + 1].mean - sp[a].mean) <= tol(a, b + 1)) ++b;
        s.plateau_end = b;
        // A ramp that pauses for one stride and climbs on is no saturation: a
        // plateau holds for two strides past its first, reaches the sweep's
        // end, or falls back after it (fewer slots than entries again).
        const bool holds = b >= a + 2 || b + 1 == sp.size() || sp[b + 1].mean < sp[b].mean - tol(b, b + 1);
        if (!holds) continue;
      } else if (next < 0 && sp[a + 1].mean >= sp[r].mean - tol(a + 1, r)) {
        s.shape = "peak";
        s.plateau_end = a;
      } else {
        continue;  // still rising, or a drop below the ramp's start (a data cache the array now fits)
      }
      sat.push_back(s);
    }
    // Where the ramp saturates every access misses the TLB and pays its
    // penalty: the whole distribution moves, its fastest accesses (p5) with
    // the mean. A changing mix of the data path's levels (L2 near/far
    // partitions, a cache that the wider strides leave) moves the mean while
    // the fastest accesses stay where they were.
    nlohmann::json cand = nlohmann::json::array();
    std::vector<std::string> small;
    const Saturation* pick = nullptr;
    std::vector<const Saturation*> later;
    for (const auto& s : sat) {
      const double p5_shift = stats::quantile(sp[s.at].values, 0.05) - stats::quantile(sp[s.from].values, 0.05);
      const bool ok = s.rise > tol(s.at, s.from) && p5_shift >= 0.5 * s.rise;
      cand.push_back({{"stride_bytes", sp[s.at].stride}, {"shape", s.shape}, {"rise_cycles", s.rise},
                      {"ramp_from_stride_bytes", sp[s.from].stride}, {"p5_shift_cycles", p5_shift}, {"kept", ok}});
      if (!ok) {
        small.push_back("the rise into " + format_bytes(sp[s.at].stride) + " (+" + stats::fmt(s.rise, 3) +
                        " cycles in the mean) moves the fastest accesses (p5) by only " + stats::fmt(p5_shift, 3) +
                        " cycles");
        continue;
      }
      if (pick == nullptr) pick = &s;
      else later.push_back(&s);
    }
    ev["saturations"] = cand;
    if (pick == nullptr) {
      const bool rising = sp.back().mean - sp[sp.size() - 2].mean > tol(sp.size() - 1, sp.size() - 2);
      std::string why;
      if (!small.empty())
        why = "no page-miss penalty seen: " + small.front() +
              ": a changing mix of the data path's latency levels, not a TLB miss that every access pays";
      else if (rising)
        why = "the latency still rises at the largest stride (" + format_bytes(sp.back().stride) +
              "): no plateau, the page size is at least that";
      else
        why = "no rise into a plateau or a peak over the strides " + format_bytes(sp.front().stride) + " .. " +
              format_bytes(sp.back().stride) + ": no page-miss penalty seen";
      Finding f = stats::undetermined(name(), "B", why);
      if (small.empty() && rising) f.details["lower_bound_bytes"] = sp.back().stride;
      f.evidence = ev;
      return f;
    }
    const std::size_t star = pick->at;
    const double rise = pick->rise;
    const std::uint64_t granule = sp[star].stride;
    ev["saturation"] = {{"stride_bytes", granule}, {"shape", pick->shape},
                        {"to_stride_bytes", sp[pick->plateau_end].stride}};
    // The step into the saturation, tested: samples at the saturation stride
    // against those at the stride before it.
    const stats::KsResult ks = stats::ks_two_sample_capped(sp[star - 1].values, sp[star].values, 2000);
    const double z = (sp[star].mean - sp[star - 1].mean) / std::max(1e-9, std::hypot(sp[star].se, sp[star - 1].se));
    ev["step"] = {{"ks_d", ks.d}, {"ks_p_value", ks.p_value}, {"z", z}};
    const double confidence = std::clamp(1 - ks.p_value, 0.0, 1.0) * (z > 3 ? 1.0 : std::max(0.0, z / 3));
    nlohmann::json further = nlohmann::json::array();
    for (const auto* s : later) further.push_back(sp[s->at].stride);
    const bool is_page = std::find(page_sizes.begin(), page_sizes.end(), granule) != page_sizes.end();
    const double vmin = sp[pick->from].mean;
    auto fill = [&](Finding& f) {
      f.details["saturation_stride_bytes"] = granule;
      f.details["shape"] = pick->shape;
      f.details["penalty_cycles"] = rise;
      f.details["previous_stride_bytes"] = sp[star - 1].stride;
      f.details["saturation_latency_cycles"] = sp[star].mean;
      f.details["plateau_strides"] = pick->plateau_end - star + 1;
      f.details["rise_share_at_previous_stride"] = rise > 0 ? (sp[star - 1].mean - vmin) / rise : 0;
      if (!further.empty()) f.details["further_saturations_bytes"] = further;
      f.evidence = ev;
    };
    // Scattered frames (array.frames): chunks mapped apart, none contiguous
    // with its virtual neighbour. A saturation past the chunk there is no
    // coalescing of contiguous pages: an entry spans that much virtual address
    // space whatever frames back it, and each chunk is mapped apart, so the
    // page is at most the chunk.
    const PointTrace& p0 = *sp.front().point;
    std::uint64_t chunk = 0;
    if (p0.device_note("frames") == "scattered") {
      try {
        chunk = std::stoull(p0.device_note("frames_chunk_bytes", "0"));
      } catch (const std::exception&) {
        chunk = 0;
      }
    }
    if (chunk > 0 && granule >= chunk) {
      const std::string head = "over scattered frames (chunks of " + format_bytes(chunk) + " mapped apart) the penalty " +
                               (granule > chunk ? "still " : "") + "saturates at " + format_bytes(granule) + " (" +
                               pick->shape + ", +" + stats::fmt(rise, 3) + " cycles)";
      Finding f = stats::undetermined(
          name(), "B",
          granule > chunk ? head + ": an entry spans " + format_bytes(granule) +
                                " of virtual addresses whatever frames back it (no coalescing of contiguous pages), and "
                                "every chunk is mapped on its own: the page is at most " + format_bytes(chunk)
                          : head + ", the chunk: pages coalesced within one chunk would look alike, so the page is at "
                                   "most " + format_bytes(chunk));
      fill(f);
      f.details["frames_chunk_bytes"] = chunk;
      f.details["page_at_most_bytes"] = chunk;
      return f;
    }
    if (!is_page) {
      Finding f = stats::undetermined(
          name(), "B",
          "the translation penalty saturates at " + format_bytes(granule) + " (" + pick->shape + ", +" +
              stats::fmt(rise, 3) + " cycles), which is not a page size of the GPU's page tables (" +
              list_text(page_sizes) +
              "): the reach of a TLB entry that covers several pages (coalesced entries: Zhang et al. found 16 x 2 "
              "MiB per Ampere entry), or a data-path effect; the page itself is not seen");
      fill(f);
      f.details["not_a_page_size"] = true;
      return f;
    }
    Finding f;
    f.analyzer = name();
    f.unit = "B";
    f.value = granule;
    f.details["page_bytes"] = granule;
    fill(f);
    f.confidence = confidence;
    f.summary = format_bytes(granule) + ": mean latency saturates (" + pick->shape + ", " +
                stats::fmt(sp[star].mean, 4) + " cycles, +" + stats::fmt(rise, 4) + ") at this stride, " +
                stats::percent(rise > 0 ? (sp[star - 1].mean - vmin) / rise : 0) + " of the rise at " +
                format_bytes(sp[star - 1].stride);
    if (chunk > 0) f.details["frames_chunk_bytes"] = chunk;
    if (!further.empty()) {
      f.summary += "; further saturations at";
      for (const auto* s : later) f.summary += " " + format_bytes(sp[s->at].stride);
      f.summary += " (entry reach, or another level)";
    }
    return f;
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_page_size_analyzer() { return std::make_unique<PageSizeAnalyzer>(); }

}  // namespace dissect
