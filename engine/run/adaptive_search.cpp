#include "engine/run/adaptive_search.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
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
  double min_share = 0;   // share of slow samples beyond slow_rate a point needs (cache_size's min_miss_share)
  bool chain = false;     // samples are chain averages: the point's median is compared
  bool known = false;
};

// Points measured at one size and how many of them had capacity misses.
struct Votes {
  std::size_t missing = 0, measured = 0;
  [[nodiscard]] bool majority_missing() const { return 2 * missing > measured; }
};

// Sizes on each side of the bracket the confirming round measures again.
constexpr std::uint64_t kConfirmSide = 2;
// Copies of each size in a narrowing round of a device that runs many points at once.
constexpr std::size_t kNarrowCopies = 8;

// The bracket (last clean, first missing size) from every size so far, each
// size by the majority of its points, split where the most sizes agree
// (stats::monotone_split), not at the first miss: near a soft knee (random
// replacement, capacity that differs from SM to SM) a stray miss below the
// knee would otherwise pull the search down to wherever it fell. False when
// the sizes do not switch from clean to missing.
bool split_bracket(const std::map<std::uint64_t, Votes>& share, std::uint64_t& lo, std::uint64_t& hi) {
  std::vector<std::uint64_t> keys;
  std::vector<bool> missing;
  for (const auto& [n, v] : share) keys.push_back(n), missing.push_back(v.majority_missing());
  const stats::MonotoneSplit split = stats::monotone_split(keys, missing);
  if (split.first_missing == 0 || split.first_missing >= keys.size()) return false;
  lo = keys[split.first_missing - 1];
  hi = keys[split.first_missing];
  return true;
}

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
  const auto slow = static_cast<double>(count_slow(lat, ref.threshold));
  if (!lat.empty() && slow / static_cast<double>(lat.size()) - ref.slow_rate < ref.min_share) return false;
  return slow > expected + 4 * std::sqrt(expected + 1) + 2;
}

// The cache_size analyzer's min_miss_share, if the spec sets it: the search
// then calls a point missing by the same rule as the analysis.
double min_miss_share_of(const Spec& spec) {
  for (const auto& a : spec.base.analyzers) {
    if (a.name != "cache_size") continue;
    const auto j = nlohmann::json::parse(a.params_json, nullptr, false);
    if (!j.is_object() || !j.contains("min_miss_share")) continue;
    const auto& v = j["min_miss_share"];
    if (v.is_number()) return v.get<double>();
    if (v.is_string()) return std::strtod(v.get<std::string>().c_str(), nullptr);
  }
  return 0;
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
  // A share ("2%") is taken of the bracket's clean end once doubling has found
  // it, rounded down to a power of two (sizes stay multiples of the stride):
  // one spec then searches a 768 KiB L2 in 8 KiB steps and a 50 MiB one in
  // 256 KiB steps.
  const double res_share = search->search_resolution_share;
  const bool relative = res_share > 0;
  std::uint64_t resolution = relative ? elem
                             : search->search_resolution.is_scalar()
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
    // size -> how many of its points had capacity misses, of how many measured
    std::map<std::uint64_t, Votes> share;
    Reference ref;
    const std::size_t points_before = result.points;

    // Measures each size `copies` times, on other SMs and at other addresses (with
    // one copy, sizes measured before are left out; with more, every copy adds a vote).
    auto run_sizes = [&](std::vector<std::uint64_t> sizes, std::size_t copies = 1) {
      std::vector<Point> points;
      for (std::uint64_t n : sizes) {
        if (copies == 1 && share.count(n) != 0) continue;
        auto values = base_values;
        values.emplace_back(search->field, SpecNode::make_scalar(std::to_string(n) + " B", search->loc));
        for (std::size_t c = 0; c < copies; ++c) points.push_back(spec.make_point(next_id++, values));
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
        if (!ref.known) {
          ref = reference_from(it->second, spec.base.timing.mode == TimingMode::chain);
          ref.min_share = min_miss_share_of(spec);
        }
        Votes& v = share[n];
        v.missing += has_misses(it->second, ref) ? 1 : 0;
        ++v.measured;
        ++result.points;
      }
    };
    auto misses = [&](std::uint64_t n) { return share.count(n) != 0 && share[n].majority_missing(); };

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
    if (relative) {
      // Never finer than the stride: a size between two strides adds no access.
      const auto share_of_lo = static_cast<std::uint64_t>(res_share * static_cast<double>(lo));
      resolution = elem;
      while (resolution * 2 <= share_of_lo) resolution *= 2;
      resolution = std::max(resolution, spec.base.array.stride_bytes);
      entry["resolution_bytes"] = resolution;
    }
    // 2. Narrow the bracket: `width` points per round, evenly spaced sizes. Where a
    // round holds many points (one per SM), each size is measured kNarrowCopies
    // times, on other SMs and at other addresses, and decided by the majority: near
    // the capacity a single point may miss or not by where its array lies (the
    // H100's L1: up to one point in three within 4 lines of its 1928), and one
    // stray decision would steer the rest of the search.
    const std::size_t copies = width >= 4 * kNarrowCopies ? kNarrowCopies : 1;
    while (hi - lo > resolution && !stop.load()) {
      std::vector<std::uint64_t> round;
      const std::uint64_t gap = hi - lo;
      const std::uint64_t parts = std::min<std::uint64_t>(width / copies + 1, gap / resolution);
      for (std::uint64_t k = 1; k < parts; ++k) {
        const std::uint64_t n = snap(lo + gap * k / parts);
        if (n > lo && n < hi) round.push_back(n);
      }
      if (round.empty()) round.push_back(snap(lo + resolution));
      std::sort(round.begin(), round.end());
      round.erase(std::unique(round.begin(), round.end()), round.end());
      const std::size_t known_before = share.size();
      run_sizes(round, copies);
      if (share.size() == known_before) break;  // interrupted, or nothing new to measure
      // The bracket from every point so far, not from the first miss of this
      // round: near a soft knee (random replacement, capacity that differs
      // from SM to SM) a stray miss below the knee would otherwise pull the
      // search down to wherever it fell.
      if (!split_bracket(share, lo, hi))
        for (std::uint64_t n : round) {
          if (share.count(n) == 0) continue;
          if (misses(n)) {
            hi = std::min(hi, n);
            break;
          }
          lo = std::max(lo, n);
        }
    }
    // 3. Confirm: the sizes around the bracket once more, as many copies of each
    // as one launch holds (several SMs, several addresses). Within a few lines
    // of the capacity a point may miss or not depending on where its array lies
    // (hashed sets: on the H100 one L1 point in four in the last 4 lines of
    // 1928), so one measurement per size leaves the knee a line or two apart
    // from run to run; the majority of copies does not.
    if (!stop.load() && hi > lo && hi - lo <= resolution) {
      std::vector<std::uint64_t> around;
      for (std::uint64_t k = kConfirmSide; k >= 1; --k)
        if (lo >= from + k * resolution) around.push_back(lo - k * resolution);
      around.push_back(lo);
      around.push_back(hi);
      for (std::uint64_t k = 1; k <= kConfirmSide; ++k)
        if (hi + k * resolution <= to) around.push_back(hi + k * resolution);
      // One launch's worth on a per-SM device; two more of each where points run one at a time.
      const std::size_t confirm_copies = std::max<std::size_t>(2, width / around.size());
      run_sizes(around, confirm_copies);
      const std::uint64_t lo0 = lo, hi0 = hi;
      if (split_bracket(share, lo, hi)) {
        entry["confirmed_copies"] = confirm_copies;
        if (lo != lo0 || hi != hi0) entry["bracket_before_confirming_bytes"] = {lo0, hi0};
      }
    }
    entry["bracket_bytes"] = {lo, hi};
    entry["points"] = result.points - points_before;  // this combination's, copies included
    result.log.push_back(entry);
  }
  return result;
}

}  // namespace dissect
