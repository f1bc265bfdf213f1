// sets: the stage method (seed 003 §3.2 (3), Fig. 3). With stride s = b (one
// line) and N = C + k*b, each increment of N that overflows a new set turns
// that set's lines into misses at once; counting the big steps of the
// missed-line staircase until every access misses gives the number of sets,
// each set's size, how many consecutive lines share a set (1 for a modulo
// mapping, 4 for the Fermi texture L1) and whether set = (line / block) mod
// sets predicts the missed lines (bit-defined) or not (hashed).
#include <algorithm>
#include <cmath>

#include "analyzers/analyzer.hpp"
#include "analyzers/stats/chase.hpp"
#include "analyzers/stats/periodicity.hpp"
#include "analyzers/stats/report.hpp"
#include "analyzers/stats/stage_grids.hpp"
#include "analyzers/stats/staircase.hpp"
#include "analyzers/stats/sweep_groups.hpp"
#include "engine/spec/units.hpp"

namespace dissect {
namespace {

class SetsAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "sets"; }
  std::string purpose() const override {
    return "number of sets, ways, set sizes and set mapping by the stage method (s = b, N = C + k*b)";
  }
  std::vector<AnalyzerParam> params() const override {
    return {{"line_bytes", "", "line size (default: the stride of the series, as the stage method sets s = b)"},
            {"noise", "1e-4", "least per-sample misclassification rate assumed (the smallest N's miss rate raises it)"}};
  }
  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const override {
    const double noise = params.number("noise", 1e-4);
    auto groups = stats::group_points(traces, "size_bytes", [](const PointTrace& p) {
      return p.param("kernel", "pchase") == "pchase" && p.stride_bytes() > 0;
    });
    std::vector<Finding> ok, failed;
    for (const auto& g : groups) {
      if (g.points.size() < 3) continue;
      Finding f = analyze_group(traces, g, params, noise);
      (f.value.is_null() ? failed : ok).push_back(std::move(f));
    }
    if (!ok.empty()) return ok;
    if (!failed.empty()) return {failed.front()};
    return {stats::undetermined(name(), "sets",
                                "no series over N with at least 3 sizes (the stage method sweeps N = C + k*b at s = b)")};
  }

 private:
  Finding analyze_group(const TraceSet& traces, const stats::SweepGroup& g, const AnalyzerParams& params,
                        double noise) const {
    const std::uint64_t stride = g.points.front()->stride_bytes();
    const auto shared = stats::shared_stage_grids(traces, g, noise);
    const stats::StageGrids& sg = *shared;
    const stats::LevelModel& model = sg.model;
    const int hit = sg.hit;
    const double eps = sg.noise;
    // The smallest N (at or below C) sets the misclassification rate. Where it already
    // misses often, no line of a larger N misses significantly more, and "no point
    // misses" would be wrong: say what was seen (on Hopper, a per-access chase's
    // sample stores evict L1 lines near the capacity: timing.mode on_chip avoids them).
    if (eps > 0.01) {
      Finding u = stats::undetermined(
          name(), "sets",
          "the smallest N (" + format_bytes(g.points.front()->size_bytes()) + ") already misses on " +
              stats::fmt(100 * eps) + "% of its accesses: against that rate no line of a larger N misses "
              "significantly more (sample stores that evict lines, or a size above C; timing.mode on_chip keeps "
              "samples on the SM)" + stats::label_suffix(g));
      u.details["noise_rate"] = eps;
      return u;
    }
    std::vector<stats::StairPoint> stair;
    for (std::size_t i = 0; i < g.points.size(); ++i) {
      stats::StairPoint sp;
      sp.size_bytes = g.points[i]->size_bytes();
      sp.units = sg.grids[i].positions().size();
      sp.missing = stats::missing_lines(sg.grids[i], eps, stride);
      stair.push_back(std::move(sp));
    }
    const stats::Staircase st = stats::stage_staircase(stair, stride);
    const std::uint64_t line = params.has("line_bytes") && params.number("line_bytes", 0) > 0
                                   ? static_cast<std::uint64_t>(params.number("line_bytes", 0))
                                   : stride;
    nlohmann::json ev;
    ev["series"] = g.to_json();
    ev["staircase"] = st.table;
    ev["levels"] = model.to_json();
    ev["hit_level"] = hit;
    ev["noise_rate"] = eps;
    ev["step_fit_errors"] = st.fit_errors;
    if (!st.ok) {
      Finding f = stats::undetermined(name(), "sets", st.reason + stats::label_suffix(g));
      f.evidence = ev;
      return f;
    }
    Finding f;
    f.analyzer = name();
    f.unit = "sets";
    f.value = st.sets;
    f.evidence = ev;
    if (!st.complete) {
      // A lower bound is not the number of sets: say what is known, name no value.
      f = stats::undetermined(name(), "sets",
                              "the sweep ends before every line misses (" + std::to_string(st.never_missing) +
                                  " lines at N = C never do): at least " + std::to_string(st.sets) +
                                  " sets; extend N to C + (sets x lines per block) x b" + stats::label_suffix(g));
      f.details["sets_at_least"] = st.sets;
      f.details["size_bytes"] = st.capacity_bytes;
      f.details["line_bytes"] = line;
      f.details["lines_per_block"] = st.lines_per_block;
      f.evidence = ev;
      return f;
    }
    const double lines_total = static_cast<double>(st.capacity_bytes) / static_cast<double>(line);
    std::size_t sum_sizes = 0;
    for (auto s : st.set_sizes) sum_sizes += s;
    const bool equal = std::all_of(st.set_sizes.begin(), st.set_sizes.end(),
                                   [&](std::size_t s) { return s == st.set_sizes.front(); });
    const double ways = static_cast<double>(st.capacity_bytes) / (static_cast<double>(st.sets) * static_cast<double>(line));
    // A geometry is whole or it is not one: unequal sets, equal sets of a fractional
    // number of ways, or set sizes that do not add up to the capacity are a staircase
    // the stage method does not explain (a policy other than LRU, a hashed index,
    // noise) and name no sets.
    std::string inconsistent;
    if (!equal) {
      const auto [smallest, largest] = std::minmax_element(st.set_sizes.begin(), st.set_sizes.end());
      inconsistent = "its " + std::to_string(st.sets) + " steps hold unequal numbers of lines (" + std::to_string(*smallest) +
                     " to " + std::to_string(*largest) + "), where the sets of a cache hold the same number of ways";
    } else if (std::fabs(ways - std::round(ways)) > 0.02)
      inconsistent = std::to_string(st.sets) + " equal sets would hold " + stats::fmt(ways) +
                     " ways each (C / (sets x b)), not a whole number";
    else if (std::fabs(static_cast<double>(sum_sizes) - lines_total) > 0.5)
      inconsistent = "the set sizes add up to " + std::to_string(sum_sizes) + " lines, C / b is " + stats::fmt(lines_total);
    if (!inconsistent.empty()) {
      Finding u = stats::undetermined(
          name(), "sets",
          "the missed-line staircase is not a stage-method geometry: " + inconsistent +
              " (an LRU cache with a modulo or bit-defined index adds whole sets of ways + 1 lines; a policy "
              "other than LRU or a hashed index does not)" + stats::label_suffix(g));
      u.details["staircase_sets"] = st.sets;
      u.details["staircase_ways"] = ways;
      u.details["size_bytes"] = st.capacity_bytes;
      u.details["line_bytes"] = line;
      u.evidence = ev;
      return u;
    }
    f.details["ways"] = ways == std::floor(ways) ? nlohmann::json(static_cast<std::uint64_t>(ways)) : nlohmann::json(ways);
    f.details["line_bytes"] = line;
    f.details["size_bytes"] = st.capacity_bytes;
    f.details["lines_per_block"] = st.lines_per_block;
    f.details["bit_defined"] = st.bit_defined;
    f.details["set_sizes"] = st.set_sizes;
    f.details["equal_sets"] = equal;
    f.details["steps_at_k"] = st.step_k;
    f.details["complete"] = st.complete;
    f.details["bit_match"] = st.bit_match;
    f.details["series"] = g.label();
    // Confidence (the staircase is complete and whole here): the sweep stepped one line
    // at a time, the steps fit, few outliers.
    double conf = 1;
    if (!st.unit_steps) conf *= 0.7;
    conf *= std::clamp(1 - 5 * st.fit_errors, 0.2, 1.0);
    f.confidence = conf * (1 - std::min(0.5, model.outlier_share()));
    f.summary = std::to_string(st.sets) + " sets x " + stats::fmt(ways) + " ways of " + format_bytes(line) + " lines (C = " +
                format_bytes(st.capacity_bytes) + ", " + std::to_string(st.lines_per_block) + " line" +
                (st.lines_per_block == 1 ? "" : "s") + " per set block, " +
                (st.bit_defined ? "bit-defined" : "not bit-defined") + ")";
    return f;
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_sets_analyzer() { return std::make_unique<SetsAnalyzer>(); }

}  // namespace dissect
