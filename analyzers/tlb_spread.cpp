// tlb_spread: how many slots a TLB level holds when its slots are spread over every
// set (issue 16). A footprint sweep at power-of-two strides cannot tell one set of
// entries that reach a span X from S sets of entries that reach X / S: at a stride of X
// both hold the same number of slots (every slot falls into one set), and below it both
// run out at the same coverage. A stride of X (1 + 1/16) tells them apart: every slot
// is an entry of its own either way, and the entries its slots need advance by S + S/16
// from slot to slot, so their set (entry number modulo S) walks through every set for
// S up to 16. One set runs out at its W entries, S sets at S x W slots; the topology
// turns the slots that still fit into a set count (topology_absorb.cpp).
//
// The chase is random over the slots, as everywhere in the TLB steps, and a level
// need not replace in LRU order: past its capacity it may miss only a few accesses at a
// time (random replacement: about a sixth of them at 1.1 times its entries). What holds
// under any policy is that no access misses while every set holds its slots. Each point
// is read on the slots of the series' first point (below the capacity), which every
// larger point visits too: the same lines, the same data-path latencies, so that the
// mean moves only with translations; and, for a policy that would miss the new slots
// alone, on the slots added since (against a tenth of the penalty only: their mix of L2
// halves differs). A point is clean while both stay within the noise and a tenth of the
// level's penalty; it misses when either exceeds both; a rise beyond the noise but under a
// tenth of the penalty (a few misses, or another level's) is neither, and so is a point
// that reads clean after one that missed.
// The penalty per stride comes from the topology (parameter `penalties`:
// "STRIDE:CYCLES ..."); without it, a series' own largest rise.
//
// A point that rises a little bounds the slots that fit from below, by the pigeonhole
// principle: N slots, each needing an entry, through a level that holds C < N of them,
// miss at least N - C accesses of every N, whatever it replaces. A miss is taken to cost
// what one costs at the series' first miss: at least its rise (its share of missing
// accesses is at most one), no more than the level's penalty. So a mean rise r (plus its
// noise) at an earlier point gives C >= N (1 - r / cost): slots past one set's entries
// that still fit show several sets, where a rise under a tenth of the penalty names no
// point of its own. No first miss, or one a later point contradicts: no bound. What the
// bound assumes is that a miss of the level costs no less at the earlier point than at the
// first miss (the level's own penalty at both; a cost that fell tenfold towards smaller
// footprints would be another level's).
//
// Where the level's penalty stands far out of the data path's spread (a quarter of it
// beyond the first point's 5-95 % range), each access is counted instead: one slower than
// the first point's 95th percentile by a quarter of the penalty is a miss. Each pass visits
// every slot once, so a pass that starts with C slots held misses the other N - C at
// least: C >= N - (misses per pass), at every point, past the first miss too. Accesses
// slowed by anything else count as misses as well, which only lowers the bound; what it
// assumes is that no miss of the level costs less than a quarter of its penalty, and that
// the first point's accesses are mostly hits (the step places it below the capacity).
// Each point's count is in the finding (`misses_per_pass`), for a caller that knows more
// about the slots than this series does (topology_absorb.cpp, tlb_reach).
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "analyzers/analyzer.hpp"
#include "analyzers/stats/chase.hpp"
#include "analyzers/stats/quantiles.hpp"
#include "analyzers/stats/report.hpp"
#include "analyzers/stats/sample_mean.hpp"
#include "analyzers/stats/stride_series.hpp"
#include "engine/spec/units.hpp"

namespace dissect {
namespace {

struct SpreadPoint {
  std::uint64_t slots = 0;
  stats::SampleMean first;  // on the slots of the series' first point
  stats::SampleMean added;  // on the slots it lacks
  stats::SampleMean all;    // on every slot
  std::vector<double> timed;  // every timed access past the first pass
};

// A point's timed accesses past its first pass over its own slots (the pass that loads
// the entries), on the first point's `first_slots` slots and on the others; a point of
// fewer than two passes has none.
SpreadPoint read_point(const PointTrace& p, std::uint64_t first_slots) {
  SpreadPoint sp;
  const std::uint64_t stride = p.stride_bytes();
  sp.slots = p.size_bytes() / stride;
  const auto samples = stats::main_chase(p).samples;  // in visiting order
  if (sp.slots == 0 || samples.size() < 2 * sp.slots) return sp;
  std::vector<double> on_first, on_added;
  for (std::size_t i = sp.slots; i < samples.size(); ++i)
    (samples[i]->offset_bytes / stride < first_slots ? on_first : on_added).push_back(samples[i]->latency);
  sp.first = stats::sample_mean(on_first);
  sp.added = stats::sample_mean(on_added);
  std::vector<double> all(on_first);
  all.insert(all.end(), on_added.begin(), on_added.end());
  sp.all = stats::sample_mean(all);
  sp.timed = std::move(all);
  return sp;
}

class TlbSpreadAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "tlb_spread"; }
  std::string purpose() const override {
    return "TLB slots that fit when spread over every set (stride of a level's span x 17/16): one set holds its "
           "entries, S sets S times as many; read from point means against the level's penalty, and where the "
           "penalty stands out of the data path each access counted (slots that fit >= N - misses per pass)";
  }
  std::vector<AnalyzerParam> params() const override {
    return {{"penalties", "", "per stride, the level's miss penalty: 'STRIDE:CYCLES ...' (bytes; the topology sets it); "
                              "a stride not named uses its series' largest rise"},
            {"z", "4", "standard errors a rise must exceed to count as a miss"}};
  }

  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const override {
    const auto penalties = stats::parse_stride_penalties(params.text("penalties", ""));
    const double z = params.number("z", 4);
    auto by_stride = stats::chase_points_by_stride(traces);
    std::vector<Finding> out;
    for (auto& [stride, points] : by_stride) {
      // Every point on the slots of the smallest.
      std::uint64_t first = std::numeric_limits<std::uint64_t>::max();
      for (const PointTrace* p : points) first = std::min(first, p->size_bytes() / stride);
      std::vector<SpreadPoint> pts;
      for (const PointTrace* p : points) {
        const SpreadPoint sp = read_point(*p, first);
        if (sp.first.n > 0) pts.push_back(sp);
      }
      const auto it = penalties.find(stride);
      out.push_back(analyze_series(stride, pts, it == penalties.end() ? std::nan("") : it->second, z));
    }
    if (out.empty()) return {stats::undetermined(name(), "slots", "no pointer chase with a stride: nothing to read")};
    return out;
  }

 private:
  Finding analyze_series(std::uint64_t stride, std::vector<SpreadPoint>& pts, double penalty, double z) const {
    std::sort(pts.begin(), pts.end(), [](const SpreadPoint& a, const SpreadPoint& b) { return a.slots < b.slots; });
    nlohmann::json ev{{"stride_bytes", stride}, {"points", nlohmann::json::array()}};
    auto fail = [&](const std::string& why) {
      Finding f = stats::undetermined(name(), "slots", "stride " + format_bytes(stride) + ": " + why);
      f.details["stride_bytes"] = stride;
      f.evidence = ev;
      return f;
    };
    if (pts.size() < 2) return fail("needs two points or more (one below the level's capacity)");
    const stats::SampleMean base = pts.front().first;
    double largest = 0;
    for (const auto& p : pts) largest = std::max(largest, p.first.mean - base.mean);
    const bool given = std::isfinite(penalty);
    if (!given) {
      // The series' own rise, where it stands out of the noise; else nothing ran out.
      double se = 0;
      for (const auto& p : pts) se = std::max(se, std::hypot(p.first.se, base.se));
      penalty = largest > z * se && largest > 0 ? largest : 0;
    }
    ev["penalty_cycles"] = penalty;
    ev["penalty_from"] = given ? "the level (parameter penalties)" : "the series' largest rise";
    if (given && penalty <= 0) return fail("the level's penalty is not positive");
    std::size_t clean = 0;
    std::optional<std::size_t> first_miss;
    std::string between, after_miss;
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const SpreadPoint& p = pts[i];
      // On the first point's slots: the same lines, the same data path. On the slots added
      // since (a policy may miss those alone): other lines, whose mix of near and far L2
      // halves moves the mean by a little, so a tenth of the penalty decides there.
      const double rise = p.first.mean - base.mean, se = std::hypot(p.first.se, base.se);
      const double added = p.added.n > 0 ? p.added.mean - base.mean : 0.0;
      const double added_se = std::hypot(p.added.se, base.se);
      const bool first_clean = penalty <= 0 || (rise < penalty / 10 && rise <= z * se);
      const bool first_misses = penalty > 0 && rise >= penalty / 10 && rise > z * se;
      const bool added_clean = penalty <= 0 || added < penalty / 10;
      const bool added_misses = penalty > 0 && p.added.n > 0 && added >= penalty / 10 && added > z * added_se;
      std::string verdict;
      if (first_misses || added_misses) {
        verdict = "misses";
        if (!first_miss) first_miss = i;
      } else if (first_clean && added_clean) {
        verdict = "clean";
        if (!first_miss && between.empty()) clean = i;
      } else {
        verdict = "between";
        if (!first_miss && between.empty())
          between = std::to_string(p.slots) + " slots rise by " + stats::fmt(rise) + " cycles (+-" + stats::fmt(z * se) +
                    "; on the slots added since the first point " + stats::fmt(added) +
                    "): beyond the noise, under a tenth of the penalty +" + stats::fmt(penalty);
      }
      if (first_miss && verdict != "misses" && after_miss.empty())
        after_miss = std::to_string(p.slots) + " slots read " + verdict + " after " + std::to_string(pts[*first_miss].slots) +
                     " missed: not a level running out";
      ev["points"].push_back({{"slots", p.slots},
                              {"mean", p.first.mean},
                              {"se", p.first.se},
                              {"accesses", p.first.n},
                              {"rise_cycles", rise},
                              {"added_accesses", p.added.n},
                              {"added_rise_cycles", added},
                              {"verdict", verdict}});
    }
    // Every point past the first miss must miss too (a level past its capacity stays
    // past it): otherwise the first miss is noise, and it bounds nothing.
    if (!after_miss.empty() && between.empty()) between = after_miss;
    // The pigeonhole bound (above): what a miss costs at least, read at the first miss (the
    // nearest point whose misses show their cost: a cost that grows with the footprint, as a
    // page walk's may, is no larger there than at later points), then each earlier point's
    // bound. A first miss that a later point contradicts shows no cost at all.
    double cost = 0;
    if (first_miss && after_miss.empty()) {
      const SpreadPoint& m = pts[*first_miss];
      cost = m.all.mean - base.mean - z * std::hypot(m.all.se, base.se);
      if (penalty > 0) cost = std::min(cost, penalty);
    }
    std::uint64_t at_least = 0, at_least_of = 0;
    double at_least_rise = 0;
    if (cost > 0)
      for (std::size_t i = 0; i < *first_miss; ++i) {
        const SpreadPoint& p = pts[i];
        // The larger of the rise on every slot and on the first point's: slots added since
        // lie in another mix of L2 halves, which may pull their mean down.
        const double rise = std::max(p.all.mean, p.first.mean) - base.mean;
        const double r = std::max(0.0, rise + z * std::hypot(std::max(p.all.se, p.first.se), base.se));
        if (r >= cost) continue;
        const auto b = static_cast<std::uint64_t>(std::floor(static_cast<double>(p.slots) * (1 - r / cost)));
        if (b > at_least) at_least = b, at_least_of = p.slots, at_least_rise = rise;
      }
    ev["miss_cost_at_least_cycles"] = cost;
    // Each access counted (above), where the penalty stands out of the data path's spread.
    std::vector<double> base_sorted = pts.front().timed;
    std::sort(base_sorted.begin(), base_sorted.end());
    const double base_p5 = stats::quantile_sorted(base_sorted, 0.05), base_p95 = stats::quantile_sorted(base_sorted, 0.95);
    const bool counted = penalty > 0 && penalty / 4 > base_p95 - base_p5;
    nlohmann::json misses_per_pass = nlohmann::json::array();
    std::uint64_t counted_at_least = 0, counted_of = 0;
    double counted_share = 0;
    if (counted) {
      const double threshold = base_p95 + penalty / 4;
      ev["miss_threshold_cycles"] = threshold;
      for (std::size_t i = 0; i < pts.size(); ++i) {
        const SpreadPoint& p = pts[i];
        const auto slow = static_cast<double>(
            std::count_if(p.timed.begin(), p.timed.end(), [&](double l) { return l > threshold; }));
        const double passes = static_cast<double>(p.timed.size()) / static_cast<double>(p.slots);
        const double per_pass = slow / passes;
        misses_per_pass.push_back({p.slots, per_pass});
        ev["points"][i]["misses_per_pass"] = per_pass;
        const auto b = static_cast<std::uint64_t>(std::max(0.0, std::floor(static_cast<double>(p.slots) - per_pass)));
        if (b > counted_at_least)
          counted_at_least = b, counted_of = p.slots, counted_share = per_pass / static_cast<double>(p.slots);
      }
    }
    Finding f;
    f.analyzer = name();
    f.unit = "slots";
    f.value = pts[clean].slots;
    f.details["stride_bytes"] = stride;
    f.details["clean_slots"] = pts[clean].slots;
    f.evidence = ev;
    f.confidence = 0.9;
    // A point neither clean nor missing ends the clean run: the level may hold fewer
    // slots than it, and the first miss past it still bounds them from above.
    if (!between.empty()) f.details["unclear"] = between;
    if (first_miss) {
      f.details["first_miss_slots"] = pts[*first_miss].slots;
      if (!after_miss.empty()) f.details["first_miss_unconfirmed"] = after_miss;
      f.summary = "slots " + format_bytes(stride) + " apart: no miss up to " + std::to_string(pts[clean].slots) +
                  ", misses at " + std::to_string(pts[*first_miss].slots) + " (+" +
                  stats::fmt(pts[*first_miss].first.mean - base.mean) + " of +" + stats::fmt(penalty) + " cycles)";
    } else {
      f.summary = "slots " + format_bytes(stride) + " apart: no miss up to " + std::to_string(pts[clean].slots) +
                  (clean + 1 == pts.size() ? ", the sweep's largest point" : "");
    }
    if (!between.empty()) f.summary += " (" + between + ")";
    if (counted) f.details["misses_per_pass"] = misses_per_pass;
    if (counted_at_least > at_least && counted_at_least > pts[clean].slots) {
      f.details["holds_at_least_slots"] = counted_at_least;
      f.summary += "; at least " + std::to_string(counted_at_least) + " slots fit (pigeonhole: " +
                   std::to_string(counted_of) + " slots miss " + stats::fmt(100 * counted_share) +
                   " % of the accesses of a pass, counted one by one)";
    } else if (at_least > pts[clean].slots) {
      f.details["holds_at_least_slots"] = at_least;
      f.summary += "; at least " + std::to_string(at_least) + " slots fit (pigeonhole: " +
                   std::to_string(at_least_of) + " slots rise by " + stats::fmt(at_least_rise) +
                   " cycles, where a miss costs at least +" + stats::fmt(cost) + ")";
    }
    return f;
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_tlb_spread_analyzer() { return std::make_unique<TlbSpreadAnalyzer>(); }

}  // namespace dissect
