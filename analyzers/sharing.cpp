// sharing: do two load paths share one physical cache? (seed 004 §4.5). A
// phases kernel warms array a (path A), then array b (path B), then measures
// a: each array alone fits its cache, so misses mean b evicted a, i.e. one
// physical cache. The reference is a measurement of a before b was warmed (a
// second measure phase of the same thread), else the later passes of a
// multi-pass measure phase (the first pass finds what b left; later ones what
// a reloaded).
#include <map>
#include <sstream>

#include "analyzers/analyzer.hpp"
#include "analyzers/stats/chase.hpp"
#include "analyzers/stats/disturbance.hpp"
#include "analyzers/stats/report.hpp"

namespace dissect {
namespace {

nlohmann::json parse_arrays(const std::string& text) {
  nlohmann::json out = nlohmann::json::array();
  std::istringstream in(text);
  std::string item;
  while (in >> item) {
    std::vector<std::string> f;
    std::string part;
    std::istringstream is(item);
    while (std::getline(is, part, ':')) f.push_back(part);
    if (f.size() >= 4) out.push_back({{"name", f[0]}, {"path", f[1]}, {"size_bytes", f[2]}, {"stride_bytes", f[3]}});
  }
  return out;
}

class SharingAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "sharing"; }
  std::string purpose() const override {
    return "whether two load paths share one physical cache (phases: warm a, warm b, measure a against a reference)";
  }
  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams&) const override {
    std::vector<Finding> out;
    for (const auto& p : traces.points) {
      if (p.param("kernel") != "phases" || p.samples.empty()) continue;
      out.push_back(analyze_point(p));
    }
    if (out.empty())
      return {stats::undetermined(name(), "", "no phases points (kernel: phases with two arrays on two paths)")};
    return out;
  }

 private:
  Finding analyze_point(const PointTrace& p) const {
    const auto chases = stats::chases_of(p);
    std::map<std::uint32_t, std::vector<const stats::Chase*>> by_thread;
    for (const auto& c : chases) by_thread[c.thread].push_back(&c);
    nlohmann::json threads = nlohmann::json::array();
    bool any = false, all_decided = true, shared = false;
    double strength = 0;
    for (const auto& [t, cs] : by_thread) {
      stats::Disturbance d;
      if (cs.size() >= 2) {
        d = stats::compare_to_reference(cs.front()->samples, cs.back()->samples,
                                        "measure phase " + std::to_string(cs.front()->phase) + " of thread " +
                                            std::to_string(t) + " (before the other array was warmed)");
      } else if (cs.front()->samples.size() >= 2 * cs.front()->period && cs.front()->period > 0) {
        const auto& s = cs.front()->samples;
        const std::vector<const Sample*> first(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(cs.front()->period));
        const std::vector<const Sample*> later(s.begin() + static_cast<std::ptrdiff_t>(cs.front()->period), s.end());
        d = stats::compare_to_reference(later, first, "later passes of the same measure phase");
      }
      nlohmann::json j = d.to_json();
      j["thread"] = t;
      threads.push_back(j);
      if (!d.decided) {
        all_decided = false;
        continue;
      }
      any = true;
      shared = shared || d.disturbed;
      strength = std::max(strength, d.test_rate - d.reference_rate);
    }
    Finding f;
    f.analyzer = name();
    f.unit = "";
    f.details["arrays"] = parse_arrays(p.param("arrays"));
    f.details["point_id"] = p.point_id;
    f.evidence["threads"] = threads;
    if (!any) {
      f = stats::undetermined(name(), "",
                              "no reference to compare the measured array with: add a measure phase of it before "
                              "the other array is warmed (or measure two passes or more)");
      f.details["arrays"] = parse_arrays(p.param("arrays"));
      f.evidence["threads"] = threads;
      return f;
    }
    f.value = shared;
    f.details["shared"] = shared;
    if (!shared) {
      std::uint64_t total = 0;
      for (const auto& a : f.details["arrays"]) total += std::stoull(a["size_bytes"].get<std::string>());
      f.details["caveat"] = "separate only if the arrays together (" + std::to_string(total) +
                            " B) exceed the cache: each should be a bit smaller than one cache";
    }
    f.details["miss_share_increase"] = strength;
    f.confidence = shared ? std::min(1.0, 0.5 + 5 * strength) : 0.8;
    if (!all_decided) f.confidence *= 0.8;
    std::string paths;
    for (const auto& a : f.details["arrays"]) paths += (paths.empty() ? "" : " and ") + a["path"].get<std::string>();
    f.summary = shared ? paths + " share one physical cache: the measured array lost " + stats::percent(strength) +
                             " of its hits to the other"
                       : paths + " use separate storage: the measured array kept its hits";
    return f;
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_sharing_analyzer() { return std::make_unique<SharingAnalyzer>(); }

}  // namespace dissect
