// tlb: TLB levels from chases whose slots lie in distinct pages, N growing
// (seeds 000 §4.4, 003 §4.2). Each series (one stride) is read per page: a
// page's latency at each point relative to its own first latency (its excess,
// stats/unit_excess: the near and far L2 partitions drop out), pooled and
// clustered into levels; a level above the hit level is a TLB level when the
// pages that start missing it keep missing at every larger N (a staircase, the
// stage method: seed 003 Fig. 10-11). Its penalty is its excess over the level
// below (penalties that add up along the levels come apart), its capacity the
// largest N without misses.
//
// One stride cannot always tell entries from what one entry covers: below the
// reach (a page, or k coalesced pages) consecutive slots share an entry and the
// level runs out at its coverage, above it every slot is an entry of its own.
// Series at several strides (the topology's footprint sweep) give each level's
// coverage and span (stats/tlb_footprint). One series alone counts slots as
// entries (reach at most the stride), except where its staircase steps every b
// slots in sets of b x ways slots: then b slots share an entry (reach b x the
// page). Sets come only from a sweep that adds one slot at a time, and only
// where the staircase is a whole geometry; fully associative is one set.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <span>

#include "analyzers/analyzer.hpp"
#include "analyzers/stats/chase.hpp"
#include "analyzers/stats/mean_step.hpp"
#include "analyzers/stats/quantiles.hpp"
#include "analyzers/stats/report.hpp"
#include "analyzers/stats/staircase.hpp"
#include "analyzers/stats/sweep_groups.hpp"
#include "analyzers/stats/tlb_footprint.hpp"
#include "analyzers/stats/unit_excess.hpp"
#include "engine/core/worker_pool.hpp"
#include "engine/spec/units.hpp"

namespace dissect {
namespace {

// How well the pages that start missing a latency level keep missing it at
// every larger N (the stage method's premise).
struct Persistence {
  std::size_t cells = 0, kept = 0;  // (page, point) cells from the page's onset on; those that miss
  std::size_t points_after = 0;     // points past the capacity
  std::size_t drops = 0;            // points past the capacity whose missing share falls below half the largest before
  double rate() const { return cells == 0 ? 0.0 : static_cast<double>(kept) / static_cast<double>(cells); }
  bool persistent() const { return cells > 0 && rate() >= 0.8 && 10 * drops <= points_after; }
  std::string why() const {
    if (cells == 0) return "no page keeps missing";
    return "pages that start missing it miss at only " + stats::percent(rate()) +
           " of the larger N (a TLB level: all), and the share of slow pages falls back at " + std::to_string(drops) +
           " of " + std::to_string(points_after) + " points: a point-to-point wobble of the data path (e.g. L2 near/far "
           "partitions), not a TLB running out of entries";
  }
  nlohmann::json to_json() const {
    return {{"cells_after_onset", cells}, {"missing_after_onset", kept}, {"rate", rate()},
            {"points_after_capacity", points_after}, {"share_drops", drops}, {"persistent", persistent()}};
  }
};

// Each page present at N = C: its first miss at a point past C, then whether
// it misses at every later point.
Persistence persistence(const std::vector<stats::StairPoint>& sp, const stats::Staircase& st, std::uint64_t stride) {
  Persistence r;
  std::vector<const stats::StairPoint*> pts;
  for (const auto& s : sp)
    if (s.size_bytes > st.capacity_bytes) pts.push_back(&s);
  std::sort(pts.begin(), pts.end(), [](auto* a, auto* b) { return a->size_bytes < b->size_bytes; });
  const std::uint64_t old_units = st.capacity_bytes / std::max<std::uint64_t>(1, stride);
  std::vector<int> started(old_units, 0);
  double best_share = 0;
  for (const auto* p : pts) {
    std::vector<char> miss(old_units, 0);
    for (auto u : p->missing)
      if (u < old_units) miss[u] = 1;
    for (std::uint64_t u = 0; u < old_units; ++u) {
      if (miss[u]) started[u] = 1;
      if (started[u]) ++r.cells, r.kept += miss[u];
    }
    const double share = p->units == 0 ? 0.0 : static_cast<double>(p->missing.size()) / static_cast<double>(p->units);
    ++r.points_after;
    if (share < 0.5 * best_share) ++r.drops;
    best_share = std::max(best_share, share);
  }
  return r;
}

// How much the share of slow pages grows from below the capacity to far above
// it (2x the capacity, else the largest tenth of the sweep). A TLB running out
// of entries makes most pages miss once N is well past its reach; a latency
// level of the data path (the far L2 partition) holds the same share of pages
// at every N, with at most a few pages changing sides.
double slow_share_rise(const std::vector<stats::StairPoint>& sp, std::uint64_t capacity) {
  auto share = [](const stats::StairPoint& p) {
    return p.units == 0 ? 0.0 : static_cast<double>(p.missing.size()) / static_cast<double>(p.units);
  };
  double before = 0, after = 0;
  std::size_t nb = 0, na = 0;
  std::uint64_t largest = 0;
  for (const auto& p : sp) largest = std::max(largest, p.size_bytes);
  const std::uint64_t far = largest >= 2 * capacity ? 2 * capacity : capacity + (largest - capacity) * 9 / 10;
  for (const auto& p : sp) {
    if (p.size_bytes <= capacity) before += share(p), ++nb;
    else if (p.size_bytes >= far) after += share(p), ++na;
  }
  if (nb == 0 || na == 0) return 1;  // nothing to compare: leave it to the other tests
  return after / static_cast<double>(na) - before / static_cast<double>(nb);
}

// A TLB level as one series saw it.
struct SeriesLevel {
  std::uint64_t stride = 0;
  std::uint64_t clean_slots = 0;    // the largest slot count without misses of the level
  std::uint64_t missing_slots = 0;  // the next slot count measured
  double penalty = 0;               // this level's excess over the level below
  double miss_latency = 0;          // the latency of an access that misses it (and every level below)
  stats::Staircase stair;
  bool from_means = false;          // read from the points' means (stats/mean_step), not page by page
  double share_at_first = 0;        // from_means: the share of accesses that miss at missing_slots
  double share_at_double = std::nan("");  // from_means: the mean share that misses up to twice the clean footprint
  nlohmann::json record;            // the per-series level record
};

struct Series {
  std::uint64_t stride = 0;
  bool unit_steps = false;          // every point one slot more than the last
  std::vector<SeriesLevel> levels;
  std::vector<std::string> notes, rejected;
  double confidence = 1;
  double outlier_share = 0;
  std::uint64_t max_size = 0;
  std::size_t max_pages = 0;
  nlohmann::json evidence;
};

// Regular sets: every page at N = C in a set, the sizes summing to the entries,
// few onsets the fit cannot explain, and most sets alike (equal ways, or a few
// odd sets beside equal ones as Fermi's L2 TLB has). Staircases fitted to noise
// give many sets of one or two pages.
std::string irregular_sets(const stats::Staircase& st, std::uint64_t entries) {
  if (!st.complete) return "the sweep ends before every page misses (" + std::to_string(st.never_missing) + " never do)";
  std::size_t sum = 0;
  std::map<std::size_t, std::size_t> sizes;
  for (auto s : st.set_sizes) sum += s, ++sizes[s];
  if (sum != entries)
    return "set sizes add up to " + std::to_string(sum) + ", not " + std::to_string(entries) + " entries";
  if (st.fit_errors > 0.05) return "the staircase's steps leave " + stats::percent(st.fit_errors) + " of the cells unexplained";
  std::size_t mode = 0;
  for (const auto& [s, n] : sizes) mode = std::max(mode, n);
  if (st.sets > 2 && 2 * mode < st.sets)
    return std::to_string(st.sets) + " steps of " + std::to_string(sizes.size()) +
           " different sizes: no set structure (sets of one geometry hold equal ways)";
  return "";
}

class TlbAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "tlb"; }
  std::string purpose() const override {
    return "TLB levels (entries, reach of one entry, coverage, miss penalty of each level, sets) from chases over one "
           "slot per page, N growing, at one or several strides";
  }
  std::vector<AnalyzerParam> params() const override {
    return {{"min_stride", "4096", "series with a smaller stride are not TLB experiments"},
            {"page_bytes", "", "page size, if known: pages per entry = reach / page; one series alone: coverage = "
                               "entries x page (default there: the largest power of two not above the stride)"},
            {"strides", "combine", "combine: series at several strides are one sweep (coverage and span from where "
                                   "each level runs out at each stride); separate: each series is read alone (split "
                                   "where N jumps)"},
            {"min_penalty", "2", "cycles a level must add over the one below to count"}};
  }
  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const override {
    // At least one byte: stride-0 points (imported traces without a stride) are no TLB series.
    const auto min_stride = static_cast<std::uint64_t>(std::max(1.0, params.number("min_stride", 4096)));
    auto groups = stats::group_points(traces, "size_bytes", [&](const PointTrace& p) {
      return p.param("kernel", "pchase") == "pchase" && p.stride_bytes() >= min_stride;
    });
    const bool combine = params.text("strides", "combine") != "separate";
    const double min_penalty = params.number("min_penalty", 2);
    // Each series on its own (a footprint sweep has one per stride): side by side on the
    // worker pool, this thread taking up whatever no worker has started.
    std::vector<std::vector<const PointTrace*>> inputs;
    for (const auto& g : groups)
      for (auto& run : runs(g.points, combine))
        if (run.size() >= 3) inputs.push_back(std::move(run));
    std::vector<std::function<Series()>> tasks;
    for (const auto& in : inputs) tasks.emplace_back([this, &in, min_penalty] { return analyze_series(in, min_penalty); });
    std::vector<Series> series = workers::run_all(std::move(tasks));
    if (series.empty())
      return {stats::undetermined(name(), "levels",
                                  "no series over N with a stride of at least " + format_bytes(min_stride) +
                                      " (tlb needs one slot per page and N growing)")};
    std::sort(series.begin(), series.end(), [](const Series& a, const Series& b) { return a.stride < b.stride; });
    // Several strides are one footprint sweep, whether or not each found a level: a knee that
    // only one stride shows is for the combined reading to reject, not to be listed alone.
    std::map<std::uint64_t, int> strides;
    for (const auto& s : series) ++strides[s.stride];
    double page = 0;
    if (const std::string text = params.text("page_bytes", ""); !text.empty()) {
      std::string error;
      const auto q = parse_quantity(text, "B", error);
      if (!q || q->unit != QuantityUnit::bytes || q->amount < 1 || q->amount > (std::uint64_t{1} << 50))
        return {stats::undetermined(name(), "levels", "page_bytes '" + text + "' is no size in bytes")};
      page = static_cast<double>(q->amount);
    }
    if (combine && strides.size() >= 2) return {combined(series, page)};
    return {listed(series, page)};
  }

 private:
  // The points of a stride group as series. Separate: split where the step
  // in N changes (a sweep that lists one range of N per TLB level at one
  // stride, each with its own step).
  static std::vector<std::vector<const PointTrace*>> runs(const std::vector<const PointTrace*>& pts, bool combine) {
    if (combine || pts.size() < 2) return {pts};
    std::vector<std::vector<const PointTrace*>> out{{pts.front()}};
    std::uint64_t run_step = 0;  // 0: the run has one point
    for (std::size_t i = 1; i < pts.size(); ++i) {
      const std::uint64_t step = pts[i]->size_bytes() - pts[i - 1]->size_bytes();
      if (run_step != 0 && (step > 2 * run_step || 2 * step < run_step)) {
        out.emplace_back();
        run_step = 0;
      } else if (run_step == 0) {
        run_step = step;
      }
      out.back().push_back(pts[i]);
    }
    return out;
  }

  Series analyze_series(const std::vector<const PointTrace*>& points, double min_penalty) const {
    Series S;
    const std::uint64_t stride = points.front()->stride_bytes();
    S.stride = stride;
    // Each page's latency: its median over the rounds (a TLB miss penalty of a
    // few cycles stands out of per-sample jitter once averaged; an outlier does
    // not move a median). The first round is left out when there are three or
    // more (a warm-up that did not warm).
    // Points apart on the worker pool (this thread taking up what no worker has started).
    std::vector<std::function<stats::UnitPoint()>> per_point;
    for (const auto* p : points) per_point.emplace_back([p, stride] {
      const auto c = stats::main_chase(*p);
      stats::UnitPoint q;
      q.size_bytes = p->size_bytes();
      const std::size_t period = std::max<std::size_t>(1, c.period);
      const std::size_t rounds = (c.samples.size() + period - 1) / period;
      const std::size_t skip = rounds >= 3 ? period : 0;
      // Round r of position pos at by_pos[pos x kept + r]: one buffer for the point, not a
      // vector per page (thousands of pages a point, a few rounds each).
      const std::size_t kept = rounds - skip / period;
      std::vector<double> by_pos(period * kept);
      std::vector<std::size_t> count(period, 0);
      q.unit.assign(period, 0);
      for (std::size_t i = 0; i < c.samples.size(); ++i) {
        const std::size_t pos = i % period;
        if (i < period) q.unit[pos] = c.samples[i]->offset_bytes / stride;
        if (const double v = c.samples[i]->latency; i >= skip && !std::isnan(v)) by_pos[pos * kept + count[pos]++] = v;
      }
      q.median.reserve(period);
      for (std::size_t pos = 0; pos < period; ++pos) {
        const std::span<double> v(by_pos.data() + pos * kept, count[pos]);
        std::sort(v.begin(), v.end());
        q.median.push_back(v.empty() ? std::nan("") : stats::median_sorted(v));
      }
      return q;
    });
    std::vector<stats::UnitPoint> up = workers::run_all(std::move(per_point));
    stats::unit_excess(up);
    std::vector<double> pool;
    for (const auto& q : up)
      for (double v : q.excess)
        if (!std::isnan(v)) pool.push_back(v);
    // The latency of an access that hits every level: the first point's pages.
    std::vector<double> first;
    for (double v : up.front().median)
      if (!std::isnan(v)) first.push_back(v);
    const double hit_latency = first.empty() ? 0.0 : stats::median(first);
    stats::LevelOptions lo;
    lo.min_share = std::max(1e-4, 2.0 / static_cast<double>(std::max<std::size_t>(1, pool.size())));
    lo.min_count = 2;
    const stats::LevelModel model = stats::cluster_levels(pool, lo);
    S.outlier_share = model.outlier_share();
    int hit = stats::dominant_level(model, up.front().excess);
    if (hit < 0) hit = 0;
    const int above = static_cast<int>(model.levels.size()) - 1 - hit;
    S.unit_steps = true;
    for (std::size_t i = 1; i < points.size(); ++i)
      if (points[i]->size_bytes() - points[i - 1]->size_bytes() != stride) S.unit_steps = false;
    S.max_size = points.back()->size_bytes();
    S.max_pages = up.back().median.size();
    nlohmann::json ev;
    ev["stride_bytes"] = stride;
    ev["levels_of_page_excess"] = model.to_json();
    ev["hit_level"] = hit;
    ev["hit_latency_cycles"] = hit_latency;
    ev["method"] = "per-page median latency over the rounds, minus the page's own first (the data path's share "
                   "drops out), clustered into levels; one staircase per level";
    nlohmann::json stairs = nlohmann::json::array();
    std::uint64_t prev_entries = 0;
    // Slots where a latency level failed the slow-share test (pages that first appear
    // past a level miss from their first latency on: the page-by-page reading cannot see it).
    std::vector<std::uint64_t> unread_at;
    // Per level found: the excess of the level below, its own, and how many
    // page medians lie at its own.
    std::vector<double> rep_base, rep_top;
    // The smallest N at which any latency level's staircase runs out, accepted
    // or not.
    std::uint64_t first_knee = UINT64_MAX;
    std::vector<std::size_t> rep_count;
    // Each page's latency level (-1: no median), and each point's pages in the order of
    // their units: every level's staircase below reads them, its missing units ascending.
    std::vector<std::vector<int>> level_of(up.size());
    std::vector<std::vector<std::uint32_t>> by_unit(up.size());
    for (std::size_t i = 0; i < up.size(); ++i) {
      const auto& q = up[i];
      level_of[i].resize(q.excess.size());
      for (std::size_t k = 0; k < q.excess.size(); ++k)
        level_of[i][k] = std::isnan(q.excess[k]) ? -1 : model.classify(q.excess[k]);
      by_unit[i] = stats::unit_order(q.unit);
    }
    // Every level's staircase, side by side (each reads the points alone); read in level
    // order below.
    struct LevelStairs {
      std::vector<stats::StairPoint> sp;
      stats::Staircase st;
    };
    std::vector<std::function<LevelStairs()>> per_level;
    for (int j = 1; j <= above; ++j)
      per_level.emplace_back([&, j] {
        LevelStairs ls;
        // Pages whose excess lies at level j or above.
        for (std::size_t i = 0; i < up.size(); ++i) {
          stats::StairPoint s;
          s.size_bytes = up[i].size_bytes;
          s.units = up[i].excess.size();
          for (const std::uint32_t k : by_unit[i])
            if (level_of[i][k] >= hit + j) s.missing.push_back(up[i].unit[k]);
          ls.sp.push_back(std::move(s));
        }
        ls.st = stats::stage_staircase(ls.sp, stride);
        return ls;
      });
    const std::vector<LevelStairs> levels_read = workers::run_all(std::move(per_level));
    for (int j = 1; j <= above; ++j) {
      const std::vector<stats::StairPoint>& sp = levels_read[static_cast<std::size_t>(j - 1)].sp;
      const stats::Staircase& st = levels_read[static_cast<std::size_t>(j - 1)].st;
      stairs.push_back({{"level", j}, {"table", st.table}, {"reason", st.reason}, {"step_fit_errors", st.fit_errors}});
      if (st.ok) first_knee = std::min(first_knee, st.capacity_bytes);
      if (!st.ok) {
        if (st.reason.find("already misses") != std::string::npos) {
          S.notes.push_back("latency level " + std::to_string(j) + " above the hit level misses already at the smallest N");
          S.confidence *= 0.5;
        }
        continue;  // this level never decides an access, or its staircase cannot be read
      }
      std::size_t grouped = 0;
      for (auto s : st.set_sizes) grouped += s;
      if (grouped < 2) continue;  // a stray position, not a TLB level
      const auto& lv = model.levels[static_cast<std::size_t>(hit + j)];
      const auto& lp = model.levels[static_cast<std::size_t>(hit + j - 1)];
      const std::string level_label =
          "latency level " + std::to_string(j) + " (+" + stats::fmt(lv.median - lp.median) + " cycles)";
      // A TLB level is a staircase: a page that starts missing it keeps missing
      // at every larger N. Latency levels of the data path whose pages change
      // from point to point (a fresh placement per point) are a wobble.
      const auto wobble = persistence(sp, st, stride);
      stairs.back()["persistence"] = wobble.to_json();
      if (!wobble.persistent()) {
        S.notes.push_back(level_label + " is not a staircase: " + wobble.why());
        S.rejected.push_back(S.notes.back());
        continue;
      }
      if (const double rise = slow_share_rise(sp, st.capacity_bytes); rise < 0.25) {
        S.notes.push_back(level_label + " is not a TLB level: past the step at " + format_bytes(st.capacity_bytes) +
                          " the share of slow pages grows by only " + stats::percent(std::max(0.0, rise)) +
                          " (a TLB out of entries makes most pages miss well past its reach)");
        S.rejected.push_back(S.notes.back());
        unread_at.push_back(st.capacity_bytes / stride);
        continue;
      }
      const std::uint64_t entries = st.capacity_bytes / stride;
      if (entries <= prev_entries && !S.levels.empty()) {
        // The same capacity again: the level already found, seen through
        // another latency level (pages whose median over an even number of
        // rounds falls between hit and miss; a latency the excess did not
        // remove). The level's latency is that of the level holding the most
        // of its pages.
        if (lv.count > rep_count.back()) {
          rep_count.back() = lv.count;
          SeriesLevel& last = S.levels.back();
          last.penalty = lv.median - rep_base.back();
          last.miss_latency = hit_latency + lv.median - model.levels[static_cast<std::size_t>(hit)].median;
          rep_top.back() = lv.median;
        }
        S.notes.push_back("latency level " + std::to_string(j) + " runs out at " + std::to_string(entries) +
                          " pages like the TLB level before it: the same level through another latency");
        continue;
      }
      std::uint64_t next = entries;
      for (const auto& s : sp)
        if (s.size_bytes > st.capacity_bytes) {
          next = s.size_bytes / stride;
          break;
        }
      const double base_now = rep_top.empty() ? model.levels[static_cast<std::size_t>(hit)].median : rep_top.back();
      if (lv.median - base_now < min_penalty) {
        S.notes.push_back(level_label + " adds less than " + stats::fmt(min_penalty) +
                          " cycles over the level below: not counted as a TLB level");
        continue;
      }
      SeriesLevel L;
      L.stride = stride;
      L.clean_slots = entries;
      L.missing_slots = next;
      // Over the latency of the level below: the last TLB level's (penalties
      // that add up along the levels come apart), else the hit's.
      const double base = rep_top.empty() ? model.levels[static_cast<std::size_t>(hit)].median : rep_top.back();
      rep_base.push_back(base);
      rep_top.push_back(lv.median);
      rep_count.push_back(lv.count);
      L.penalty = lv.median - base;
      L.miss_latency = hit_latency + lv.median - model.levels[static_cast<std::size_t>(hit)].median;
      L.stair = st;
      prev_entries = entries;
      S.levels.push_back(std::move(L));
    }
    ev["staircases"] = stairs;
    // The series read from its points' means (stats/mean_step).
    Series means;
    read_means(means, up, stride, min_penalty, ev, UINT64_MAX);
    // The page-by-page reading holds where a page's excess below the first
    // knee (nothing changed for it) stays well within a penalty; where it
    // wobbles by as much, pages are classified by noise (a knee a few slots
    // early, a level that is a wobble): read the means instead. Below the
    // knee: the points below half the first staircase's knee (a soft knee,
    // slots sharing entries in a random order, is read a grid step or two
    // late) that the means find clean too; where there are none (a sweep that
    // starts near the knee), those up to the knee; and where the staircase
    // puts its knee before the sweep's first point (misses at the smallest N,
    // which the means do not see), those the means find clean.
    if (!S.levels.empty()) {
      const std::uint64_t knee = std::min(first_knee, S.levels.front().stair.capacity_bytes);
      const std::uint64_t by_means = means.levels.empty() ? UINT64_MAX : means.levels.front().clean_slots * stride;
      double jitter = excess_spread(up, std::min(knee / 2, by_means));
      if (jitter == 0) jitter = excess_spread(up, std::min(knee, by_means));
      if (jitter == 0 && knee < up.front().size_bytes && by_means != UINT64_MAX) jitter = excess_spread(up, by_means);
      double smallest = S.levels.front().penalty;
      for (const auto& L : S.levels) smallest = std::min(smallest, L.penalty);
      ev["page_excess_spread_cycles"] = jitter;
      const double unseen = misses_the_means_do_not_see(S.levels.front(), ev, by_means);
      if (unseen > 0) {
        S.notes.push_back("stride " + format_bytes(stride) + ": the pages that start missing at " +
                          format_bytes(S.levels.front().stair.capacity_bytes) + " would raise the mean by " +
                          stats::fmt(unseen) + " cycles where the means stay at the base: the page-by-page levels "
                          "are not read");
        S.levels.clear();
      } else if (jitter >= 0.75 * smallest) {
        S.notes.push_back("stride " + format_bytes(stride) + ": pages' excess below the knee spreads over " +
                          stats::fmt(jitter) + " cycles (p5-p95), as much as a level's " + stats::fmt(smallest) +
                          ": the page-by-page levels are not read");
        S.levels.clear();
      }
    }
    if (S.levels.empty()) {
      S.levels = means.levels;
      S.notes.insert(S.notes.end(), means.notes.begin(), means.notes.end());
      S.confidence *= means.confidence;
    } else {
      // A level whose penalty lies within the pages' jitter has no staircase
      // of its own; below the first level read page by page, the means may
      // still show it.
      const std::uint64_t below = S.levels.front().stair.capacity_bytes;
      const std::uint64_t quiet = std::min(first_knee, below);
      Series early;
      read_means(early, up, stride, min_penalty, ev, below);
      if (!early.levels.empty() && early.levels.front().missing_slots * stride <= below) {
        S.levels.insert(S.levels.begin(), early.levels.front());
        S.notes.insert(S.notes.end(), early.notes.begin(), early.notes.end());
        S.confidence *= early.confidence;
      } else if (const double jitter = excess_spread(up, quiet / 2); jitter / 2 > min_penalty) {
        // A level of less than half the jitter would not be seen page by page.
        S.notes.push_back("stride " + format_bytes(stride) + ": pages' excess spreads over " + stats::fmt(jitter) +
                          " cycles below the first level: a level adding less than " + stats::fmt(jitter / 2) +
                          " cycles there could go unseen");
        S.confidence *= 0.85;
      }
      // How each page-by-page level's rise begins, in accesses (a page's median over
      // rounds calls it slow where most of its accesses miss, which overstates the
      // share): the points' means past the knee up to twice its footprint, over the
      // mean at the knee, as shares of the level's page-by-page penalty (read low, it
      // overstates the share too: a set-associative reading needs 95 %).
      if (ev.contains("mean_step") && ev["mean_step"].contains("points")) {
        std::map<std::uint64_t, double> mean_at;
        for (const auto& p : ev["mean_step"]["points"]) mean_at[p[0].get<std::uint64_t>()] = p[1].get<double>();
        for (SeriesLevel& L : S.levels) {
          if (!std::isnan(L.share_at_double) || L.penalty <= 0) continue;
          const auto at = mean_at.find(L.clean_slots * stride);
          if (at == mean_at.end()) continue;
          double sum = 0;
          std::size_t n = 0;
          for (auto it = std::next(at); it != mean_at.end() && it->first <= 2 * at->first; ++it)
            sum += std::clamp((it->second - at->second) / L.penalty, 0.0, 1.0), ++n;
          if (n > 0) L.share_at_double = sum / static_cast<double>(n);
        }
      }
      // Levels past the first that the means show with a plateau before each (large
      // penalties, levels whose coverage lies far out): pages that first appear
      // there already miss, so their own first latency, the page-by-page reference,
      // hides the level.
      // A means level past the first is matched where a page-by-page level agrees with
      // it (its knee within a factor of two, its penalty within a quarter). From the
      // first unmatched one on, where the page-by-page reading failed a latency level's
      // slow-share test at or past half its knee, the page-by-page levels that match no
      // means level give way to the means levels.
      auto agree = [](const SeriesLevel& P, const SeriesLevel& M) {
        return 2 * P.clean_slots >= M.clean_slots && P.clean_slots <= 2 * M.clean_slots &&
               std::fabs(P.penalty - M.penalty) <= 0.25 * M.penalty;
      };
      std::size_t k0 = 1;
      while (k0 < means.levels.size() &&
             std::any_of(S.levels.begin(), S.levels.end(), [&](const SeriesLevel& P) { return agree(P, means.levels[k0]); }))
        ++k0;
      const bool unread =
          k0 < means.levels.size() && std::any_of(unread_at.begin(), unread_at.end(), [&](std::uint64_t at) {
            return 2 * at >= means.levels[k0].clean_slots;
          });
      if (unread) {
        const std::uint64_t from = means.levels[k0].clean_slots / 2;
        std::erase_if(S.levels, [&](const SeriesLevel& P) {
          return P.clean_slots >= from && std::none_of(means.levels.begin() + 1, means.levels.end(),
                                                       [&](const SeriesLevel& M) { return agree(P, M); });
        });
        for (std::size_t k = k0; k < means.levels.size(); ++k)
          if (std::none_of(S.levels.begin(), S.levels.end(), [&](const SeriesLevel& P) { return agree(P, means.levels[k]); }))
            S.levels.push_back(means.levels[k]);
        std::stable_sort(S.levels.begin(), S.levels.end(),
                         [](const SeriesLevel& x, const SeriesLevel& y) { return x.clean_slots < y.clean_slots; });
        S.notes.push_back("stride " + format_bytes(stride) + ": from " + std::to_string(means.levels[k0].clean_slots) +
                          " slots on, the levels the pages do not show are read from the points' means");
      }
    }
    S.evidence = ev;
    return S;
  }

  // Where the page-by-page staircase has pages missing at points the means
  // find clean (up to `clean` bytes), the mean those misses would add (their
  // share x the level's penalty) over what the means show: more than twice as
  // much, and a cycle at least, is what it returns (0: the readings agree).
  // Misses that move no mean are pages wobbling, not a TLB running out.
  static double misses_the_means_do_not_see(const SeriesLevel& L, const nlohmann::json& ev, std::uint64_t clean) {
    if (clean == UINT64_MAX || !ev.contains("mean_step")) return 0;
    const auto& ms = ev["mean_step"];
    // The base: the first point's latency, every page's reference (the means'
    // own base takes in points a few pages already miss at).
    if (!ms.contains("reference_cycles")) return 0;
    const double base = ms["reference_cycles"].get<double>();
    std::map<std::uint64_t, double> mean_at;
    for (const auto& p : ms["points"]) mean_at[p[0].get<std::uint64_t>()] = p[1].get<double>();
    double predicted = 0, observed = 0;
    std::size_t n = 0;
    for (const auto& row : L.stair.table) {
      const auto size = row.value("size_bytes", std::uint64_t{0});
      const auto units = row.value("units", std::uint64_t{0});
      if (size <= L.stair.capacity_bytes || size > clean || units == 0 || mean_at.count(size) == 0) continue;
      predicted += static_cast<double>(row.value("missed_units", std::uint64_t{0})) / static_cast<double>(units) * L.penalty;
      observed += mean_at[size] - base;
      ++n;
    }
    if (n == 0) return 0;
    predicted /= static_cast<double>(n);
    observed /= static_cast<double>(n);
    return predicted >= 1 && observed < 0.5 * predicted ? predicted - observed : 0;
  }

  // p5-p95 of the pages' excess at the points up to `capacity` but the first
  // (whose excess is 0 by definition): the jitter where no level runs out; 0
  // when fewer than 8 values.
  static double excess_spread(const std::vector<stats::UnitPoint>& up, std::uint64_t capacity) {
    std::vector<double> v;
    for (std::size_t i = 1; i < up.size() && up[i].size_bytes <= capacity; ++i)
      for (double x : up[i].excess)
        if (!std::isnan(x)) v.push_back(x);
    if (v.size() < 8) return 0;
    return stats::quantile(v, 0.95) - stats::quantile(v, 0.05);
  }

  // Where no page keeps its latency from point to point well enough for the
  // page-by-page reading (a GPU whose pages' data-path latency wobbles by as
  // much as a TLB penalty), the mean over the pages still moves by the penalty
  // times the share of accesses that miss: the first persistent step of the
  // points' means is the level (stats/mean_step). One level per series: a
  // random order's gradual rise past one level leaves no plateau to tell a
  // second one from.
  static void read_means(Series& S, const std::vector<stats::UnitPoint>& up, std::uint64_t stride,
                         double min_penalty, nlohmann::json& ev, std::uint64_t up_to_bytes) {
    // The pages' excess (each page against itself: which pages lie in the near
    // or far L2 partition, a mix that changes with N, drops out), over the
    // latency of the first point.
    std::vector<double> first;
    for (double x : up.front().median)
      if (!std::isnan(x)) first.push_back(x);
    const double hit = first.empty() ? 0.0 : stats::median(first);
    // The first point is every page's reference (its excess 0 by definition,
    // no noise to weigh it by), and a point of fewer than three pages has no
    // spread to weigh it by: neither is read.
    std::vector<stats::MeanPoint> mp;
    for (std::size_t i = 1; i < up.size() && up[i].size_bytes <= up_to_bytes; ++i) {
      const auto& q = up[i];
      std::vector<double> v;
      for (double x : q.excess)
        if (!std::isnan(x)) v.push_back(hit + x);
      if (v.size() < 3) continue;
      stats::MeanPoint p;
      p.size_bytes = q.size_bytes;
      p.units = v.size();
      p.mean = stats::mean(v);
      double ss = 0;
      for (double x : v) ss += (x - p.mean) * (x - p.mean);
      p.se = std::sqrt(ss / static_cast<double>(v.size() - 1) / static_cast<double>(v.size()));
      mp.push_back(p);
    }
    const std::vector<stats::MeanStep> steps = stats::mean_steps(mp, min_penalty);
    const stats::MeanStep st = steps.empty() ? stats::mean_step(mp, min_penalty) : steps.front();
    nlohmann::json& out = ev[up_to_bytes == UINT64_MAX ? "mean_step" : "mean_step_below_first_level"];
    out = st.to_json(mp);
    out["reference_cycles"] = hit;  // the points' means are this plus the pages' mean excess
    if (steps.size() > 1) {
      nlohmann::json later = nlohmann::json::array();
      for (std::size_t k = 1; k < steps.size(); ++k) {
        nlohmann::json j = steps[k].to_json(mp);
        j.erase("points");
        later.push_back(std::move(j));
      }
      out["later_steps"] = std::move(later);
    }
    for (const stats::MeanStep& step : steps) {
      SeriesLevel L;
      L.stride = stride;
      L.clean_slots = mp[step.clean].size_bytes / stride;
      L.missing_slots = mp[step.first].size_bytes / stride;
      L.penalty = step.rise();
      L.miss_latency = step.top;
      L.from_means = true;
      L.share_at_first = step.share_at_first;
      // How the rise begins: the mean share that misses over the points past the
      // knee up to twice its footprint (and below the next step).
      double sum = 0;
      std::size_t n = 0;
      for (std::size_t i = step.clean + 1; i < mp.size() && mp[i].size_bytes <= 2 * mp[step.clean].size_bytes; ++i)
        sum += std::clamp((mp[i].mean - step.base) / step.rise(), 0.0, 1.0), ++n;
      if (n > 0) L.share_at_double = sum / static_cast<double>(n);
      S.levels.push_back(std::move(L));
      S.confidence *= 0.9;
      S.notes.push_back("stride " + format_bytes(stride) + ": a level read from the points' means: +" +
                        stats::fmt(step.rise()) + " cycles past " + format_bytes(mp[step.clean].size_bytes));
    }
  }

  // Sets of a level from a one-slot-at-a-time series, into `L`; notes why not.
  // One step of every slot is one set (fully associative, whatever an entry
  // covers). Steps one slot apart are sets of entries, claimed where they make
  // a whole geometry (a staircase the sweep ends inside: a lower bound on the
  // sets). Steps every b slots mean b slots share an entry (a stride of a
  // b-th of the reach: coalesced pages): entries and reach, not sets.
  static void add_sets(nlohmann::json& L, const SeriesLevel& sl, bool unit_steps, std::uint64_t entries,
                       std::vector<std::string>& notes, double& conf, std::size_t index) {
    const std::string label = "TLB level " + std::to_string(index);
    L["sets"] = nullptr;
    L["set_sizes"] = nullptr;
    L["associativity"] = "undetermined";
    if (sl.from_means) {
      // One slot past the entries, every slot misses only where one set holds
      // them all in LRU (or FIFO) order: S sets would lose one set's ways + 1
      // slots, slots sharing an entry would mostly hit, random replacement
      // would keep most.
      L["share_missing_one_past"] = sl.share_at_first;
      if (unit_steps && sl.missing_slots == entries + 1 && sl.share_at_first >= 0.8) {
        L["sets"] = 1;
        L["set_sizes"] = {entries};
        L["associativity"] = "full";
        L["sets_note"] = "one slot past the entries, " + stats::percent(sl.share_at_first) +
                         " of the accesses miss: one set in LRU order (the points' means)";
      } else {
        L["sets_note"] = unit_steps ? "the points' means do not tell sets: one slot past the knee only " +
                                          stats::percent(sl.share_at_first) + " of the accesses miss"
                                    : "the sweep does not add one slot at a time past the knee";
      }
      return;
    }
    // The share of pages that miss one slot past the entries (every one, in one set
    // of LRU order; a few, where the misses grow gradually: no LRU order). Pages
    // are slow by their median over rounds, so this overstates a small share.
    for (const auto& row : sl.stair.table)
      if (row.value("size_bytes", std::uint64_t{0}) == sl.missing_slots * sl.stride &&
          row.value("units", std::uint64_t{0}) > 0 && unit_steps && sl.missing_slots == entries + 1)
        L["share_missing_one_past"] = static_cast<double>(row.value("missed_units", std::uint64_t{0})) /
                                      static_cast<double>(row.value("units", std::uint64_t{0}));
    if (!unit_steps || !sl.stair.unit_steps) {
      L["sets_note"] = "the sweep does not add one slot at a time past the knee: sets need the stage method";
      return;
    }
    const stats::Staircase& st = sl.stair;
    L["staircase_steps"] = st.set_sizes;
    const std::size_t b = st.lines_per_block;
    if (b > 1 && st.sets >= 3 && entries % b == 0 && st.fit_errors <= 0.05) {
      // b slots to an entry: which of them miss depends on the order (in a
      // sequential chase only the first), so the steps' sizes are no ways.
      L["slots_per_entry"] = b;
      L["entries"] = entries / b;
      L["sets_note"] = "a set overflows every " + std::to_string(b) + " slots: " + std::to_string(b) +
                       " slots share an entry; the sets are read where each slot is an entry of its own";
      return;
    }
    std::map<std::size_t, std::size_t> sizes;
    for (auto z : st.set_sizes) ++sizes[z];
    std::size_t mode = 0, mode_size = 0;
    for (const auto& [z, n] : sizes)
      if (n > mode) mode = n, mode_size = z;
    // Several steps, one slot apart, of mostly one size: set-associative.
    const bool regular = st.sets >= 2 && b == 1 && st.fit_errors <= 0.05 && (st.sets <= 2 || 2 * mode >= st.sets);
    if (st.sets == 1 && st.complete && st.set_sizes.front() == entries && st.fit_errors <= 0.05) {
      L["sets"] = 1;
      L["set_sizes"] = {entries};
      L["associativity"] = "full";
      return;
    }
    if (!regular) {
      const std::string why = irregular_sets(st, entries);
      L["sets_note"] = why.empty() ? "the staircase's steps are no whole geometry" : why;
      notes.push_back(label + ": sets undetermined: " + L["sets_note"].get<std::string>());
      conf *= 0.9;
      return;
    }
    L["associativity"] = "set-associative";
    L["slots_per_entry"] = 1;
    if (sizes.size() == 1) L["ways"] = mode_size;
    const std::string why = irregular_sets(st, entries);
    if (why.empty()) {
      L["sets"] = st.sets;
      L["set_sizes"] = st.set_sizes;
      return;
    }
    L["sets_at_least"] = st.sets;
    L["sets_note"] = why;
    notes.push_back(label + ": " + why + ": at least " + std::to_string(st.sets) + " sets");
    conf *= 0.9;
  }

  // Every level of every series, one after the other by where it runs out
  // (one series; or several read apart, each a range of N around one level).
  Finding listed(const std::vector<Series>& series, double page_param) const {
    Finding f;
    f.analyzer = name();
    f.unit = "levels";
    std::vector<std::pair<std::uint64_t, nlohmann::json>> found;
    std::vector<std::string> notes, rejected;
    double conf = 1, outliers = 0;
    nlohmann::json ev = nlohmann::json::array();
    for (const auto& s : series) {
      notes.insert(notes.end(), s.notes.begin(), s.notes.end());
      rejected.insert(rejected.end(), s.rejected.begin(), s.rejected.end());
      ev.push_back(s.evidence);
      conf = std::min(conf, s.confidence);
      outliers = std::max(outliers, s.outlier_share);
      // Without the page: the largest power of two not above the stride (a
      // stride of one page plus a line spreads the data over cache sets).
      std::uint64_t page = 1;
      while (page * 2 <= s.stride) page *= 2;
      if (page_param > 0) page = static_cast<std::uint64_t>(page_param);
      for (const auto& sl : s.levels) {
        nlohmann::json L;
        const std::uint64_t entries = sl.clean_slots;
        L["entries"] = entries;
        L["knee_slots"] = entries;
        L["stride_bytes"] = s.stride;
        L["knee_footprint_bytes"] = entries * s.stride;
        L["first_miss_entries"] = sl.missing_slots;
        L["reach_bytes"] = nullptr;
        L["reach_note"] = "one stride: each slot counted as an entry of its own (the reach at most the stride); "
                          "a sweep over strides tells the reach";
        L["coverage_bytes"] = entries * page;
        L["miss_penalty_cycles"] = sl.penalty;
        L["miss_latency_cycles"] = sl.miss_latency;
        L["complete"] = sl.stair.complete;
        if (sl.missing_slots - entries > 1) {
          L["entries_resolution"] = sl.missing_slots - entries;
          conf *= 0.8;
        }
        add_sets(L, sl, s.unit_steps, entries, notes, conf, found.size() + 1);
        if (sl.from_means && !std::isnan(sl.share_at_double) && sl.share_at_double <= 0.8) {
          // A random order's misses rising gradually: slots share entries (so
          // no sets either: they would count slots).
          L["entries"] = nullptr;
          L["sets"] = nullptr;
          L["set_sizes"] = nullptr;
          L["associativity"] = "undetermined";
          L["share_missing_to_twice_coverage"] = sl.share_at_double;
          L["reach_note"] = "past the knee only " + stats::percent(sl.share_at_double) +
                            " of the accesses miss up to twice its footprint: slots share entries, so an entry "
                            "reaches beyond the stride; the coverage holds, entries and reach need a sweep over strides";
        }
        if (L.contains("slots_per_entry") && L["slots_per_entry"].get<std::uint64_t>() > 1) {
          L["reach_bytes"] = L["slots_per_entry"].get<std::uint64_t>() * page;
          L.erase("reach_note");
        }
        found.emplace_back(entries * s.stride, std::move(L));
      }
    }
    std::stable_sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    nlohmann::json levels = nlohmann::json::array();
    for (auto& [fp, L] : found) levels.push_back(std::move(L));
    const Series& largest = *std::max_element(series.begin(), series.end(),
                                              [](const Series& a, const Series& b) { return a.max_size < b.max_size; });
    if (levels.empty()) return nothing_found(largest, rejected, ev);
    f.details["stride_bytes"] = series.front().stride;
    return with_levels(std::move(f), std::move(levels), page_param, notes, ev, conf, outliers);
  }

  // What a finding with levels holds whichever way the series were read.
  static Finding with_levels(Finding f, nlohmann::json levels, double page_param, const std::vector<std::string>& notes,
                             const nlohmann::json& ev, double conf, double outliers) {
    f.value = levels.size();
    f.summary = summary(levels);
    f.details["levels"] = std::move(levels);
    if (page_param > 0) f.details["page_bytes"] = static_cast<std::uint64_t>(page_param);
    f.details["scope_note"] = kScopeNote;
    if (!notes.empty()) f.details["notes"] = notes;
    f.evidence["series"] = ev;
    f.confidence = conf * (1 - std::min(0.5, outliers));
    return f;
  }

  // Series at several strides (a footprint sweep): each level where it first
  // appears, its coverage narrowed by the strides that see it at the same
  // footprint, its span from those that see it past (stats/tlb_footprint).
  Finding combined(const std::vector<Series>& series, double page_param) const {
    std::vector<std::string> notes, rejected;
    nlohmann::json ev = nlohmann::json::array();
    double conf = 1, outliers = 0;
    std::vector<stats::StrideKnee> knees;
    std::vector<const SeriesLevel*> by_tag;
    for (const auto& s : series) {
      notes.insert(notes.end(), s.notes.begin(), s.notes.end());
      rejected.insert(rejected.end(), s.rejected.begin(), s.rejected.end());
      ev.push_back(s.evidence);
      outliers = std::max(outliers, s.outlier_share);
      for (const auto& sl : s.levels) {
        stats::StrideKnee k{sl.stride, sl.clean_slots, sl.missing_slots, sl.penalty, sl.from_means};
        k.share_at_double = sl.share_at_double;
        k.tag = by_tag.size();
        knees.push_back(k);
        by_tag.push_back(&sl);
      }
    }
    const auto found = stats::footprint_levels(knees, notes);
    nlohmann::json levels = nlohmann::json::array();
    for (const auto& F : found) {
      nlohmann::json L = F.to_json();
      std::vector<double> latencies;
      for (const auto& k : F.at_coverage) latencies.push_back(by_tag[k.tag]->miss_latency);
      L["miss_penalty_cycles"] = F.penalty;
      L["miss_latency_cycles"] = stats::median(latencies);
      if (F.coverage_lo == F.coverage_hi) L["coverage_bytes"] = F.coverage_lo;
      else L["coverage_bytes"] = nullptr;
      // The span: the largest stride at the coverage when the next stride up
      // (twice it) sees the level past it.
      std::uint64_t span_pow2 = 1;
      while (span_pow2 * 2 <= F.span_lo) span_pow2 *= 2;
      if (F.span_hi > 0 && F.span_hi / 2 <= F.span_lo) {
        L["span_bytes"] = span_pow2;
      } else {
        L["span_bytes"] = nullptr;
      }
      L["entries"] = nullptr;
      L["reach_bytes"] = nullptr;
      L["sets"] = nullptr;
      L["set_sizes"] = nullptr;
      L["associativity"] = "undetermined";
      L["note"] = "fully associative: entries = the slots past the span, reach = the span; S sets indexed by entry: "
                  "span = S x reach, the slots past it the ways. The stage method at the page tells which "
                  "(one slot at a time: the topology's tlb_sets step)";
      // Below the span, slots that share an entry (reach = span) make a random
      // order's misses rise gradually (about half at twice the coverage);
      // slots with entries of their own (S sets of a reach below the span)
      // all miss once every set is full.
      if (L["span_bytes"].is_number() && !std::isnan(F.share_below_span)) {
        // One set of the slots past the span must hold the coverage: entries x span
        // inside its bracket.
        const bool holds = F.span_slots_lo * span_pow2 <= F.coverage_hi && F.coverage_lo <= F.span_slots_hi * span_pow2;
        if (F.share_below_span <= 0.8 && !holds) {
          L["note"] = "at half the span slots share entries, but the slots past the span x the span (" +
                      format_bytes(F.span_slots_lo * span_pow2) + " .. " + format_bytes(F.span_slots_hi * span_pow2) +
                      ") miss the coverage: associativity undetermined";
        } else if (F.share_below_span <= 0.8) {
          L["reach_bytes"] = L["span_bytes"];
          L["associativity"] = "full";
          L["sets"] = 1;
          if (F.span_slots_lo == F.span_slots_hi) L["entries"] = F.span_slots_lo;
          else L["entries_range"] = {F.span_slots_lo, F.span_slots_hi};
          L["note"] = "at half the span, " + stats::percent(F.share_below_span) +
                      " of the accesses miss up to twice the coverage: slots there share entries (a random order "
                      "finds some held), so an entry reaches the span and the level is one set of the slots past it";
        } else if (F.share_below_span >= 0.95) {
          // Every slot with an entry of its own misses every access past the coverage,
          // up to the points' noise; a share a little below it is a penalty the
          // page-by-page reading underestimated as often as sets.
          L["associativity"] = "set-associative";
          L["note"] = "at half the span, " + stats::percent(F.share_below_span) +
                      " of the accesses miss up to twice the coverage: every slot there has an entry of its own, so the "
                      "span is sets x reach; the stage method at the page tells the sets";
        }
      }
      if (page_param > 0) {
        const auto page = static_cast<std::uint64_t>(page_param);
        L["entries_if_one_page_each_range"] = {F.coverage_lo / page, F.coverage_hi / page};
      }
      levels.push_back(std::move(L));
    }
    if (levels.empty()) return nothing_found(*std::max_element(series.begin(), series.end(),
                                                                [](const Series& a, const Series& b) {
                                                                  return a.max_size < b.max_size;
                                                                }),
                                             rejected, ev);
    Finding f;
    f.analyzer = name();
    f.unit = "levels";
    std::vector<std::uint64_t> strides;
    for (const auto& s : series) strides.push_back(s.stride);
    f.details["strides_bytes"] = strides;
    return with_levels(std::move(f), std::move(levels), page_param, notes, ev, conf, outliers);
  }

  Finding nothing_found(const Series& s, const std::vector<std::string>& rejected, const nlohmann::json& ev) const {
    std::uint64_t page = 1;
    while (page * 2 <= s.stride) page *= 2;
    std::string why = "no TLB miss seen up to N = " + format_bytes(s.max_size) + " (" + std::to_string(s.max_pages) +
                      " pages of " + format_bytes(page) +
                      "): every page hits the TLB level it hits at the smallest N, whose reach exceeds the sweep";
    if (!rejected.empty()) {
      why += "; rejected:";
      for (const auto& r : rejected) why += " " + r + ";";
      why.pop_back();
    }
    Finding f = stats::undetermined(name(), "levels", why);
    f.details["max_size_bytes"] = s.max_size;
    f.details["pages"] = s.max_pages;
    f.details["page_bytes"] = page;
    if (!rejected.empty()) f.details["rejected_levels"] = rejected;
    f.evidence["series"] = ev;
    return f;
  }

  static std::string summary(const nlohmann::json& levels) {
    std::string s = std::to_string(levels.size()) + " TLB level" + (levels.size() == 1 ? "" : "s") + ":";
    std::size_t i = 0;
    for (const auto& L : levels) {
      std::vector<std::string> parts;
      if (L.contains("entries") && L["entries"].is_number())
        parts.push_back(std::to_string(L["entries"].get<std::uint64_t>()) + " entries");
      if (L.contains("reach_bytes") && L["reach_bytes"].is_number())
        parts.push_back(format_bytes(L["reach_bytes"].get<std::uint64_t>()) + " each");
      if (L.contains("coverage_bytes") && L["coverage_bytes"].is_number())
        parts.push_back("covering " + format_bytes(L["coverage_bytes"].get<std::uint64_t>()));
      else if (L.contains("coverage_range_bytes"))
        parts.push_back("covering " + format_bytes(L["coverage_range_bytes"][0].get<std::uint64_t>()) + " .. " +
                        format_bytes(L["coverage_range_bytes"][1].get<std::uint64_t>()));
      if (L.contains("span_bytes") && L["span_bytes"].is_number())
        parts.push_back("span " + format_bytes(L["span_bytes"].get<std::uint64_t>()));
      parts.push_back("+" + stats::fmt(L["miss_penalty_cycles"].get<double>()) + " cycles on miss");
      if (L.contains("sets") && L["sets"].is_number()) {
        const auto n = L["sets"].get<std::size_t>();
        parts.push_back(n == 1 ? "fully associative" : std::to_string(n) + " sets");
      }
      ++i;
      s += (i == 1 ? " L" : "; L") + std::to_string(i) + ":";
      for (std::size_t k = 0; k < parts.size(); ++k) s += (k == 0 ? " " : ", ") + parts[k];
    }
    return s;
  }

  static constexpr const char* kScopeNote =
      "per SM or shared between SMs: not read from one SM's chase; the tlb_scope analyzer reads it from several SMs "
      "chasing arrays of their own at once (layout.array per_block; the topology's tlb_scope step)";
};

}  // namespace

std::unique_ptr<Analyzer> make_tlb_analyzer() { return std::make_unique<TlbAnalyzer>(); }

}  // namespace dissect
