// line_capacity: the allocation line of a cache from how much of it a sparse
// chase occupies. A small-stride chase sees misses recur every fetch unit
// (line_size), which on a sectored cache is the 32 B sector, not the 128 B
// line (PITFALLS "Sector vs line"). Here the chase touches ONE element per
// block of b bytes (pattern page_random: at a random place in each block, so
// that lines sharing a set are picked independently) over N = 1.25 C:
//   b <= line: every line of the array is touched, the chase occupies N bytes
//              of cache, more than C: it misses;
//   b >  line: one line in b/line is touched, the chase occupies N * line / b
//              bytes, at b = 2 x line 0.63 C: it fits.
// So the line is the largest b at which the chase still misses like the
// plain stride-f chase does. Fine-grained points give each block size its
// miss share; chain points (one average per chain: no samples are stored
// during the chase, which on the H100 evicts L1 lines) give its average
// latency, read against the fastest block size. Independent of the replacement policy (no run
// structure needed), which is what the line_size analyzer cannot say for the
// non-LRU sectored L1 of Volta and later.
#include <algorithm>
#include <map>

#include "analyzers/analyzer.hpp"
#include "analyzers/stats/chase.hpp"
#include "analyzers/stats/levels.hpp"
#include "analyzers/stats/quantiles.hpp"
#include "analyzers/stats/report.hpp"
#include "engine/spec/units.hpp"

namespace dissect {
namespace {

struct BlockPoint {
  std::uint64_t block = 0;
  std::uint64_t size = 0;
  const PointTrace* point = nullptr;
  std::uint64_t misses = 0, samples = 0;
  double share = 0;  // miss share (fine-grained), or the excess latency over the fastest block (chain)
  [[nodiscard]] double miss_share() const { return share; }
};

class LineCapacityAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "line_capacity"; }
  std::string purpose() const override {
    return "allocation line size (beyond the sector): largest block b at which one access per b-byte block over "
           "N > C still overflows the cache";
  }
  std::vector<AnalyzerParam> params() const override {
    return {{"full_share", "0.5", "a block size 'fills' the cache when its miss share reaches this share of the "
                                  "largest among the smaller blocks'"},
            {"min_miss_share", "0.05",
             "miss share the smallest block needs, fine-grained (else N does not exceed the cache); chain timing "
             "needs its average 20% above the fastest block's"}};
  }
  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const override {
    const double full_share = params.number("full_share", 0.5);
    const double min_miss = params.number("min_miss_share", 0.05);
    std::map<std::uint64_t, BlockPoint> by_block;  // one point per block size (the first)
    for (const auto& p : traces.points) {
      const std::string pattern = p.param("pattern");
      if (p.samples.empty() || (pattern != "page_random" && pattern != "page_strided") ||
          (p.status != "ok" && !p.status.empty()))
        continue;
      const std::uint64_t b = p.param_u64("page_bytes");
      if (b == 0 || by_block.count(b) != 0) continue;
      by_block[b] = BlockPoint{b, p.size_bytes(), &p, 0, 0};
    }
    if (by_block.size() < 2)
      return {stats::undetermined(name(), "B",
                                  "needs a page_random chase (fine-grained or chain timing) over at least two block "
                                  "sizes (array.page swept, one access per block)")};

    bool chain = true;
    for (const auto& [b, bp] : by_block) chain = chain && bp.point->param("timing_mode") == "chain";
    if (chain) return {analyze_chain(by_block, full_share)};
    // One level model for all points: a sample above the hit level's reach
    // (and 25% above its median) is a miss.
    std::vector<double> pool;
    for (const auto& [b, bp] : by_block) {
      const auto l = stats::latencies(bp.point->measured_samples(), 20000);
      pool.insert(pool.end(), l.begin(), l.end());
    }
    stats::LevelOptions lo;
    lo.min_share = 1e-3;
    const stats::LevelModel m = stats::cluster_levels(pool, lo);
    if (m.empty()) return {stats::undetermined(name(), "B", "no samples")};
    const int hit = stats::hit_level(m, 0.02);
    const auto& hl = m.levels[static_cast<std::size_t>(hit)];
    const double bar = std::max(hl.fence_hi, 1.25 * hl.median);
    for (auto& [b, bp] : by_block)
      for (const Sample* s : bp.point->measured_samples()) {
        ++bp.samples;
        bp.misses += s->latency > bar ? 1 : 0;
      }
    for (auto& [b, bp] : by_block)
      bp.share = bp.samples == 0 ? 0 : static_cast<double>(bp.misses) / static_cast<double>(bp.samples);

    nlohmann::json table = nlohmann::json::array();
    for (const auto& [b, bp] : by_block)
      table.push_back({{"block_bytes", b}, {"size_bytes", bp.size}, {"point_id", bp.point->point_id},
                       {"miss_share", bp.miss_share()}, {"samples", bp.samples}});
    nlohmann::json ev;
    ev["blocks"] = table;
    ev["hit_latency_cycles"] = hl.median;
    ev["miss_bar_cycles"] = bar;
    ev["levels"] = m.to_json();

    return {decide(by_block, ev, full_share, min_miss, "misses", "of its accesses")};
  }

 private:
  // Chain timing: each point's median chain average; the excess over the
  // fastest block size stands for its misses.
  Finding analyze_chain(std::map<std::uint64_t, BlockPoint>& by_block, double full_share) const {
    double fastest = 0;
    bool first = true;
    for (auto& [b, bp] : by_block) {
      const auto l = stats::latencies(bp.point->measured_samples());
      bp.samples = l.size();
      const double m = l.empty() ? 0 : stats::median(l);
      bp.share = m;
      if (first || m < fastest) fastest = m;
      first = false;
    }
    nlohmann::json table = nlohmann::json::array();
    for (auto& [b, bp] : by_block) {
      table.push_back({{"block_bytes", b}, {"size_bytes", bp.size}, {"point_id", bp.point->point_id},
                       {"chain_average_cycles", bp.share}, {"samples", bp.samples}});
      bp.share = fastest > 0 ? bp.share / fastest - 1 : 0;  // relative excess
    }
    nlohmann::json ev;
    ev["blocks"] = table;
    ev["fastest_average_cycles"] = fastest;
    // A plain fetch-stride chase over 1.25 C averages well above the hits: at
    // least 20% (a few % of misses at several times the hit latency).
    return decide(by_block, ev, full_share, 0.2, "averages", "above the fastest block size");
  }

  Finding decide(const std::map<std::uint64_t, BlockPoint>& by_block, nlohmann::json ev, double full_share,
                 double min_miss, const std::string& verb, const std::string& what) const {
    const BlockPoint& smallest = by_block.begin()->second;
    const double ref = smallest.miss_share();
    if (ref < min_miss) {
      Finding u = stats::undetermined(
          name(), "B",
          "the smallest block (" + format_bytes(smallest.block) + ") " + verb + " only " + stats::percent(ref) +
              " " + what + " at N = " + format_bytes(smallest.size) +
              ": N must exceed the cache (1.25 x its size) for the method to work");
      u.evidence = ev;
      return u;
    }
    // The line: the end of the leading run of block sizes that fill the cache. A
    // block fills when it misses at least full_share of the most that any smaller
    // block missed (the peak so far), not of the smallest block's: on an unsectored
    // cache the smallest block hits on the rest of each line it loads (one miss in
    // line / b accesses), so its share is small, and at b = 2 x line the conflict
    // misses of a cache with few ways (one line of each pair, sets receiving more
    // than their share) could still reach half of it. Against the peak they do not:
    // b = 2 x line halves the occupancy and leaves at most about half of the misses
    // of b = line (tests/analyzers/calibration_test.cpp found 15 % to 50 % on
    // generated 2- to 6-way caches; measured against the smallest block, those
    // claimed twice the line at confidence 1).
    std::uint64_t line = 0, next = 0;
    std::size_t against = 0;
    bool run = true;
    double peak = ref, line_share = ref, highest_fitting = 0;
    for (const auto& [b, bp] : by_block) {
      const bool full = bp.miss_share() >= std::max(min_miss, full_share * peak);
      if (run && full) {
        line = b;
        line_share = bp.miss_share();
        peak = std::max(peak, line_share);
        continue;
      }
      if (run) next = b;
      run = false;
      if (full) ++against;  // fills again above a block that fits: not the expected shape
      else highest_fitting = std::max(highest_fitting, bp.miss_share());
    }
    const std::uint64_t largest = by_block.rbegin()->first;
    if (next == 0) {
      Finding u = stats::undetermined(name(), "B",
                                      "every block size up to " + format_bytes(largest) +
                                          " still fills the cache: the line is at least " + format_bytes(largest) +
                                          " (or N is far above the cache size; extend array.page)");
      u.details["lower_bound_bytes"] = largest;
      u.evidence = ev;
      return u;
    }
    Finding f;
    f.analyzer = name();
    f.unit = "B";
    f.value = line;
    f.evidence = ev;
    f.details["line_bytes"] = line;
    f.details["fetch_bytes"] = smallest.block;
    f.details["fits_from_block_bytes"] = next;
    f.details["blocks_against_shape"] = against;
    // Confidence: how far the two decisive block sizes lie from the fill bar
    // (full_share of the peak): the line's share above it, the best-fitting
    // larger block's below it, the nearer of the two in units of the peak, full
    // from 0.15 on; and whether the sizes above the line all fit. In a sectored
    // cache blocks under the line overflow more than the line itself, so the
    // line may sit well below the peak and still be the line; a block at half
    // the peak may be the line or the conflict misses of twice the line.
    const double margin = peak > 0 ? std::min(line_share / peak - full_share, full_share - highest_fitting / peak) : 0;
    f.details["fill_margin"] = margin;
    f.confidence = std::clamp(margin / 0.15, 0.0, 1.0) *
                   (1.0 - static_cast<double>(against) / static_cast<double>(by_block.size()));
    f.details["measure"] = verb + " " + what;
    f.summary = format_bytes(line) + ": one access per " + format_bytes(line) + " block still overflows the cache (" +
                verb + " " + stats::percent(by_block.at(line).miss_share()) + " " + what + "; every " +
                format_bytes(smallest.block) + ": " + stats::percent(ref) + "), one per " + format_bytes(next) +
                " fits (" + stats::percent(by_block.at(next).miss_share()) + ") at N = " + format_bytes(smallest.size) +
                ": " + format_bytes(line) + " lines" +
                (line > smallest.block ? " of " + format_bytes(smallest.block) + " sectors" : "");
    if (against > 0)
      f.details["note"] = std::to_string(against) + " block size(s) above " + format_bytes(next) +
                          " fill the cache again: conflict misses, or a mapping the random placement does not spread";
    return f;
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_line_capacity_analyzer() { return std::make_unique<LineCapacityAnalyzer>(); }

}  // namespace dissect
