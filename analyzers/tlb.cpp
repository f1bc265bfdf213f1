// tlb: TLB levels from a chase whose stride is at least the page size, N
// growing (seeds 000 §4.4, 003 §4.2). Every access touches a new page, so the
// latency levels above the hit level are TLB misses: level j's entries are the
// most pages touched without any access at level >= j; past that, the
// staircase of pages missing level j (stage method, one page per step) gives
// the sets and their sizes (unequal sets: seed 003 Fig. 10-11).
#include <algorithm>
#include <cmath>

#include "analyzers/analyzer.hpp"
#include "analyzers/stats/chase.hpp"
#include "analyzers/stats/quantiles.hpp"
#include "analyzers/stats/report.hpp"
#include "analyzers/stats/staircase.hpp"
#include "analyzers/stats/sweep_groups.hpp"
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

class TlbAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "tlb"; }
  std::string purpose() const override {
    return "TLB levels (entries, coverage, miss penalty, sets and set sizes) from a page-stride chase over growing N";
  }
  std::vector<AnalyzerParam> params() const override {
    return {{"min_stride", "32768", "series with a smaller stride are not TLB experiments"},
            {"page_bytes", "", "page size (default: the largest power of two not above the stride)"}};
  }
  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const override {
    const auto min_stride = static_cast<std::uint64_t>(params.number("min_stride", 32768));
    auto groups = stats::group_points(traces, "size_bytes", [&](const PointTrace& p) {
      return p.param("kernel", "pchase") == "pchase" && p.stride_bytes() >= min_stride;
    });
    std::vector<Finding> ok, failed;
    for (const auto& g : groups) {
      if (g.points.size() < 3) continue;
      Finding f = analyze_group(g, params);
      (f.value.is_null() ? failed : ok).push_back(std::move(f));
    }
    if (!ok.empty()) return ok;
    if (!failed.empty()) return {failed.front()};
    return {stats::undetermined(name(), "levels",
                                "no series over N with a stride of at least " + format_bytes(min_stride) +
                                    " (tlb needs s >= page size and N growing)")};
  }

 private:
  Finding analyze_group(const stats::SweepGroup& g, const AnalyzerParams& params) const {
    const std::uint64_t stride = g.points.front()->stride_bytes();
    // Page: given, else the largest power of two not above the stride (a
    // stride of one page plus a line spreads the data over cache sets).
    std::uint64_t pow2 = 1;
    while (pow2 * 2 <= stride) pow2 *= 2;
    const std::uint64_t page = params.number("page_bytes", 0) > 0
                                   ? static_cast<std::uint64_t>(params.number("page_bytes", 0))
                                   : pow2;
    // Each page's latency: its median over the rounds (a TLB miss penalty of a
    // few cycles stands out of per-sample jitter once averaged; an outlier
    // does not move a median). The first round is left out when there are
    // three or more (a warm-up that did not warm).
    struct PagePoint {
      std::uint64_t size = 0;
      std::vector<std::uint64_t> offsets;
      std::vector<double> median;
      std::size_t rounds = 0;
    };
    std::vector<PagePoint> pp;
    std::vector<double> pool;
    for (const auto* p : g.points) {
      const auto c = stats::main_chase(*p);
      PagePoint q;
      q.size = p->size_bytes();
      const std::size_t period = std::max<std::size_t>(1, c.period);
      const std::size_t rounds = (c.samples.size() + period - 1) / period;
      const std::size_t skip = rounds >= 3 ? period : 0;
      std::vector<std::vector<double>> by_pos(period);
      q.offsets.assign(period, 0);
      for (std::size_t i = 0; i < c.samples.size(); ++i) {
        const std::size_t pos = i % period;
        if (i < period) q.offsets[pos] = c.samples[i]->offset_bytes;
        if (i >= skip) by_pos[pos].push_back(c.samples[i]->latency);
      }
      for (auto& v : by_pos) q.median.push_back(v.empty() ? std::nan("") : stats::median(v));
      q.rounds = rounds;
      pool.insert(pool.end(), q.median.begin(), q.median.end());
      pp.push_back(std::move(q));
    }
    stats::LevelOptions lo;
    lo.min_share = std::max(1e-4, 2.0 / static_cast<double>(std::max<std::size_t>(1, pool.size())));
    lo.min_count = 2;
    const stats::LevelModel model = stats::cluster_levels(pool, lo);
    int hit = stats::dominant_level(model, pp.front().median);
    if (hit < 0) hit = 0;
    const int above = static_cast<int>(model.levels.size()) - 1 - hit;
    nlohmann::json ev;
    ev["series"] = g.to_json();
    ev["levels_of_page_medians"] = model.to_json();
    ev["hit_level"] = hit;
    ev["method"] = "per-page median latency over the rounds, clustered into levels; one staircase per level";
    nlohmann::json levels = nlohmann::json::array();
    nlohmann::json stairs = nlohmann::json::array();
    double conf = 1;
    std::uint64_t prev_entries = 0;
    std::vector<std::string> notes, rejected;
    for (int j = 1; j <= above; ++j) {
      // Pages whose median latency lies at level j or slower.
      std::vector<stats::StairPoint> sp;
      for (const auto& q : pp) {
        stats::StairPoint s;
        s.size_bytes = q.size;
        s.units = q.median.size();
        for (std::size_t k = 0; k < q.median.size(); ++k)
          if (model.classify(q.median[k]) >= hit + j) s.missing.push_back(q.offsets[k] / stride);
        sp.push_back(std::move(s));
      }
      const stats::Staircase st = stats::stage_staircase(sp, stride);
      stairs.push_back({{"level", j}, {"table", st.table}, {"reason", st.reason}, {"step_fit_errors", st.fit_errors}});
      if (!st.ok) {
        if (st.reason.find("already misses") != std::string::npos) {
          notes.push_back("latency level " + std::to_string(j) + " above the hit level misses already at the smallest N");
          conf *= 0.5;
        }
        continue;  // this level never decides an access, or its staircase cannot be read
      }
      std::size_t grouped = 0;
      for (auto s : st.set_sizes) grouped += s;
      if (grouped < 2) continue;  // a stray position, not a TLB level
      // A TLB level is a staircase: a page that starts missing it keeps missing
      // at every larger N (the level holds fewer pages than the chase cycles
      // through). Latency levels of the data path (L2 near/far partitions, a
      // page's physical placement that changes from point to point) make pages
      // slow at one N and fast at the next: a wobble, not a level.
      const std::string level_label =
          "latency level " + std::to_string(j) + " (+" +
          stats::fmt(model.levels[static_cast<std::size_t>(hit + j)].median -
                     model.levels[static_cast<std::size_t>(hit + j - 1)].median) +
          " cycles)";
      const auto wobble = persistence(sp, st, stride);
      stairs.back()["persistence"] = wobble.to_json();
      if (!wobble.persistent()) {
        notes.push_back(level_label + " is not a staircase: " + wobble.why());
        rejected.push_back(notes.back());
        continue;
      }
      if (const double rise = slow_share_rise(sp, st.capacity_bytes); rise < 0.25) {
        notes.push_back(level_label + " is not a TLB level: past the step at " + format_bytes(st.capacity_bytes) +
                        " the share of slow pages grows by only " + stats::percent(std::max(0.0, rise)) +
                        " (a TLB out of entries makes most pages miss well past its reach)");
        rejected.push_back(notes.back());
        continue;
      }
      const std::uint64_t entries = st.capacity_bytes / stride;
      if (entries <= prev_entries && !levels.empty()) {
        // The same capacity again: the TLB level already found, seen through
        // another latency level of the data path (a page homed in the far L2
        // partition misses the TLB at the same N, some cycles slower).
        notes.push_back("latency level " + std::to_string(j) + " runs out at " + std::to_string(entries) +
                        " pages like the TLB level before it: the same level through another data-path latency");
        continue;
      }
      std::uint64_t next = entries;
      for (const auto& s : sp)
        if (s.size_bytes > st.capacity_bytes) {
          next = s.size_bytes / stride;
          break;
        }
      const auto& lv = model.levels[static_cast<std::size_t>(hit + j)];
      const auto& lp = model.levels[static_cast<std::size_t>(hit + j - 1)];
      nlohmann::json L;
      L["entries"] = entries;
      L["coverage_bytes"] = entries * page;
      L["miss_penalty_cycles"] = lv.median - lp.median;
      L["miss_latency_cycles"] = lv.median;
      L["first_miss_entries"] = next;
      if (st.unit_steps) {
        L["sets"] = st.sets;
        L["set_sizes"] = st.set_sizes;
        L["associativity"] = st.sets == 1 ? "full" : "set-associative";
        L["complete"] = st.complete;
        std::size_t sum = 0;
        for (auto s : st.set_sizes) sum += s;
        if (!st.complete) {
          conf *= 0.6;
          notes.push_back("TLB level " + std::to_string(levels.size() + 1) + ": the sweep ends before every page misses (" +
                          std::to_string(st.never_missing) + " never do): at least " + std::to_string(st.sets) +
                          " sets");
        } else if (sum != entries) {
          conf *= 0.6;
          notes.push_back("TLB level " + std::to_string(levels.size() + 1) + ": set sizes add up to " +
                          std::to_string(sum) + ", not " + std::to_string(entries) + " entries");
        }
      } else {
        L["sets"] = nullptr;
        L["set_sizes"] = nullptr;
        notes.push_back("TLB level " + std::to_string(levels.size() + 1) +
                        ": the sweep does not step one page at a time past the knee (sets unknown)");
      }
      if (next - entries > 1) {
        conf *= 0.8;
        L["entries_resolution"] = next - entries;
      }
      if (entries <= prev_entries) notes.push_back("TLB level entries do not grow with the level");
      prev_entries = entries;
      levels.push_back(L);
    }
    ev["staircases"] = stairs;
    if (levels.empty()) {
      std::string why = "no TLB miss seen up to N = " + format_bytes(g.points.back()->size_bytes()) + " (" +
                        std::to_string(pp.back().median.size()) + " pages of " + format_bytes(page) +
                        "): every page hits the TLB level it hits at the smallest N, whose reach exceeds the sweep";
      if (!rejected.empty()) {
        why += "; rejected:";
        for (const auto& r : rejected) why += " " + r + ";";
        why.pop_back();
      }
      Finding f = stats::undetermined(name(), "levels", why);
      f.details["max_size_bytes"] = g.points.back()->size_bytes();
      f.details["pages"] = pp.back().median.size();
      f.details["page_bytes"] = page;
      if (!rejected.empty()) f.details["rejected_levels"] = rejected;
      f.evidence = ev;
      return f;
    }
    Finding f;
    f.analyzer = name();
    f.unit = "levels";
    f.value = levels.size();
    f.details["levels"] = levels;
    f.details["page_bytes"] = page;
    f.details["stride_bytes"] = stride;
    if (!notes.empty()) f.details["notes"] = notes;
    f.evidence = ev;
    f.confidence = conf * (1 - std::min(0.5, model.outlier_share()));
    std::string s = std::to_string(levels.size()) + " TLB level" + (levels.size() == 1 ? "" : "s") + ":";
    for (const auto& L : levels) {
      s += " " + std::to_string(L["entries"].get<std::uint64_t>()) + " entries (" +
           format_bytes(L["coverage_bytes"].get<std::uint64_t>()) + ", +" +
           stats::fmt(L["miss_penalty_cycles"].get<double>()) + " cycles on miss";
      if (L["sets"].is_number()) s += ", " + std::to_string(L["sets"].get<std::size_t>()) + " sets";
      s += ")";
    }
    f.summary = s;
    return f;
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_tlb_analyzer() { return std::make_unique<TlbAnalyzer>(); }

}  // namespace dissect
