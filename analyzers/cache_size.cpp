// cache_size: the knee of latency over N (seed 004 §3.3). Each point of a size
// sweep is reduced to one dimension (the share of its accesses slower than the
// hit level), the single change point of that series is found by dynamic
// programming, a two-sample Kolmogorov-Smirnov test of the reduced values on
// either side confirms it (its p-value drives the confidence), and the onset
// is walked back to the largest N whose misses noise explains: that N is the
// value. `run` uses the same test for adaptive `search: knee` axes.
#include <algorithm>
#include <map>
#include <string>

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
             "MiB), the knee where misses matter; the adaptive search reads it too"},
            {"min_miss_penalty", "0.25",
             "least cost of a capacity miss relative to the hit latency: slower per-access samples count as misses; "
             "a chain average whose rise bounds the penalty below it is a mix of hit levels, not a capacity"}};
  }
  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const override {
    stats::KneeOptions o;
    o.alpha = params.number("alpha", 0.05);
    o.point_alpha = params.number("point_alpha", 1e-4);
    o.min_miss_share = params.number("min_miss_share", 0);
    o.min_miss_penalty = params.number("min_miss_penalty", 0.25);
    const auto min_points = static_cast<std::size_t>(params.number("min_points", 3));
    auto groups = stats::group_points(traces, "size_bytes", [](const PointTrace& p) {
      const std::string k = p.param("kernel", "pchase");
      return k == "pchase" && p.size_bytes() > 0;
    });
    std::vector<Finding> out;
    std::vector<const stats::SweepGroup*> analysed;
    for (const auto& g : groups) {
      std::size_t distinct = 0;
      std::uint64_t last = 0;
      for (const auto* p : g.points)
        if (distinct == 0 || p->size_bytes() != last) ++distinct, last = p->size_bytes();
      if (distinct < min_points) continue;
      out.push_back(analyze_group(g, o));
      analysed.push_back(&g);
    }
    read_strides_above_the_line(analysed, out);
    if (out.empty())
      return {stats::undetermined(name(), "B",
                                  "no pointer-chase series over N with at least " + std::to_string(min_points) +
                                      " sizes (cache_size needs a sweep of array.size)")};
    return out;
  }

 private:
  // Series of one sweep that differ only in the stride (Saavedra's and Meltzer's families of
  // curves): where the stride exceeds the line, every access touches its own line and N
  // overflows the cache at N / s lines, so the knee moves with s and is not the size. The same
  // happens, downwards, where a stride maps into a subset of the sets. The smallest stride with a
  // knee is read as the size; a knee whose bracket lies apart from that one is read as a count of
  // lines (N / s distinct lines fit), in unit "lines", and says so.
  static void read_strides_above_the_line(const std::vector<const stats::SweepGroup*>& groups,
                                          std::vector<Finding>& out) {
    std::map<std::string, std::vector<std::size_t>> families;
    for (std::size_t i = 0; i < groups.size(); ++i) {
      auto fixed = groups[i]->fixed;
      const auto s = fixed.find("stride_bytes");
      if (s == fixed.end() || groups[i]->points.front()->stride_bytes() == 0 || out[i].value.is_null() ||
          !out[i].details.contains("bracket_bytes"))
        continue;
      fixed.erase(s);
      families[nlohmann::json(fixed).dump()].push_back(i);
    }
    auto stride_of = [&](std::size_t i) { return groups[i]->points.front()->stride_bytes(); };
    for (auto& [key, members] : families) {
      if (members.size() < 2) continue;
      std::sort(members.begin(), members.end(), [&](auto a, auto b) { return stride_of(a) < stride_of(b); });
      const std::size_t ref = members.front();
      const auto ref_lo = out[ref].details["bracket_bytes"][0].get<std::uint64_t>();
      const auto ref_hi = out[ref].details["bracket_bytes"][1].get<std::uint64_t>();
      const std::uint64_t ref_stride = stride_of(ref);
      for (std::size_t m = 1; m < members.size(); ++m) {
        Finding& f = out[members[m]];
        const std::uint64_t s = stride_of(members[m]);
        const auto lo = f.details["bracket_bytes"][0].get<std::uint64_t>();
        const auto hi = f.details["bracket_bytes"][1].get<std::uint64_t>();
        if (lo < ref_hi && ref_lo < hi) {
          f.details["agrees_with_stride_bytes"] = ref_stride;
          continue;
        }
        const std::uint64_t lines_lo = lo / s, lines_hi = hi / s;
        f.unit = "lines";
        f.value = lines_lo;
        f.details["capacity_lines_bracket"] = {lines_lo, lines_hi};
        f.details["size_from_stride_bytes"] = ref_stride;
        f.details["read_as"] = std::string(lo > ref_lo ? "the stride exceeds the line" : "the stride maps into a subset of the sets") +
                               ": each access touches its own line, so N / s lines, not N bytes, overflow; the size is "
                               "the smallest stride's reading";
        const std::string label = groups[members[m]]->label().empty() ? "" : " [" + groups[members[m]]->label() + "]";
        f.summary = std::to_string(lines_lo) + " lines of " + format_bytes(s) + " stride fit (misses from " +
                    std::to_string(lines_hi) + " lines, N = " + format_bytes(hi) + "): the knee moves with the stride (" +
                    (lo > ref_lo ? "above" : "below") + " the " + format_bytes(ref_lo) + " found at stride " +
                    format_bytes(ref_stride) + "), so it counts lines, not the size" + label;
      }
    }
  }

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
        // The grid says no more than this: misses begin between the two sizes.
        f.details["bracket_bytes"] = {k.knee_bytes, k.first_miss_bytes};
        f.details["resolution_bytes"] = k.first_miss_bytes - k.knee_bytes;
        double first_rate = 0;
        for (const auto& p : k.series)
          if (p.size == k.first_miss_bytes) first_rate = p.miss_fraction;
        f.details["miss_share_after_knee"] = first_rate;
        const bool averaged = k.levels.empty();
        if (averaged) f.details.erase("miss_share_after_knee"), f.details["latency_rise_after_knee"] = first_rate;
        // Led by the bracket: the grid says no more than that misses begin between two sizes.
        f.summary = format_bytes(k.knee_bytes) + " to " + format_bytes(k.first_miss_bytes) +
                    ": largest N without capacity misses, first N with them (" +
                    (averaged ? "+" + stats::percent(first_rate) + " average latency"
                              : stats::percent(first_rate) + " of accesses") +
                    "; KS D = " + stats::fmt(k.ks.d) + ", p = " + stats::fmt(k.ks.p_value) + ")" + label;
        if (!k.further.empty()) {
          // Past the first capacity the chain climbs to slower plateaus: each climb is a
          // capacity of its own (one SM filling a partitioned L2: the near partition, then the
          // whole cache). Reported beside the value, which stays the first.
          nlohmann::json fk = nlohmann::json::array();
          for (const auto& x : k.further) {
            fk.push_back({{"bracket_bytes", {x.last_clean_bytes, x.first_miss_bytes}},
                          {"latency_before_cycles", x.latency_before},
                          {"latency_after_cycles", x.latency_after}});
            f.summary += "; further capacity " + format_bytes(x.last_clean_bytes) + " to " +
                         format_bytes(x.first_miss_bytes) + " (plateau " + stats::fmt(x.latency_before) + " -> " +
                         stats::fmt(x.latency_after) + " cycles)";
          }
          f.details["further_knees"] = fk;
        }
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
