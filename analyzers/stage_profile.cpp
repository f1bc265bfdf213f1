// stage_profile: what a stage sweep (s = b, N = C + k b; seed 003 §3.2 (3)) shows
// past the capacity, whatever the policy and the index, for caches the sets
// analyzer cannot explain (a policy other than LRU, a hashed index):
//   - the largest N that never misses, and the first that does;
//   - which points are aperiodic: lines that miss in some passes and hit in others
//     (an LRU or FIFO cache under a cyclic chase misses the same lines every pass);
//   - whether the missed lines obey the inclusion property of LRU, a stack
//     algorithm: a line that misses at N misses at every larger N;
//   - plateaus: as many lines missing while N grows;
//   - the aligned blocks lines miss in (none for a modulo index, whose sets overflow
//     one at a time; k where k consecutive lines share a set or are replaced together);
//   - how many more lines miss per extra line at the end of the sweep.
// Each item is a measurement with the points behind it; nothing here names sets or ways.
#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "analyzers/analyzer.hpp"
#include "analyzers/stats/periodicity.hpp"
#include "analyzers/stats/report.hpp"
#include "analyzers/stats/stage_grids.hpp"
#include "analyzers/stats/sweep_groups.hpp"
#include "engine/spec/units.hpp"

namespace dissect {
namespace {

struct StagePoint {
  const PointTrace* point = nullptr;
  std::uint64_t lines = 0;               // positions per pass
  // Lines that miss beyond noise in two rounds or more, ascending: a single slow sample
  // (a glitch) moves no figure read from them (inclusion, plateaus, blocks).
  std::vector<std::uint64_t> missing;
  std::uint64_t miss_samples = 0;        // misses of the lines that miss beyond noise

  double misses_per_pass = 0;
  bool periodic = true;                  // no more mixed positions than noise explains
  std::size_t mixed = 0;
};

// Consecutive point indices with a property, as [first, last] index pairs.
std::vector<std::pair<std::size_t, std::size_t>> runs_of(const std::vector<bool>& flag) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t i = 0; i < flag.size(); ++i) {
    if (!flag[i]) continue;
    if (!out.empty() && out.back().second + 1 == i) out.back().second = i;
    else out.emplace_back(i, i);
  }
  return out;
}

// The largest block of lines the missed lines of a point come in, aligned: the greatest
// common divisor of the starts and lengths of its runs of consecutive missed lines (1 when
// lines miss singly, as the sets of a modulo index overflow one at a time), and of 64 (a
// run from line 0 has gcd(0, L) = L: larger blocks are not told apart). A run that ends
// at the array's last line is left out: the end of the array may cut its block. 0: no
// run to read.
std::uint64_t run_gcd(const StagePoint& p) {
  std::uint64_t g = 0;
  const auto& m = p.missing;
  for (std::size_t i = 0; i < m.size();) {
    std::size_t j = i + 1;
    while (j < m.size() && m[j] == m[j - 1] + 1) ++j;
    if (m[j - 1] + 1 < p.lines) g = std::gcd(g, std::gcd(m[i], static_cast<std::uint64_t>(j - i)));
    i = j;
  }
  return g == 0 ? 0 : std::gcd(g, std::uint64_t{64});
}

// Passes every position of the chase was labelled in (a pass cut short is no pass).
std::size_t complete_passes(const stats::PassGrid& grid) {
  std::size_t least = grid.passes();
  for (const auto& ps : grid.positions()) least = std::min<std::size_t>(least, ps.hits + ps.misses + ps.unknown);
  return least;
}

class StageProfileAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "stage_profile"; }
  std::string purpose() const override {
    return "past the capacity of a stage sweep (s = b, N = C + k*b): first misses, aperiodic points, LRU's "
           "inclusion property, plateaus, the blocks lines miss in, misses per extra line";
  }
  std::vector<AnalyzerParam> params() const override {
    return {{"noise", "1e-4", "least per-sample misclassification rate assumed (the smallest N's miss rate raises it)"},
            {"alpha", "1e-3", "test level for a point with more mixed positions than noise explains"}};
  }
  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const override {
    auto groups = stats::group_points(traces, "size_bytes", [](const PointTrace& p) {
      return p.param("kernel", "pchase") == "pchase" && p.stride_bytes() > 0;
    });
    std::vector<Finding> ok, failed;
    for (const auto& g : groups) {
      if (g.points.size() < 3) continue;
      Finding f = analyze_group(traces, g, params);
      (f.value.is_null() ? failed : ok).push_back(std::move(f));
    }
    // Every series: several strides (the conflict step) each say how many lines fit.
    ok.insert(ok.end(), failed.begin(), failed.end());
    if (!ok.empty()) return ok;
    return {stats::undetermined(name(), "bytes",
                                "no series over N with at least 3 sizes (a stage sweep: N = C + k*b at s = b)")};
  }

 private:
  Finding analyze_group(const TraceSet& traces, const stats::SweepGroup& g, const AnalyzerParams& params) const {
    const double alpha = params.number("alpha", 1e-3);
    const std::uint64_t stride = g.points.front()->stride_bytes();
    const auto shared = stats::shared_stage_grids(traces, g, params.number("noise", 1e-4));
    const stats::StageGrids& sg = *shared;
    const auto repeated =
        std::count_if(sg.grids.begin(), sg.grids.end(), [](const auto& x) { return complete_passes(x) >= 2; });
    if (repeated < 3)
      return stats::undetermined(name(), "bytes",
                                 "fewer than 3 points with two passes or more (iterations must exceed N / s)" +
                                     stats::label_suffix(g));
    if (sg.noise > 0.01)
      return stats::undetermined(name(), "bytes",
                                 "the smallest N (" + format_bytes(g.points.front()->size_bytes()) +
                                     ") already misses on " + stats::fmt(100 * sg.noise) +
                                     "% of its accesses: the sweep must start at or below the capacity, undisturbed "
                                     "(timing.mode on_chip keeps samples on the SM)" + stats::label_suffix(g));
    std::vector<StagePoint> pts;
    for (std::size_t i = 0; i < g.points.size(); ++i) {
      const auto& grid = sg.grids[i];
      if (complete_passes(grid) < 2) continue;  // one pass tells nothing about repetition
      StagePoint p;
      p.point = g.points[i];
      const auto pos = grid.positions();
      p.lines = pos.size();
      for (auto j : stats::missing_positions(pos, sg.noise, 0.01, false)) {
        p.miss_samples += pos[j].misses;
        if (pos[j].misses >= 2) p.missing.push_back(pos[j].offset / stride);
      }
      std::sort(p.missing.begin(), p.missing.end());
      p.misses_per_pass = grid.misses_per_pass();
      const auto agg = stats::aggregate_mixed_test(pos, sg.noise);
      p.mixed = agg.mixed;
      p.periodic = agg.p >= alpha;
      pts.push_back(std::move(p));
    }
    // The first point that misses: two misses or more beyond noise (one slow sample is not one).
    std::size_t first = 0;
    while (first < pts.size() && pts[first].miss_samples < 2) ++first;
    if (first == pts.size()) {
      Finding u = stats::undetermined(name(), "bytes",
                                      "no point misses: the sweep ends at or below the capacity (" +
                                          std::to_string(pts.back().lines) + " lines, " +
                                          format_bytes(pts.back().point->size_bytes()) + ")" + stats::label_suffix(g));
      u.details["clean_lines_at_least"] = pts.back().lines;
      u.details["line_bytes"] = stride;
      return u;
    }
    if (first == 0)
      return stats::undetermined(name(), "bytes",
                                 "the smallest N with two passes (" + format_bytes(pts.front().point->size_bytes()) +
                                     ") already misses: no clean capacity to start from" + stats::label_suffix(g));
    // Past the capacity only.
    std::vector<const StagePoint*> past;
    for (std::size_t i = first; i < pts.size(); ++i) past.push_back(&pts[i]);
    auto lines_of = [](const StagePoint* p) { return p->lines; };

    // Aperiodic points, as ranges of N.
    std::vector<bool> aperiodic(past.size());
    for (std::size_t i = 0; i < past.size(); ++i) aperiodic[i] = !past[i]->periodic;
    nlohmann::json aperiodic_ranges = nlohmann::json::array();
    std::size_t n_aperiodic = 0;
    for (auto [a, b] : runs_of(aperiodic)) {
      aperiodic_ranges.push_back({lines_of(past[a]), lines_of(past[b])});
      n_aperiodic += b - a + 1;
    }
    // Inclusion (LRU is a stack algorithm): between consecutive periodic points, every line
    // missing at the smaller N misses at the larger one too.
    std::size_t inclusion_pairs = 0, inclusion_broken = 0;
    for (std::size_t i = 0; i + 1 < past.size(); ++i) {
      if (aperiodic[i] || aperiodic[i + 1]) continue;
      ++inclusion_pairs;
      if (!std::includes(past[i + 1]->missing.begin(), past[i + 1]->missing.end(), past[i]->missing.begin(),
                         past[i]->missing.end()))
        ++inclusion_broken;
    }
    // Plateaus: three or more consecutive periodic points that miss as many lines while N
    // grows (the same lines, or others: identical says which).
    nlohmann::json plateaus = nlohmann::json::array();
    for (std::size_t i = 0; i < past.size();) {
      std::size_t j = i;
      bool identical = true;
      while (j + 1 < past.size() && !aperiodic[i] && !aperiodic[j + 1] &&
             past[j + 1]->missing.size() == past[i]->missing.size() && past[i]->missing.size() < past[i]->lines) {
        identical = identical && past[j + 1]->missing == past[i]->missing;
        ++j;
      }
      if (j - i + 1 >= 3)
        plateaus.push_back({{"from_lines", lines_of(past[i])},
                            {"to_lines", lines_of(past[j])},
                            {"missing_lines", past[i]->missing.size()},
                            {"same_lines", identical}});
      i = j + 1;
    }
    // The blocks lines miss in: each periodic point's run_gcd (an aperiodic point mixes the
    // lines of one pass with those of another; a point where every line misses says nothing).
    std::map<std::uint64_t, std::size_t> gcds;
    std::size_t gcd_points = 0;
    for (std::size_t i = 0; i < past.size(); ++i) {
      if (aperiodic[i] || past[i]->missing.size() >= past[i]->lines) continue;
      if (const std::uint64_t k = run_gcd(*past[i]); k > 0) ++gcds[k], ++gcd_points;
    }
    std::uint64_t block = 0;
    std::size_t block_points = 0;
    for (const auto& [k, n] : gcds)
      if (n > block_points) block = k, block_points = n;
    const double block_share = gcd_points == 0 ? 0.0 : static_cast<double>(block_points) / static_cast<double>(gcd_points);
    const bool block_claimed = block > 1 && 3 * block_points >= 2 * gcd_points && block_points >= 3;
    // Misses per extra line at the end of the sweep: the least-squares slope of missed
    // lines over N across the last periodic run of at least 3 points, where no point misses
    // every line (past that, each extra line is one more miss and says nothing).
    nlohmann::json tail = nullptr;
    {
      std::size_t b = past.size();
      while (b > 0 && (aperiodic[b - 1] || past[b - 1]->missing.size() >= past[b - 1]->lines)) --b;
      std::size_t a = b;
      while (a > 0 && !aperiodic[a - 1] && past[a - 1]->missing.size() < past[a - 1]->lines) --a;
      if (b >= a + 3) {
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        const auto n = static_cast<double>(b - a);
        for (std::size_t i = a; i < b; ++i) {
          const auto x = static_cast<double>(past[i]->lines), y = static_cast<double>(past[i]->missing.size());
          sx += x, sy += y, sxx += x * x, sxy += x * y;
        }
        const double den = n * sxx - sx * sx;
        if (den > 0)
          tail = {{"from_lines", lines_of(past[a])},
                  {"to_lines", lines_of(past[b - 1])},
                  {"missed_lines_per_extra_line", (n * sxy - sx * sy) / den}};
      }
    }
    nlohmann::json table = nlohmann::json::array();
    for (const auto& p : pts)
      table.push_back({{"lines", p.lines},
                       {"size_bytes", p.point->size_bytes()},
                       {"missing_lines", p.missing.size()},
                       {"misses_per_pass", p.misses_per_pass},
                       {"mixed_positions", p.mixed},
                       {"periodic", p.periodic}});

    Finding f;
    f.analyzer = name();
    f.unit = "bytes";
    const std::uint64_t clean_lines = pts[first - 1].lines;
    f.value = pts[first - 1].point->size_bytes();
    f.details["clean_lines"] = clean_lines;
    f.details["line_bytes"] = stride;
    f.details["first_miss_lines"] = pts[first].lines;
    f.details["first_miss_per_pass"] = pts[first].misses_per_pass;
    f.details["points_past_capacity"] = past.size();
    f.details["aperiodic_points"] = n_aperiodic;
    f.details["aperiodic_ranges_lines"] = aperiodic_ranges;
    f.details["inclusion_pairs"] = inclusion_pairs;
    f.details["inclusion_broken"] = inclusion_broken;
    f.details["plateaus"] = plateaus;
    {
      nlohmann::json h = nlohmann::json::object();
      for (const auto& [k, n] : gcds) h[std::to_string(k)] = n;
      f.details["miss_run_gcd_points"] = h;  // run_gcd -> periodic points past the capacity
    }
    f.details["miss_block_lines"] = block_claimed ? nlohmann::json(block) : nlohmann::json(nullptr);
    if (block_claimed) f.details["miss_block_share"] = block_share;
    f.details["tail"] = tail;
    f.details["series"] = g.label();
    f.evidence["points"] = table;
    f.evidence["levels"] = sg.model.to_json();
    f.evidence["hit_level"] = sg.hit;
    f.evidence["noise_rate"] = sg.noise;
    // Confidence: the clean capacity is measured one step of the sweep at a time.
    const double step = static_cast<double>(pts[first].lines - clean_lines);
    f.confidence = std::clamp(1.0 / step, 0.3, 1.0);

    std::string s = "clean to " + std::to_string(clean_lines) + " lines of " + format_bytes(stride) + " (" +
                    format_bytes(pts[first - 1].point->size_bytes()) + "); at " + std::to_string(pts[first].lines) +
                    " lines " + stats::fmt(pts[first].misses_per_pass) + " misses per pass";
    if (n_aperiodic > 0) {
      s += "; aperiodic (lines that miss in some passes only) at " + std::to_string(n_aperiodic) + " of " +
           std::to_string(past.size()) + " points past it";
      const auto& r0 = aperiodic_ranges.front();
      s += ", first " + std::to_string(r0[0].get<std::uint64_t>()) + "-" + std::to_string(r0[1].get<std::uint64_t>()) +
           " lines";
    } else {
      s += "; periodic at every point past it";
    }
    if (inclusion_pairs > 0)
      s += inclusion_broken == 0 ? "; missed lines keep missing as N grows (LRU's inclusion property)"
                                 : "; LRU's inclusion property broken at " + std::to_string(inclusion_broken) + " of " +
                                       std::to_string(inclusion_pairs) + " periodic steps";
    if (!plateaus.empty()) {
      const auto& p0 = plateaus.front();
      s += "; " + std::to_string(p0["missing_lines"].get<std::size_t>()) + " lines miss at every N from " +
           std::to_string(p0["from_lines"].get<std::uint64_t>()) + " to " +
           std::to_string(p0["to_lines"].get<std::uint64_t>()) + " lines" +
           (p0["same_lines"].get<bool>() ? " (the same lines)" : " (other lines at each N)");
    }
    if (block_claimed)
      s += "; lines miss in aligned blocks of " + std::to_string(block) + " (" + format_bytes(block * stride) + ") at " +
           std::to_string(block_points) + " of " + std::to_string(gcd_points) + " periodic points";
    if (!tail.is_null())
      s += "; " + stats::fmt(tail["missed_lines_per_extra_line"].get<double>()) + " more missed lines per extra line from " +
           std::to_string(tail["from_lines"].get<std::uint64_t>()) + " to " +
           std::to_string(tail["to_lines"].get<std::uint64_t>()) + " lines";
    f.summary = s;
    return f;
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_stage_profile_analyzer() { return std::make_unique<StageProfileAnalyzer>(); }

}  // namespace dissect
