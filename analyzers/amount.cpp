// amount: how many caches of a kind one SM has (seed 004 §4.6). Thread 0 and a
// test thread in another warp each warm an array smaller than one cache, then
// thread 0 measures its own: misses mean the test warp uses thread 0's cache.
// Over test warps 1..W, S of them disturb warp 0: the warps split over
// (W + 1) / (S + 1) caches (Maxwell texture: 2, Kepler: 4, Turing/Hopper: 1).
#include <algorithm>
#include <cmath>
#include <map>
#include <regex>

#include "analyzers/analyzer.hpp"
#include "analyzers/stats/chase.hpp"
#include "analyzers/stats/disturbance.hpp"
#include "analyzers/stats/knee.hpp"
#include "analyzers/stats/levels.hpp"
#include "analyzers/stats/report.hpp"

namespace dissect {
namespace {

struct AmountPoint {
  const PointTrace* point = nullptr;
  long test_thread = -1;
  std::vector<const Sample*> measured;   // thread 0's last measure phase
  std::vector<const Sample*> reference;  // its first measure phase, if there are two
  bool disturbed = false;
  double miss_rate = 0;
};

long test_thread_of(const PointTrace& p, std::size_t fallback) {
  static const std::regex re(R"(phases\.(\d+)\.thread=(\d+))");
  const std::string axes = p.param("axes");
  std::smatch m;
  if (std::regex_search(axes, m, re)) return std::stol(m[2]);
  return static_cast<long>(fallback);
}

class AmountAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "amount"; }
  std::string purpose() const override {
    return "caches of a kind per SM: which test warps disturb warp 0's cache (phases, test thread swept)";
  }
  std::vector<AnalyzerParam> params() const override {
    return {{"warp_size", "32", "threads per warp"}, {"base_thread", "0", "the thread that measures"}};
  }
  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const override {
    const auto warp = static_cast<long>(params.number("warp_size", 32));
    const auto base = static_cast<std::uint32_t>(params.number("base_thread", 0));
    std::vector<AmountPoint> pts;
    for (const auto& p : traces.points) {
      if (p.param("kernel") != "phases" || p.samples.empty()) continue;
      AmountPoint a;
      a.point = &p;
      a.test_thread = test_thread_of(p, pts.size() + 1);
      std::vector<stats::Chase> mine;
      const std::uint64_t threads = std::max<std::uint64_t>(1, p.param_u64("threads", 1u << 30));
      for (auto& c : stats::chases_of(p))
        if (c.thread % threads == base) mine.push_back(std::move(c));
      if (mine.empty()) continue;
      a.measured = mine.back().samples;
      if (mine.size() >= 2) a.reference = mine.front().samples;
      pts.push_back(std::move(a));
    }
    if (pts.size() < 2)
      return {stats::undetermined(name(), "caches",
                                  "needs a phases series over the test thread (at least two test warps)")};
    // Disturbed: against a per-point reference when there is one, else against
    // the least-missing test warp, all labelled by one pooled level model.
    std::vector<double> pool;
    for (const auto& a : pts) {
      const auto l = stats::latencies(a.measured, 20000);
      pool.insert(pool.end(), l.begin(), l.end());
    }
    stats::LevelOptions lo;
    lo.min_share = 1e-4;  // with min_count: a few slow samples can be a level; the tests decide
    const stats::LevelModel m = stats::cluster_levels(pool, lo);
    const int hit = stats::hit_level(m, 0.02);
    const double hit_latency = m.levels.empty() ? 0 : m.levels[static_cast<std::size_t>(hit)].median;
    double hit_top = hit_latency;
    for (std::size_t c = static_cast<std::size_t>(hit); c < m.levels.size(); ++c)
      if (m.levels[c].median <= 1.25 * hit_latency) hit_top = std::max(hit_top, m.levels[c].fence_hi);
    std::vector<std::uint64_t> k(pts.size()), n(pts.size());
    for (std::size_t i = 0; i < pts.size(); ++i) {
      for (const Sample* s : pts[i].measured) {
        const int c = m.classify(s->latency);
        if ((c >= 0 && c < hit) || (c < 0 && s->latency < hit_latency)) continue;
        ++n[i];
        k[i] += s->latency > hit_top ? 1 : 0;
      }
      pts[i].miss_rate = n[i] ? static_cast<double>(k[i]) / static_cast<double>(n[i]) : 0;
    }
    const bool with_reference =
        std::all_of(pts.begin(), pts.end(), [](const AmountPoint& a) { return !a.reference.empty(); });
    double base_rate = 1;
    for (const auto& a : pts) base_rate = std::min(base_rate, a.miss_rate);
    nlohmann::json table = nlohmann::json::array();
    std::size_t disturbed = 0;
    for (std::size_t i = 0; i < pts.size(); ++i) {
      auto& a = pts[i];
      if (with_reference) {
        const auto d = stats::compare_to_reference(a.reference, a.measured, "first measure phase");
        a.disturbed = d.disturbed;
      } else {
        a.disturbed = stats::exceeds_baseline(k[i], n[i], base_rate);
      }
      disturbed += a.disturbed ? 1 : 0;
      table.push_back({{"point_id", a.point->point_id}, {"test_thread", a.test_thread},
                       {"test_warp", a.test_thread / warp}, {"miss_share", a.miss_rate}, {"disturbed", a.disturbed}});
    }
    Finding f;
    f.analyzer = name();
    f.unit = "caches";
    f.evidence["points"] = table;
    f.evidence["levels"] = m.to_json();
    f.evidence["reference"] = with_reference ? "a measure phase before the test thread's warm-up, per point"
                                             : "the least-missing test warp";
    const std::size_t w = pts.size();
    if (!with_reference && disturbed == 0) {
      // Every test warp behaves alike: all share warp 0's cache, or none does.
      Finding u = stats::undetermined(
          name(), "caches",
          "every test warp affects warp 0 alike (miss share " + stats::percent(base_rate) +
              "): either all share its cache (1 cache) or none does; a reference measure phase before the test "
              "warm-up decides");
      u.evidence = f.evidence;
      return {u};
    }
    if (disturbed == 0) {
      // No warp disturbs warp 0: every warp its own cache, or (far likelier)
      // the two arrays fit one cache together.
      Finding u = stats::undetermined(
          name(), "caches",
          "no test warp disturbs warp 0: either each of the " + std::to_string(w + 1) +
              " warps has its own cache, or the two arrays fit one cache together (make each a bit smaller than "
              "one cache, together larger)");
      u.details["lower_bound"] = w + 1;
      u.evidence = f.evidence;
      return {u};
    }
    const double caches = static_cast<double>(w + 1) / static_cast<double>(disturbed + 1);
    const auto rounded = static_cast<std::uint64_t>(std::llround(caches));
    // Pattern check: the disturbing warps should be those with warp % caches == 0.
    std::size_t agree = 0;
    for (const auto& a : pts) {
      const bool expect = rounded > 0 && (a.test_thread / warp) % static_cast<long>(rounded) == 0;
      agree += expect == a.disturbed ? 1 : 0;
    }
    f.value = rounded;
    f.details["caches"] = rounded;
    f.details["caches_exact"] = caches;
    f.details["test_warps"] = w;
    f.details["sharing_warps"] = disturbed;
    f.details["pattern_agreement"] = static_cast<double>(agree) / static_cast<double>(w);
    f.confidence = static_cast<double>(agree) / static_cast<double>(w) *
                   (std::fabs(caches - static_cast<double>(rounded)) < 0.05 ? 1.0 : 0.6);
    f.summary = std::to_string(rounded) + " cache" + (rounded == 1 ? "" : "s") + " per SM: " +
                std::to_string(disturbed) + " of " + std::to_string(w) + " test warps disturb warp 0";
    return {f};
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_amount_analyzer() { return std::make_unique<AmountAnalyzer>(); }

}  // namespace dissect
