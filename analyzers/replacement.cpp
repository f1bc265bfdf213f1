// replacement: the periodicity test (seed 003 §3.2 (4)). A cyclic chase over
// N > C under LRU (or FIFO: the same for a cycle) is periodic: every position
// is always a hit or always a miss across rounds. A position that is sometimes
// one and sometimes the other, beyond what misclassification explains, makes
// the policy non-LRU. Where all misses fall in one set that holds ways + 1 of
// the chased lines (N = C + b, s = b), exactly one line is absent at any time,
// so the next line to miss is the one the last miss evicted: following the
// slots gives each way's share of the replacements (Mei's Fermi L1: 1/6, 1/2,
// 1/6, 1/6).
#include <algorithm>
#include <cmath>
#include <map>

#include "analyzers/analyzer.hpp"
#include "analyzers/stats/binomial.hpp"
#include "analyzers/stats/chase.hpp"
#include "analyzers/stats/periodicity.hpp"
#include "analyzers/stats/report.hpp"
#include "analyzers/stats/sweep_groups.hpp"
#include "engine/spec/units.hpp"

namespace dissect {
namespace {

// How often the label of a sample (hit or miss) differs between two launches of a
// point at the same round and position.
struct LaunchAgreement {
  std::uint64_t compared = 0, differing = 0;
  void add(const stats::PassGrid& a, const stats::PassGrid& b) {
    for (std::size_t i = 0; i < a.level.size(); ++i) {
      const std::size_t round = i + a.dropped_passes;
      if (round < b.dropped_passes || round - b.dropped_passes >= b.level.size()) continue;
      const auto& pa = a.level[i];
      const auto& pb = b.level[round - b.dropped_passes];
      for (std::size_t j = 0; j < std::min(pa.size(), pb.size()); ++j) {
        if (pa[j] < 0 || pb[j] < 0) continue;
        ++compared;
        differing += (pa[j] >= 1) != (pb[j] >= 1) ? 1 : 0;
      }
    }
  }
  // Per-sample misclassification rate: two labels differ with probability ~2p; an upper
  // estimate ((d + 2) / (n + 4)) keeps a few thousand identical samples from claiming p = 0.
  [[nodiscard]] double rate_bound() const {
    return (static_cast<double>(differing) + 2) / (2 * (static_cast<double>(compared) + 4));
  }
};

struct PointResult {
  const PointTrace* point = nullptr;
  stats::PeriodicityResult per;
  stats::AggregateMixed aggregate;
  std::vector<std::uint64_t> miss_sequence;  // positions of misses, in time order
  std::size_t missing = 0;                   // positions that really miss
  std::size_t positions = 0;
};

struct WayInference {
  bool ok = false;
  std::string reason;
  std::size_t ways = 0;
  std::vector<double> probabilities;  // by slot, in order of first eviction
  std::size_t evictions = 0;
};

// Exactly one of the set's lines is absent at a time: a miss on X loads X into
// the slot of the line the next miss brings back.
WayInference infer_ways(const std::vector<std::uint64_t>& seq, std::size_t lines) {
  WayInference w;
  // Each of the set's lines must be evicted several times for shares to mean anything.
  if (seq.size() < 8 * lines || lines < 2) {
    w.reason = std::to_string(seq.size()) + " misses for " + std::to_string(lines) +
               " missing lines: too few to follow the replacements (at least 8 per line)";
    return w;
  }
  std::map<std::uint64_t, int> slot_of;  // line -> slot label (absent: not in map)
  std::vector<std::size_t> evicted;
  int labels = 0;
  for (std::size_t i = 0; i + 1 < seq.size(); ++i) {
    const std::uint64_t in = seq[i], out = seq[i + 1];
    if (in == out) continue;  // a lost miss in between (an outlier sample)
    int s;
    auto it = slot_of.find(out);
    if (it == slot_of.end()) {
      s = labels++;
      evicted.push_back(0);
    } else {
      s = it->second;
      slot_of.erase(it);
    }
    slot_of[in] = s;
    ++evicted[static_cast<std::size_t>(s)];
  }
  // A miss lost to an outlier sample opens a spurious slot: keep the lines - 1
  // busiest slots if the others hold next to nothing.
  std::size_t total = 0;
  for (auto e : evicted) total += e;
  std::vector<std::size_t> order(evicted.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return evicted[a] > evicted[b]; });
  std::size_t dropped = 0;
  for (std::size_t i = lines - 1; i < order.size(); ++i) dropped += evicted[order[i]];
  if (order.size() < lines - 1 || static_cast<double>(dropped) > 0.02 * static_cast<double>(total)) {
    w.reason = "following the misses gives " + std::to_string(labels) + " slots for " + std::to_string(lines) +
               " missing lines (expected lines - 1): the misses do not come from one set";
    return w;
  }
  std::vector<bool> keep(evicted.size(), false);
  for (std::size_t i = 0; i < lines - 1; ++i) keep[order[i]] = true;
  total -= dropped;
  w.ways = lines - 1;
  for (std::size_t i = 0; i < evicted.size(); ++i)
    if (keep[i]) w.probabilities.push_back(static_cast<double>(evicted[i]) / static_cast<double>(total));
  w.evictions = total;
  w.ok = true;
  return w;
}

class ReplacementAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "replacement"; }
  std::string purpose() const override {
    return "LRU or not by the periodicity test; per-way replacement probabilities from a long run at N = C + b";
  }
  std::vector<AnalyzerParam> params() const override {
    return {{"noise", "0.02", "per-sample misclassification rate the periodicity test tolerates"},
            {"alpha", "1e-3", "test level for a position that is sometimes hit, sometimes miss"}};
  }
  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const override {
    const double noise_param = params.number("noise", 0.02);
    const double alpha = params.number("alpha", 1e-3);
    auto groups = stats::group_points(traces, "size_bytes", [](const PointTrace& p) {
      return p.param("kernel", "pchase") == "pchase" && p.stride_bytes() > 0;
    });
    // Every launch of a point is a chasing stream of its own. The main one (the most
    // samples) is tested; the others, compared with it pass by pass, measure how often a
    // sample's label changes between launches: the misclassification rate, when the
    // policy is deterministic (a random policy raises it, which only makes the test
    // more cautious).
    struct Candidate {
      const PointTrace* point;
      stats::PassGrid grid;
      std::size_t group = 0;
    };
    std::vector<Candidate> candidates;
    LaunchAgreement agree;
    std::size_t examined = 0;
    for (std::size_t gi = 0; gi < groups.size(); ++gi) {
      const auto& g = groups[gi];
      std::vector<double> pool;
      for (const auto* p : g.points) {
        const auto l = stats::latencies(p->measured_samples(), 20000);
        pool.insert(pool.end(), l.begin(), l.end());
      }
      stats::LevelOptions lo;
      lo.min_share = 1e-4;
      const stats::LevelModel model = stats::cluster_levels(pool, lo);
      int hit = stats::hit_level_of(model, stats::latencies(g.points.front()->measured_samples(), 20000));
      if (hit < 0) hit = 0;
      for (const auto* p : g.points) {
        auto chases = stats::chases_of(*p);
        if (chases.empty()) continue;
        std::size_t main = 0;
        for (std::size_t i = 1; i < chases.size(); ++i)
          if (chases[i].samples.size() > chases[main].samples.size()) main = i;
        auto grid = stats::make_grid(chases[main], model, hit, true);
        if (grid.passes() < 2) continue;
        ++examined;
        for (std::size_t i = 0; i < chases.size(); ++i)
          if (i != main && chases[i].period == chases[main].period)
            agree.add(grid, stats::make_grid(chases[i], model, hit, true));
        candidates.push_back({p, std::move(grid), gi});
      }
    }
    // The measured rate replaces the tolerated one only where it is smaller.
    const double noise = agree.compared > 0 ? std::min(noise_param, agree.rate_bound()) : noise_param;
    // A control: a point of the same series at half the N or less that misses less than half its
    // accesses. Past C the miss share of a cyclic chase grows with N until it saturates, so where
    // a point of twice the N misses no more often than such a control, neither point's misses
    // come from overflowing the cache:
    // per-access sample stores evicting lines, or other traffic (a Fermi-sized N = C + b on a
    // GPU whose L1 is larger shows exactly this). Both are left out.
    auto miss_share = [](const stats::PassGrid& g) {
      return g.known() == 0 ? 0.0 : static_cast<double>(g.count(1)) / static_cast<double>(g.known());
    };
    std::vector<bool> within_control(candidates.size(), false);
    nlohmann::json beneath_control = nlohmann::json::array();
    for (std::size_t i = 0; i < candidates.size(); ++i)
      for (std::size_t j = 0; j < candidates.size(); ++j) {
        const auto& small = candidates[j];
        const auto& large = candidates[i];
        if (i == j || small.group != large.group || 2 * small.point->size_bytes() > large.point->size_bytes())
          continue;
        if (small.grid.count(1) == 0) continue;  // a clean control: the larger point's misses stand
        const double control_rate = miss_share(small.grid);
        // A control that misses most of its accesses is past the capacity itself (LRU overflowed
        // misses everything at both sizes): no control.
        if (control_rate >= 0.5) continue;
        if (stats::binomial_sf(large.grid.count(1), large.grid.known(), std::max(control_rate, 1e-7)) < alpha) continue;
        within_control[i] = within_control[j] = true;
        beneath_control.push_back({{"point_id", large.point->point_id},
                                   {"size_bytes", large.point->size_bytes()},
                                   {"miss_share", miss_share(large.grid)},
                                   {"control_point_id", small.point->point_id},
                                   {"control_size_bytes", small.point->size_bytes()},
                                   {"control_miss_share", control_rate}});
      }
    std::vector<PointResult> informative;
    for (std::size_t ci = 0; ci < candidates.size(); ++ci) {
      const auto& cand = candidates[ci];
      if (within_control[ci]) continue;
      const auto& grid = cand.grid;
      const auto pos = grid.positions();
      PointResult r;
      r.point = cand.point;
      r.per = stats::periodicity_test(pos, noise, alpha);
      r.positions = r.per.positions;
      r.aggregate = stats::aggregate_mixed_test(pos, noise);
      const auto missing = stats::missing_positions(pos, noise / 2, alpha);
      r.missing = missing.size();
      // Informative: some positions really miss, and some do not always miss.
      std::size_t always_miss = 0;
      for (const auto& ps : pos)
        if (ps.known() > 0 && ps.hits == 0) ++always_miss;
      if (r.missing == 0 || always_miss == pos.size()) continue;
      // The misses of the lines that really miss, in time order (a stray
      // slow sample on another line is noise, not a replacement).
      std::vector<bool> real(pos.size(), false);
      for (auto j : missing) real[j] = true;
      for (const auto& pass : grid.level)
        for (std::size_t j = 0; j < pass.size(); ++j)
          if (pass[j] >= 1 && real[j]) r.miss_sequence.push_back(j);
      informative.push_back(std::move(r));
    }
    if (informative.empty() && !beneath_control.empty()) {
      Finding u = stats::undetermined(
          name(), "",
          "the points miss no more often than a control of the same series at half their N or less: misses that "
          "do not grow with N are not the policy's (sample stores, other traffic), or no N overflows the cache");
      u.evidence["points_within_control"] = beneath_control;
      return {u};
    }
    if (informative.empty())
      return {stats::undetermined(name(), "",
                                  examined == 0
                                      ? "no chase with two rounds or more (iterations must exceed N / s, better several times)"
                                      : "no point both hits and misses beyond noise: the periodicity test needs N "
                                        "above C with some lines still hitting")};
    Finding f;
    f.analyzer = name();
    f.unit = "";
    nlohmann::json pts = nlohmann::json::array();
    std::size_t aperiodic = 0;
    double min_p = 1;
    std::size_t rounds = 0;
    for (const auto& r : informative) {
      nlohmann::json j = r.per.to_json();
      j["aggregate"] = r.aggregate.to_json();
      j["point_id"] = r.point->point_id;
      j["size_bytes"] = r.point->size_bytes();
      j["stride_bytes"] = r.point->stride_bytes();
      pts.push_back(j);
      const bool aggregate_aperiodic = r.aggregate.p < alpha;
      if (!r.per.periodic() || aggregate_aperiodic)
        ++aperiodic, min_p = std::min({min_p, r.per.periodic() ? 1.0 : r.per.min_p, r.aggregate.p});
      rounds = std::max(rounds, r.per.rounds);
    }
    f.evidence["points"] = pts;
    f.evidence["test"] = "per position: binomial tail of the minority outcome at misclassification rate noise, "
                         "Bonferroni over positions; over all positions: Poisson tail of the count of mixed positions";
    f.details["noise_rate"] = noise;
    f.details["noise_source"] = agree.compared > 0 && agree.rate_bound() < noise_param
                                    ? "measured: labels that differ between launches of a point"
                                    : "the analyzer's noise parameter";
    if (agree.compared > 0) {
      f.details["launch_samples_compared"] = agree.compared;
      f.details["launch_samples_differing"] = agree.differing;
      // Identical launches: the misses are the policy's, decided by the access order
      // alone (no random choice; each launch starts from the same warm-up). Launches
      // that differ say nothing by themselves: noise differs from launch to launch too.
      f.details["launches_identical"] = agree.differing == 0;
    }
    f.details["informative_points"] = informative.size();
    f.details["aperiodic_points"] = aperiodic;
    if (aperiodic > 0) {
      f.value = "non-lru";
      f.confidence = std::clamp(1 - min_p, 0.0, 1.0);
      f.summary = "non-LRU: " + std::to_string(aperiodic) + " of " + std::to_string(informative.size()) +
                  " informative points are aperiodic (positions both hit and miss across rounds)";
      if (agree.compared > 0)
        f.summary += agree.differing == 0 ? "; the same misses in every launch (deterministic)"
                                          : "; launches differ at " + std::to_string(agree.differing) + " of " +
                                                std::to_string(agree.compared) + " samples";
    } else {
      f.value = "lru";
      f.details["note"] = "periodic: consistent with LRU (FIFO is indistinguishable on a cyclic chase)";
      // Power: more rounds and more informative points make periodicity convincing.
      f.confidence = std::min(1.0, static_cast<double>(rounds) / 10.0) *
                     std::min(1.0, 0.5 + 0.25 * static_cast<double>(informative.size()));
      f.summary = "LRU: all " + std::to_string(informative.size()) + " informative points are periodic over up to " +
                  std::to_string(rounds) + " rounds";
    }
    // Way probabilities: the informative point with the fewest missing lines
    // (one set overflowed by one line), longest run first.
    const PointResult* best = nullptr;
    for (const auto& r : informative) {
      if (r.missing < 2) continue;
      if (!best || r.missing < best->missing ||
          (r.missing == best->missing && r.miss_sequence.size() > best->miss_sequence.size()))
        best = &r;
    }
    if (best) {
      const WayInference w = infer_ways(best->miss_sequence, best->missing);
      nlohmann::json wj{{"point_id", best->point->point_id},
                        {"size_bytes", best->point->size_bytes()},
                        {"missing_lines", best->missing},
                        {"misses_followed", best->miss_sequence.size()}};
      if (w.ok) {
        std::vector<double> sorted = w.probabilities;
        std::sort(sorted.rbegin(), sorted.rend());
        f.details["way_probabilities"] = w.probabilities;
        f.details["way_probabilities_sorted"] = sorted;
        f.details["ways"] = w.ways;
        f.details["evictions"] = w.evictions;
        f.details["way_order_note"] = "ways are numbered in the order of their first eviction, not physically";
      } else {
        f.details["way_probabilities"] = nullptr;
        wj["reason"] = w.reason;
      }
      f.evidence["way_point"] = wj;
    }
    return {f};
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_replacement_analyzer() { return std::make_unique<ReplacementAnalyzer>(); }

}  // namespace dissect
