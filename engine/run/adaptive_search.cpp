#include "engine/run/adaptive_search.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analyzers/stats/knee.hpp"
#include "analyzers/stats/monotone_split.hpp"
#include "engine/spec/units.hpp"

namespace dissect {
namespace {

// Forwards every point to the real sink and keeps what the search needs.
class ObservingSink final : public RunSink {
 public:
  explicit ObservingSink(RunSink& inner) : inner_(inner) {}
  void point_done(const Point& point, PointTrace trace) override {
    observe(point, trace);
    inner_.point_done(point, std::move(trace));
  }
  void points_done(PointBatch batch) override {
    for (const auto& [p, t] : batch) observe(*p, t);
    inner_.points_done(std::move(batch));
  }
  void kernel_built(const KernelArtifact& a) override { inner_.kernel_built(a); }
  void progress(std::size_t done, std::size_t total) override { inner_.progress(done, total); }
  std::map<std::size_t, std::vector<double>> latencies_;

 private:
  void observe(const Point& point, const PointTrace& trace) {
    std::vector<double> lat;
    lat.reserve(trace.samples.size());
    for (const Sample* s : trace.measured_samples()) lat.push_back(s->latency);
    latencies_[point.id] = std::move(lat);
  }
  RunSink& inner_;
};

std::uint64_t to_bytes(const SpecNode& n, std::uint64_t elem, const std::string& what) {
  std::string err;
  auto q = parse_quantity(n.scalar, "", err);
  if (!q) throw SpecError(n.loc, "search " + what + ": " + err);
  return q->bytes(elem);
}

struct Reference {
  double threshold = 0;   // a sample above it is "slow"
  double slow_rate = 0;   // share of slow samples in the clean reference (noise)
  bool chain = false;     // samples are chain averages: the point's median is compared
  bool known = false;
};

std::size_t count_slow(const std::vector<double>& lat, double threshold) {
  std::size_t slow = 0;
  for (double v : lat) slow += v > threshold ? 1 : 0;
  return slow;
}

// A clean point's latencies set the bar: clearly slower than its p95 is slow.
// Chain timing (a few samples, each the average of a whole chain): a point
// misses when its median average rises above the reference's by more than
// noise, by the cache_size analyzer's rule (stats::chain_clean_bar).
Reference reference_from(const std::vector<double>& lat, bool chain) {
  Reference r;
  if (lat.empty()) return r;
  const LatencySummary s = summarize(lat);
  if (chain) {
    r.threshold = stats::chain_clean_bar(lat);
    r.chain = true;
    r.known = true;
    return r;
  }
  r.threshold = std::max(s.p95, 1.15 * s.median) + 5;
  r.slow_rate = std::max(1e-4, static_cast<double>(count_slow(lat, r.threshold)) / static_cast<double>(lat.size()));
  r.known = true;
  return r;
}

// Whether a point has more slow samples than noise explains (see the header).
bool has_misses(const std::vector<double>& lat, const Reference& ref) {
  if (ref.chain) return !lat.empty() && summarize(lat).median > ref.threshold;
  const double expected = ref.slow_rate * static_cast<double>(lat.size());
  return static_cast<double>(count_slow(lat, ref.threshold)) > expected + 4 * std::sqrt(expected + 1) + 2;
}

}  // namespace

std::size_t adaptive_search_width(const Spec& spec, const Device& device) {
  if (is_sm_private(spec.base.target) && spec.base.parallel) {
    const auto d = device.describe();
    if (d.contains("sm_count") && d["sm_count"].is_number())
      return std::clamp<std::size_t>(d["sm_count"].get<std::size_t>(), 1, 128);
    return 16;
  }
  return 3;  // points of shared structures run one at a time: a few per round
}

AdaptiveSearchOutcome run_adaptive_search(const Spec& spec, Device& device, RunSink& outer,
                                          const std::atomic<bool>& stop, std::size_t width) {
  AdaptiveSearchOutcome result;
  ObservingSink sink(outer);
  if (width == 0) width = adaptive_search_width(spec, device);

  // The search axis and the fixed combinations of the others.
  const SweepAxis* search = nullptr;
  std::vector<const SweepDimension*> fixed;
  for (const auto& dim : spec.sweep) {
    if (dim.adaptive()) search = &dim.axes.front();
    else fixed.push_back(&dim);
  }
  const std::uint64_t elem = spec.base.elem_bytes();
  const std::uint64_t from = to_bytes(search->search_from, elem, "from");
  const std::uint64_t to = to_bytes(search->search_to, elem, "to");
  std::uint64_t resolution = search->search_resolution.is_scalar()
                                 ? to_bytes(search->search_resolution, elem, "resolution")
                                 : std::max<std::uint64_t>(elem, from / 64);
  resolution = std::max<std::uint64_t>(resolution, elem);
  auto snap = [&](std::uint64_t v) { return std::clamp<std::uint64_t>(v / resolution * resolution, from, to); };

  std::size_t combos = 1;
  for (const auto* dim : fixed) combos *= dim->size();
  std::size_t next_id = 0;

  for (std::size_t combo = 0; combo < combos && !stop.load(); ++combo) {
    std::vector<std::pair<std::string, SpecNode>> base_values;
    std::size_t rest = combo;
    for (std::size_t k = fixed.size(); k-- > 0;) {
      const std::size_t i = rest % fixed[k]->size();
      rest /= fixed[k]->size();
      for (const auto& axis : fixed[k]->axes) base_values.emplace_back(axis.field, axis.values[i]);
    }
    std::map<std::uint64_t, bool> share;  // size -> has capacity misses
    Reference ref;

    auto run_sizes = [&](std::vector<std::uint64_t> sizes) {
      std::vector<Point> points;
      for (std::uint64_t n : sizes) {
        if (share.count(n) != 0) continue;
        auto values = base_values;
        values.emplace_back(search->field, SpecNode::make_scalar(std::to_string(n) + " B", search->loc));
        points.push_back(spec.make_point(next_id++, values));
      }
      if (points.empty()) return;
      RunRequest req;
      req.spec = &spec;
      req.points = points;
      req.stop = &stop;
      const RunTimings t = device.run(req, sink);
      result.timings.kernel_ms += t.kernel_ms;
      result.timings.compile_ms += t.compile_ms;
      result.timings.launches += t.launches;
      for (const auto& p : points) {
        auto it = sink.latencies_.find(p.id);
        if (it == sink.latencies_.end()) continue;  // interrupted before this point
        const std::uint64_t n = p.experiment.array.size_bytes;
        if (!ref.known) ref = reference_from(it->second, spec.base.timing.mode == TimingMode::chain);
        share[n] = has_misses(it->second, ref);
        ++result.points;
      }
    };
    auto misses = [&](std::uint64_t n) { return share.count(n) != 0 && share[n]; };

    // 1. The smallest size is the clean reference; then double, `width` sizes per round.
    run_sizes({from});
    if (stop.load() || misses(from) || !ref.known) continue;  // nothing clean to compare with
    std::uint64_t lo = from, hi = 0;
    std::uint64_t next = from;
    while (hi == 0 && next < to && !stop.load()) {
      std::vector<std::uint64_t> round;
      for (std::size_t i = 0; i < width && next < to; ++i) {
        next = std::min(to, next * 2);
        round.push_back(snap(next));
      }
      run_sizes(round);
      for (std::uint64_t n : round) {
        if (misses(n)) {
          hi = n;
          break;
        }
        lo = n;
      }
    }
    nlohmann::json entry{{"combination", combo}, {"reference_threshold_cycles", ref.threshold}};
    if (hi == 0) {  // no knee up to `to`: the analyzer will say so
      entry["bracket_bytes"] = {lo, nullptr};
      result.log.push_back(entry);
      continue;
    }
    // 2. Narrow the bracket: `width` evenly spaced sizes per round.
    while (hi - lo > resolution && !stop.load()) {
      std::vector<std::uint64_t> round;
      const std::uint64_t gap = hi - lo;
      const std::uint64_t parts = std::min<std::uint64_t>(width + 1, gap / resolution);
      for (std::uint64_t k = 1; k < parts; ++k) {
        const std::uint64_t n = snap(lo + gap * k / parts);
        if (n > lo && n < hi) round.push_back(n);
      }
      if (round.empty()) round.push_back(snap(lo + resolution));
      std::sort(round.begin(), round.end());
      round.erase(std::unique(round.begin(), round.end()), round.end());
      const std::size_t known_before = share.size();
      run_sizes(round);
      if (share.size() == known_before) break;  // interrupted, or nothing new to measure
      // The bracket from every point so far, not from the first miss of this
      // round: near a soft knee (random replacement, capacity that differs
      // from SM to SM) a stray miss below the knee would otherwise pull the
      // search down to wherever it fell.
      std::vector<std::uint64_t> keys;
      std::vector<bool> missing;
      for (const auto& [n, m] : share) keys.push_back(n), missing.push_back(m);
      const stats::MonotoneSplit split = stats::monotone_split(keys, missing);
      if (split.first_missing > 0 && split.first_missing < keys.size()) {
        lo = keys[split.first_missing - 1];
        hi = keys[split.first_missing];
      } else {
        for (std::uint64_t n : round) {
          if (share.count(n) == 0) continue;
          if (misses(n)) {
            hi = std::min(hi, n);
            break;
          }
          lo = std::max(lo, n);
        }
      }
    }
    entry["bracket_bytes"] = {lo, hi};
    entry["points"] = share.size();
    result.log.push_back(entry);
  }
  return result;
}

}  // namespace dissect
