// tlb_overflow: a TLB level's capacity in slots by the pigeonhole principle (issue 16),
// from a sweep that adds one slot at a time (the topology's tlb_sets step). A chase that
// visits N slots, each needing an entry of its own, through a level of C entries misses
// at least once in every pass over the slots when N > C, whatever the level replaces
// (LRU, random, or a policy that keeps most of a cyclic chase), and never once N <= C
// (after the first pass has loaded them). The staircase reading of the tlb analyzer
// needs the same slots to miss at every larger N; a level that replaces in other than
// LRU order misses a few slots at a time, other ones from pass to pass, and its first
// misses hide in the per-slot medians. Here each timed pass is counted on its own.
//
// A sample misses when its latency exceeds its slot's own latency at the series' first
// point (below the capacity: the data path's near and far L2 halves drop out; a slot the
// first point lacks, the first point's slowest) by half to three times the level's penalty (parameter `penalties`, "STRIDE:CYCLES ...", as
// the topology hands it over): slower samples are interrupts or deeper misses, not
// this level's. A point holds when two or more timed passes (the first pass, which loads
// the entries, left out, and of four passes or more the second too) show at most one such
// sample in all, and overflows when every one of them shows one or more. The level holds
// the largest N up to which every point from the first that holds holds; it overflows at
// the first N past it from which every point overflows.
//
// Whether the same slots miss in every pass: under a fixed cyclic order an LRU level (of
// any sets, whatever its index) starts each pass in the state it started the last one in,
// so its misses repeat slot for slot; one that replaces at random misses other slots from
// pass to pass. Misses that repeat do not make a level LRU (any policy that repeats its
// choices does the same), but misses that do not repeat make it not LRU; a level whose
// misses grow gradually past its entries is not LRU only so (a few sets overflowing one at
// a time grow them as gradually). Read at the points that overflow, over pairs of passes
// that miss 8 slots or more each: the share of one pass's missing slots that miss in the next,
// pooled.
#include <algorithm>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <optional>

#include "analyzers/analyzer.hpp"
#include "analyzers/stats/chase.hpp"
#include "analyzers/stats/quantiles.hpp"
#include "analyzers/stats/report.hpp"
#include "analyzers/stats/stride_series.hpp"
#include "engine/core/worker_pool.hpp"
#include "engine/spec/units.hpp"

namespace dissect {
namespace {

// Misses that repeat (above): read where both passes miss at least this many slots; the
// same slots when this share of one pass's misses miss again, others below kVaryShare (a
// level replacing at random keeps about as many of a pass's missing slots as it holds).
constexpr std::size_t kRepeatMinMisses = 8;
constexpr double kRepeatShare = 0.9, kVaryShare = 0.6;

struct OverflowPoint {
  std::uint64_t slots = 0;
  std::vector<std::uint32_t> misses;  // per timed pass
  // Over the pairs of consecutive passes that both miss kRepeatMinMisses slots or more: the
  // slots missing in both, and the larger pass's missing slots.
  std::uint64_t missing_again = 0, missing_of = 0;
  bool judged = true;                 // every slot could be judged (tlb_overflow.cpp: references)
  bool holds() const {
    std::uint32_t total = 0;
    for (auto m : misses) total += m;
    return judged && misses.size() >= 2 && total <= 1;
  }
  bool overflows() const {
    return misses.size() >= 2 && *std::min_element(misses.begin(), misses.end()) >= 1;
  }
};

class TlbOverflowAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "tlb_overflow"; }
  std::string purpose() const override {
    return "TLB capacity in slots by the pigeonhole principle: the largest N with no miss in any pass, the first N "
           "with a miss in every pass (any replacement policy), from sweeps one slot at a time";
  }
  std::vector<AnalyzerParam> params() const override {
    return {{"penalties", "", "per stride, the level's miss penalty: 'STRIDE:CYCLES ...' (bytes; the topology sets it); "
                              "a stride not named is not read"}};
  }

  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const override {
    const auto penalties = stats::parse_stride_penalties(params.text("penalties", ""));
    auto by_stride = stats::chase_points_by_stride(traces);
    // Each stride on its own, side by side on the worker pool.
    std::vector<std::function<Finding()>> tasks;
    for (auto& [stride, points] : by_stride) {
      const auto it = penalties.find(stride);
      if (it == penalties.end() || !(it->second > 0)) continue;
      tasks.emplace_back([this, s = stride, &pts = points, p = it->second] { return analyze_series(s, pts, p); });
    }
    std::vector<Finding> out = workers::run_all(std::move(tasks));
    if (out.empty())
      return {stats::undetermined(name(), "slots",
                                  "no series with a level's penalty (parameter penalties, 'STRIDE:CYCLES ...'): "
                                  "nothing to count misses against")};
    return out;
  }

 private:
  Finding analyze_series(std::uint64_t stride, std::vector<const PointTrace*>& points, double penalty) const {
    std::sort(points.begin(), points.end(),
              [](const PointTrace* a, const PointTrace* b) { return a->size_bytes() < b->size_bytes(); });
    nlohmann::json ev{{"stride_bytes", stride},
                      {"penalty_cycles", penalty},
                      {"miss_window_cycles", {penalty / 2, 3 * penalty}},
                      {"points", nlohmann::json::array()}};
    auto fail = [&](const std::string& why) {
      Finding f = stats::undetermined(name(), "slots", "stride " + format_bytes(stride) + ": " + why);
      f.details["stride_bytes"] = stride;
      f.evidence = ev;
      return f;
    };
    if (points.size() < 2) return fail("needs two points or more, one slot apart");
    // Each slot's own latency at the first point, over its timed passes (indexed by slot: a
    // lookup per sample of every point, millions of them).
    const std::uint64_t first_slots = points.front()->size_bytes() / stride;
    std::vector<std::vector<double>> at_first;
    {
      const auto v = stats::main_chase(*points.front()).samples;
      for (std::size_t i = first_slots; i < v.size(); ++i) {
        const std::uint64_t slot = v[i]->offset_bytes / stride;
        if (slot > first_slots) continue;  // not a slot of the point's array
        if (slot >= at_first.size()) at_first.resize(slot + 1);
        at_first[slot].push_back(v[i]->latency);
      }
    }
    constexpr double kNoReference = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> reference(at_first.size(), kNoReference);
    double slowest = 0, fastest = std::numeric_limits<double>::max();
    for (std::size_t slot = 0; slot < at_first.size(); ++slot) {
      if (at_first[slot].empty()) continue;
      reference[slot] = stats::median(at_first[slot]);
      slowest = std::max(slowest, reference[slot]), fastest = std::min(fastest, reference[slot]);
    }
    if (slowest < fastest) return fail("the first point has no timed pass past its first");
    // Slots the first point lacks are read against its slowest slot: a miss there still
    // shows when the slots' own latencies spread by less than half the penalty; where they
    // spread wider, a point with such slots cannot be said to hold.
    const bool others_judged = slowest - fastest < penalty / 2;
    ev["reference_spread_cycles"] = slowest - fastest;
    std::vector<OverflowPoint> pts;
    for (const PointTrace* p : points) {
      OverflowPoint op;
      op.slots = p->size_bytes() / stride;
      const auto v = stats::main_chase(*p).samples;
      const std::size_t passes = op.slots == 0 ? 0 : v.size() / op.slots;
      // The first pass loads the entries; a level that is not LRU may still be settling in
      // the next (stray misses in it alone, where the later passes have none): of four
      // passes or more, the last ones count.
      std::vector<std::uint64_t> missed, missed_before;
      for (std::size_t pass = passes >= 4 ? 2 : 1; pass < passes; ++pass) {
        std::uint32_t m = 0;
        missed.clear();
        for (std::size_t i = pass * op.slots; i < (pass + 1) * op.slots; ++i) {
          const std::uint64_t slot = v[i]->offset_bytes / stride;
          const bool known = slot < reference.size() && !std::isnan(reference[slot]);
          if (!known && !others_judged) op.judged = false;
          const double excess = v[i]->latency - (known ? reference[slot] : slowest);
          if (excess >= penalty / 2 && excess <= 3 * penalty) ++m, missed.push_back(slot);
        }
        op.misses.push_back(m);
        std::sort(missed.begin(), missed.end());
        if (missed.size() >= kRepeatMinMisses && missed_before.size() >= kRepeatMinMisses) {
          std::vector<std::uint64_t> both;
          std::set_intersection(missed.begin(), missed.end(), missed_before.begin(), missed_before.end(),
                                std::back_inserter(both));
          op.missing_again += both.size();
          op.missing_of += std::max(missed.size(), missed_before.size());
        }
        std::swap(missed, missed_before);
      }
      ev["points"].push_back({{"slots", op.slots},
                              {"misses_per_pass", op.misses},
                              {"verdict", op.holds() ? "holds" : op.overflows() ? "overflows" : "unclear"}});
      if (op.missing_of > 0)
        ev["points"].back()["missing_again_share"] =
            static_cast<double>(op.missing_again) / static_cast<double>(op.missing_of);
      pts.push_back(std::move(op));
    }
    // Points before the first that holds may be unclear (a stray miss); one that misses in
    // every pass there means the sweep starts past the capacity, or the misses are noise.
    std::size_t holds = 0;
    while (holds < pts.size() && !pts[holds].holds()) {
      if (pts[holds].overflows())
        return fail(std::to_string(pts[holds].slots) + " slots, before any point that holds, miss in every pass: "
                    "the sweep starts past the level's capacity, or its misses are noise");
      ++holds;
    }
    if (holds == pts.size()) return fail("no point holds (no pass without a miss)");
    while (holds + 1 < pts.size() && pts[holds + 1].holds()) ++holds;
    std::optional<std::size_t> overflow;
    for (std::size_t i = holds + 1; i < pts.size(); ++i)
      if (pts[i].overflows()) {
        overflow = i;
        break;
      }
    if (overflow) {
      for (std::size_t i = *overflow; i < pts.size(); ++i)
        if (!pts[i].overflows())
          return fail(std::to_string(pts[i].slots) + " slots miss in fewer than every pass after " +
                      std::to_string(pts[*overflow].slots) + " missed in every one: not a level running out");
    }
    for (std::size_t i = holds + 1; i < pts.size(); ++i)
      if (pts[i].holds())
        return fail(std::to_string(pts[i].slots) + " slots hold after " + std::to_string(pts[holds + 1].slots) +
                    " did not: no single capacity");
    // The same slots missing pass after pass, or others (above), pooled over the points that
    // overflow (a few stray slow accesses at one point move the share little).
    std::uint64_t again = 0, of = 0;
    if (overflow)
      for (std::size_t i = *overflow; i < pts.size(); ++i) again += pts[i].missing_again, of += pts[i].missing_of;
    const double repeat_share = of > 0 ? static_cast<double>(again) / static_cast<double>(of) : 0.0;
    const bool repeat_known = of > 0 && (repeat_share >= kRepeatShare || repeat_share < kVaryShare);
    Finding f;
    f.analyzer = name();
    f.unit = "slots";
    f.value = pts[holds].slots;
    f.confidence = 0.9;
    f.details["stride_bytes"] = stride;
    f.details["holds_slots"] = pts[holds].slots;
    f.evidence = ev;
    f.summary = "slots " + format_bytes(stride) + " apart: no miss in any pass up to " + std::to_string(pts[holds].slots);
    if (overflow) {
      f.details["overflow_slots"] = pts[*overflow].slots;
      f.summary += ", a miss in every pass from " + std::to_string(pts[*overflow].slots);
    } else {
      f.summary += "; no point past it misses in every pass";
    }
    if (repeat_known) {
      const bool repeats = repeat_share >= kRepeatShare;
      f.details["misses_repeat_each_pass"] = repeats;
      f.summary += repeats ? "; the same slots miss pass after pass (" + stats::fmt(100 * repeat_share) +
                                  " % of one pass's missing slots miss again in the next)"
                            : "; other slots miss from pass to pass (" + stats::fmt(100 * repeat_share) +
                                  " % of one pass's missing slots miss again in the next): not LRU";
    }
    return f;
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_tlb_overflow_analyzer() { return std::make_unique<TlbOverflowAnalyzer>(); }

}  // namespace dissect
