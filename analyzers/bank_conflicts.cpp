// bank_conflicts: shared-memory stride specs (seed 003 §3.1, §4.1). Lane t of
// a warp reads the word at t * stride; a bank serves one word per cycle, so the
// conflict degree is the most distinct words one bank must serve. Every
// (banks, bank width) candidate predicts a degree per stride; latency = a +
// b * degree is fitted for each and the best fit names the banks and width.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analyzers/analyzer.hpp"
#include "analyzers/stats/quantiles.hpp"
#include "analyzers/stats/report.hpp"
#include "engine/spec/units.hpp"

namespace dissect {
namespace {

struct StridePoint {
  std::uint64_t stride = 0;
  double latency = 0;
  std::size_t samples = 0;
};

struct Candidate {
  std::uint32_t banks = 0;
  std::uint64_t width = 0;
  std::vector<std::uint32_t> degree;
  double a = 0, b = 0, rss = 0, r2 = 0;
};

std::uint32_t predicted_degree(std::uint64_t stride, std::uint64_t size, std::uint32_t lanes, std::uint32_t banks,
                               std::uint64_t width) {
  std::map<std::uint64_t, std::set<std::uint64_t>> words;
  for (std::uint32_t t = 0; t < lanes; ++t) {
    std::uint64_t addr = static_cast<std::uint64_t>(t) * stride;
    if (size > 0) addr %= size;
    const std::uint64_t w = addr / width;
    words[w % banks].insert(w);
  }
  std::size_t d = 1;
  for (const auto& [b, ws] : words) d = std::max(d, ws.size());
  return static_cast<std::uint32_t>(d);
}

class BankConflictsAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "bank_conflicts"; }
  std::string purpose() const override {
    return "shared-memory banks, bank width and conflict degree per stride (fit of latency to predicted degrees)";
  }
  std::vector<AnalyzerParam> params() const override {
    return {{"warp_size", "32", "lanes of one warp (the first warp of each point is analysed)"}};
  }
  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const override {
    const auto warp = static_cast<std::uint32_t>(params.number("warp_size", 32));
    std::vector<StridePoint> pts;
    std::uint64_t size = 0;
    std::uint32_t lanes = warp;
    std::string element = "u32";
    for (const auto& p : traces.points) {
      if (p.param("kernel") != "shared_stride" || p.samples.empty()) continue;
      const auto threads = static_cast<std::uint32_t>(p.param_u64("threads", warp));
      std::vector<double> lat;
      for (const Sample* s : p.measured_samples())
        if (threads == 0 || s->thread % threads < warp) lat.push_back(s->latency);
      if (lat.empty()) continue;
      pts.push_back({p.stride_bytes(), stats::median(lat), lat.size()});
      size = p.size_bytes();
      lanes = std::min(warp, threads == 0 ? warp : threads);
      element = p.param("element", "u32");
    }
    if (pts.size() < 3)
      return {stats::undetermined(name(), "banks",
                                  "needs a shared_stride series with at least three strides (kernel: shared_stride)")};
    std::sort(pts.begin(), pts.end(), [](const StridePoint& a, const StridePoint& b) { return a.stride < b.stride; });
    // Latency per stride: merge repeated strides.
    std::vector<StridePoint> uniq;
    for (const auto& p : pts)
      if (!uniq.empty() && uniq.back().stride == p.stride) uniq.back().latency = std::min(uniq.back().latency, p.latency);
      else uniq.push_back(p);
    const double n = static_cast<double>(uniq.size());
    double ybar = 0;
    for (const auto& p : uniq) ybar += p.latency / n;
    double tss = 0;
    for (const auto& p : uniq) tss += (p.latency - ybar) * (p.latency - ybar);

    std::vector<Candidate> cands;
    for (std::uint32_t banks : {8u, 16u, 32u, 64u})
      for (std::uint64_t width : {4ull, 8ull, 16ull}) {
        Candidate c;
        c.banks = banks;
        c.width = width;
        for (const auto& p : uniq) c.degree.push_back(predicted_degree(p.stride, size, lanes, banks, width));
        double xbar = 0;
        for (auto d : c.degree) xbar += d / n;
        double sxx = 0, sxy = 0;
        for (std::size_t i = 0; i < uniq.size(); ++i) {
          sxx += (c.degree[i] - xbar) * (c.degree[i] - xbar);
          sxy += (c.degree[i] - xbar) * (uniq[i].latency - ybar);
        }
        c.b = sxx > 0 ? sxy / sxx : 0;
        c.a = ybar - c.b * xbar;
        for (std::size_t i = 0; i < uniq.size(); ++i) {
          const double r = uniq[i].latency - (c.a + c.b * c.degree[i]);
          c.rss += r * r;
        }
        c.r2 = tss > 0 ? 1 - c.rss / tss : 0;
        cands.push_back(std::move(c));
      }
    // Best fit with a positive cost per conflict; ties go to the fewer banks x
    // narrower width listed first only when the predictions are identical.
    std::sort(cands.begin(), cands.end(), [](const Candidate& x, const Candidate& y) {
      if (std::fabs(x.rss - y.rss) > 1e-9 * (1 + x.rss)) return x.rss < y.rss;
      return std::make_pair(x.banks * x.width, x.banks) > std::make_pair(y.banks * y.width, y.banks);
    });
    const Candidate* best = nullptr;
    for (const auto& c : cands)
      if (c.b > 0) {
        best = &c;
        break;
      }
    if (best == nullptr || tss <= 0)
      return {stats::undetermined(name(), "banks",
                                  "latency does not grow with any predicted conflict degree: no bank conflicts seen")};
    // Candidates that predict the same degrees are indistinguishable here.
    nlohmann::json equivalent = nlohmann::json::array();
    const Candidate* runner = nullptr;
    for (const auto& c : cands) {
      if (&c == best) continue;
      if (c.degree == best->degree) equivalent.push_back({{"banks", c.banks}, {"bank_width_bytes", c.width}});
      else if (!runner && c.b > 0) runner = &c;
    }
    Finding f;
    f.analyzer = name();
    f.unit = "banks";
    f.value = best->banks;
    f.details["banks"] = best->banks;
    f.details["bank_width_bytes"] = best->width;
    f.details["cycles_per_conflict"] = best->b;
    f.details["conflict_free_latency_cycles"] = best->a + best->b;
    f.details["element"] = element;
    nlohmann::json per = nlohmann::json::array();
    std::uint32_t worst = 1;
    for (std::size_t i = 0; i < uniq.size(); ++i) {
      const double measured = 1 + (uniq[i].latency - (best->a + best->b)) / best->b;
      per.push_back({{"stride_bytes", uniq[i].stride},
                     {"latency_cycles", uniq[i].latency},
                     {"degree", static_cast<std::int64_t>(std::llround(std::max(1.0, measured)))},
                     {"degree_measured", measured},
                     {"degree_predicted", best->degree[i]}});
      worst = std::max(worst, best->degree[i]);
    }
    f.details["per_stride"] = per;
    if (!equivalent.empty()) f.details["equivalent_candidates"] = equivalent;
    f.evidence["fit"] = {{"r2", best->r2}, {"rss", best->rss}, {"intercept", best->a}, {"slope", best->b}};
    if (runner)
      f.evidence["runner_up"] = {{"banks", runner->banks}, {"bank_width_bytes", runner->width}, {"rss", runner->rss},
                                 {"r2", runner->r2}};
    f.evidence["strides"] = uniq.size();
    // Confidence: goodness of fit, how clearly the runner-up loses, and no
    // indistinguishable alternative.
    double margin = 1;
    if (runner) margin = std::clamp(1 - best->rss / std::max(1e-12, runner->rss), 0.0, 1.0);
    f.confidence = std::clamp(best->r2, 0.0, 1.0) * (0.5 + 0.5 * margin) * (equivalent.empty() ? 1.0 : 0.5);
    f.summary = std::to_string(best->banks) + " banks x " + format_bytes(best->width) + ", " +
                stats::fmt(best->b) + " cycles per extra conflict, up to " + std::to_string(worst) +
                "-way conflicts (R^2 " + stats::fmt(best->r2) + ")";
    return {f};
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_bank_conflicts_analyzer() { return std::make_unique<BankConflictsAnalyzer>(); }

}  // namespace dissect
