// partition_map: which SMs are near which L2 partition, and which lines each partition
// holds (issue 15 item 2), from one chase per SM over the same lines (every access an L2
// hit, per-access timing).
//
// An SM reaches the lines of its own partition sooner than the other's. So each SM splits
// the lines into near and far (at the middle of its p10 and p90); SMs that split alike
// form a group (near the same partition); the lines the first group finds near are the
// lines that partition holds. From those labels:
//   - the granularity: the largest aligned block of the array whose lines always share a
//     partition;
//   - the function: whether the partition is a XOR of address bits (from the granularity
//     up to the array's size; within one allocation's large page virtual and physical
//     bits agree) and a constant, by elimination over GF(2); else the best XOR and how
//     many lines it gets right: that XOR where it misses under 2 % of the lines (labels
//     voted by the SMs may be wrong on a few), no XOR of those bits where it misses over
//     10 %, undetermined between.
// SMs whose near and far lines are not told apart (a gap below `min_gap`) or that split
// unlike both groups leave the map undetermined.
#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <numeric>

#include "analyzers/analyzer.hpp"
#include "analyzers/stats/quantiles.hpp"
#include "analyzers/stats/report.hpp"
#include "engine/spec/units.hpp"

namespace dissect {
namespace {

// Solves label = c ^ XOR of the selected bits over GF(2); returns the mask (bit i of
// `bits`) and the constant, or nothing where no such function gives every label.
std::optional<std::pair<std::uint64_t, int>> solve_xor(const std::vector<std::uint64_t>& rows_bits,
                                                         const std::vector<int>& labels, std::size_t nbits) {
  // Row: nbits variables, then the constant's column (always 1), then the label.
  std::vector<std::uint64_t> rows(rows_bits.size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    rows[i] = rows_bits[i] | (1ull << nbits) | (static_cast<std::uint64_t>(labels[i] & 1) << (nbits + 1));
  std::vector<std::size_t> pivot_col;
  std::size_t r = 0;
  for (std::size_t c = 0; c <= nbits && r < rows.size(); ++c) {
    std::size_t p = r;
    while (p < rows.size() && !(rows[p] >> c & 1)) ++p;
    if (p == rows.size()) continue;
    std::swap(rows[r], rows[p]);
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (i != r && (rows[i] >> c & 1)) rows[i] ^= rows[r];
    pivot_col.push_back(c);
    ++r;
  }
  const std::uint64_t vars = (1ull << (nbits + 1)) - 1;
  for (std::size_t i = r; i < rows.size(); ++i)
    if ((rows[i] & vars) == 0 && (rows[i] >> (nbits + 1) & 1)) return std::nullopt;  // 0 = 1
  std::uint64_t mask = 0;
  int constant = 0;
  for (std::size_t i = 0; i < pivot_col.size(); ++i) {
    const int v = static_cast<int>(rows[i] >> (nbits + 1) & 1);
    if (pivot_col[i] == nbits) constant = v;
    else if (v) mask |= 1ull << pivot_col[i];
  }
  return std::make_pair(mask, constant);
}

class PartitionMapAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "partition_map"; }
  std::string purpose() const override {
    return "L2 partitions: which SMs are near which partition, which lines each holds (granularity) and whether "
           "the line-to-partition map is a XOR of address bits, from every SM chasing the same lines";
  }
  std::vector<AnalyzerParam> params() const override {
    return {{"min_gap", "10", "cycles between an SM's near and far lines (p90 - p10) to split them"},
            {"min_agreement", "0.75", "share of lines an SM must split as its group does"},
            {"max_bits", "16", "address bits the XOR search tries at most (from the granularity up; 1 to 20)"}};
  }

  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const override {
    const double min_gap = params.number("min_gap", 10);
    const double min_agreement = params.number("min_agreement", 0.75);
    const auto max_bits = static_cast<std::size_t>(std::clamp(params.number("max_bits", 16), 1.0, 20.0));
    for (const auto& p : traces.points) {
      if (p.status != "ok" && !p.status.empty()) continue;
      if (p.param("kernel", "pchase") != "pchase" || p.samples.empty()) continue;
      return {analyze_point(p, min_gap, min_agreement, max_bits)};
    }
    return {stats::undetermined(name(), "groups", "no pointer chase with samples")};
  }

 private:
  Finding analyze_point(const PointTrace& p, double min_gap, double min_agreement, std::size_t max_bits) const {
    // Each (SM, line) cell keeps its first three timed visits (the latency: the one visit,
    // the mean of two, the median of three): flat arrays over the SMs and lines seen.
    const auto samples = p.measured_samples();
    std::vector<std::int32_t> sm_ids;
    std::vector<std::uint64_t> offsets;
    sm_ids.reserve(samples.size());
    offsets.reserve(samples.size());
    for (const Sample* x : samples) sm_ids.push_back(x->sm_id), offsets.push_back(x->offset_bytes);
    auto unique_sorted = [](auto& v) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    };
    unique_sorted(sm_ids);
    unique_sorted(offsets);
    struct Cell {
      float v[3] = {0, 0, 0};
      std::uint8_t n = 0;
    };
    std::vector<Cell> cells(sm_ids.size() * offsets.size());
    auto index_of = [](const auto& v, auto key) {
      return static_cast<std::size_t>(std::lower_bound(v.begin(), v.end(), key) - v.begin());
    };
    for (const Sample* x : samples) {
      Cell& c = cells[index_of(sm_ids, x->sm_id) * offsets.size() + index_of(offsets, x->offset_bytes)];
      if (c.n < 3) c.v[c.n++] = static_cast<float>(x->latency);
    }
    auto latency_of = [&](std::size_t k, std::size_t line) {
      const Cell& c = cells[k * offsets.size() + line];
      if (c.n == 1) return double{c.v[0]};
      if (c.n == 2) return (double{c.v[0]} + double{c.v[1]}) / 2;
      return double{std::max(std::min(c.v[0], c.v[1]), std::min(std::max(c.v[0], c.v[1]), c.v[2]))};
    };
    std::vector<std::size_t> line_at;  // index into offsets of each line every SM visited
    std::vector<std::uint64_t> lines;
    for (std::size_t i = 0; i < offsets.size(); ++i) {
      bool all = true;
      for (std::size_t k = 0; k < sm_ids.size() && all; ++k) all = cells[k * offsets.size() + i].n > 0;
      if (all) line_at.push_back(i), lines.push_back(offsets[i]);
    }
    nlohmann::json ev{{"sms", sm_ids.size()}, {"lines", lines.size()}};
    auto fail = [&](const std::string& why) {
      Finding f = stats::undetermined(name(), "groups", why);
      f.evidence = ev;
      return f;
    };
    if (sm_ids.size() < 2) return fail("one SM: the map needs several SMs over the same lines");
    if (const std::uint64_t blocks = p.param_u64("blocks", 0); blocks > sm_ids.size())
      return fail(std::to_string(blocks) + " blocks ran on " + std::to_string(sm_ids.size()) +
                  " SMs: some SMs ran two, and the map would leave out SMs it never saw");
    if (lines.size() < 64) return fail("fewer than 64 lines every SM visited");
    std::vector<std::int32_t> sms;
    std::vector<std::vector<char>> near;  // per SM, per line
    std::vector<std::vector<double>> lat;
    nlohmann::json gaps = nlohmann::json::array();
    for (std::size_t k = 0; k < sm_ids.size(); ++k) {
      const std::int32_t sm = sm_ids[k];
      std::vector<double> v;
      v.reserve(lines.size());
      for (const std::size_t i : line_at) v.push_back(latency_of(k, i));
      const double p10 = stats::quantile(v, 0.10), p90 = stats::quantile(v, 0.90);
      gaps.push_back({sm, p90 - p10});
      if (p90 - p10 < min_gap)
        return fail("SM " + std::to_string(sm) + " sees its lines within " + stats::fmt(p90 - p10) +
                    " cycles (p10 to p90): no near and far lines to tell apart (min_gap " + stats::fmt(min_gap) + ")");
      const double mid = (p10 + p90) / 2;
      std::vector<char> n(v.size());
      for (std::size_t i = 0; i < v.size(); ++i) n[i] = v[i] < mid ? 1 : 0;
      sms.push_back(sm);
      near.push_back(std::move(n));
      lat.push_back(std::move(v));
    }
    ev["spread_p10_p90"] = gaps;
    // Groups: first by agreement with the first SM's split; then each SM against its
    // group's majority (the labels), which the first SM's own noise no longer sways.
    std::vector<int> group(sms.size());
    for (std::size_t k = 0; k < sms.size(); ++k) {
      std::size_t same = 0;
      for (std::size_t i = 0; i < lines.size(); ++i) same += near[k][i] == near[0][i];
      group[k] = 2 * same >= lines.size() ? 0 : 1;
    }
    // Line labels: 1 where group 0's majority finds it near.
    std::vector<int> label(lines.size());
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::size_t votes = 0, members = 0;
      for (std::size_t k = 0; k < sms.size(); ++k)
        if (group[k] == 0) votes += static_cast<std::size_t>(near[k][i]), ++members;
      label[i] = 2 * votes > members ? 1 : 0;
    }
    nlohmann::json fits = nlohmann::json::array();
    for (std::size_t k = 0; k < sms.size(); ++k) {
      std::size_t same = 0;
      for (std::size_t i = 0; i < lines.size(); ++i) same += near[k][i] == label[i];
      const double a = static_cast<double>(same) / static_cast<double>(lines.size());
      group[k] = a >= 0.5 ? 0 : 1;
      const double fit = group[k] == 0 ? a : 1 - a;
      fits.push_back({sms[k], fit});
      if (fit < min_agreement) {
        ev["agreement_with_group"] = fits;
        return fail("SM " + std::to_string(sms[k]) + " splits the lines like neither group (" + stats::percent(fit) +
                    " of lines as its nearer group's majority; min_agreement " + stats::percent(min_agreement) + ")");
      }
    }
    ev["agreement_with_group"] = fits;
    std::vector<std::int32_t> g0, g1;
    for (std::size_t k = 0; k < sms.size(); ++k) (group[k] == 0 ? g0 : g1).push_back(sms[k]);
    ev["groups"] = {g0, g1};
    double margin_sum = 0;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      double a = 0, b = 0;
      std::size_t na = 0, nb = 0;
      for (std::size_t k = 0; k < sms.size(); ++k) {
        if (group[k] == 0) a += lat[k][i], ++na;
        else b += lat[k][i], ++nb;
      }
      if (na > 0 && nb > 0) margin_sum += std::fabs(a / static_cast<double>(na) - b / static_cast<double>(nb));
    }
    const double share = std::accumulate(label.begin(), label.end(), 0.0) / static_cast<double>(label.size());
    Finding f;
    f.analyzer = name();
    f.unit = "groups";
    f.details["sm_groups"] = {g0, g1};
    f.details["lines"] = lines.size();
    f.details["share_of_lines_near_group_0"] = share;
    if (!g1.empty()) f.details["near_far_cycles"] = margin_sum / static_cast<double>(lines.size());
    if (g1.empty()) {
      f.value = 1;
      f.confidence = 0.8;
      f.summary = "every SM (" + std::to_string(sms.size()) +
                  ") splits the lines alike: one group, no partition nearer some SMs than others";
      f.evidence = ev;
      return f;
    }
    // Granularity: the largest aligned block whose lines (two or more seen) share a label.
    const std::uint64_t stride = p.stride_bytes() > 0 ? p.stride_bytes() : 128;
    std::uint64_t granule = stride;
    for (std::uint64_t blk = 2 * stride; blk <= p.size_bytes() && blk > 0; blk *= 2) {
      std::map<std::uint64_t, std::pair<int, int>> counts;  // block -> (lines, labelled 1)
      for (std::size_t i = 0; i < lines.size(); ++i) {
        auto& c = counts[lines[i] / blk];
        ++c.first;
        c.second += label[i];
      }
      std::size_t seen = 0, uniform = 0;
      for (const auto& [b, c] : counts)
        if (c.first >= 2) ++seen, uniform += (c.second == 0 || c.second == c.first) ? 1 : 0;
      if (seen == 0 || 100 * uniform < 99 * seen) break;
      granule = blk;
    }
    f.details["granularity_bytes"] = granule;
    // The XOR fit over bits log2(granule) .. log2(N) - 1.
    const int lo = std::countr_zero(granule);
    const int hi = std::max(lo, static_cast<int>(std::bit_width(std::max<std::uint64_t>(p.size_bytes(), 1))) - 1);
    const std::size_t nbits = std::min<std::size_t>(static_cast<std::size_t>(hi - lo), max_bits);
    std::vector<std::uint64_t> xs(lines.size());
    for (std::size_t i = 0; i < lines.size(); ++i) xs[i] = (lines[i] >> lo) & ((1ull << nbits) - 1);
    nlohmann::json bit_list = nlohmann::json::array();
    f.details["xor_bits_tried"] = {lo, lo + static_cast<int>(nbits) - 1};
    if (const auto sol = solve_xor(xs, label, nbits)) {
      for (std::size_t b = 0; b < nbits; ++b)
        if (sol->first >> b & 1) bit_list.push_back(lo + static_cast<int>(b));
      f.details["xor_bits"] = bit_list;
      f.details["xor_constant"] = sol->second;
      f.details["function"] = "xor";
    } else {
      // The best XOR (every mask) and what it gets right. The labels are a majority vote and
      // may be wrong on a few lines: a XOR that explains nearly all of them is reported as
      // that XOR with the lines it misses, "no XOR" only well below what noise could do,
      // and undetermined between.
      double best = 0;
      std::uint64_t best_mask = 0;
      for (std::uint64_t mask = 1; mask < (1ull << nbits); ++mask) {
        std::size_t right = 0;
        for (std::size_t i = 0; i < xs.size(); ++i) right += (std::popcount(xs[i] & mask) & 1) == label[i];
        const double a = static_cast<double>(std::max(right, xs.size() - right)) / static_cast<double>(xs.size());
        if (a > best) best = a, best_mask = mask;
      }
      for (std::size_t b = 0; b < nbits; ++b)
        if (best_mask >> b & 1) bit_list.push_back(lo + static_cast<int>(b));
      f.details["best_xor_bits"] = bit_list;
      f.details["best_xor_agreement"] = best;
      if (best >= 0.98) {
        f.details["function"] = "xor";
        f.details["xor_bits"] = bit_list;
        f.details["lines_off_the_xor"] = static_cast<std::uint64_t>(std::llround((1 - best) * static_cast<double>(xs.size())));
      } else if (best <= 0.9) {
        f.details["function"] = "not a xor of these bits";
      } else {
        f.details["function"] = "undetermined";
      }
    }
    f.value = 2;
    f.confidence = 0.9;
    const bool is_xor = f.details["function"] == "xor";
    std::string fn;
    if (is_xor && bit_list.empty()) {
      fn = "every line lies in one partition";
    } else if (is_xor) {
      fn = "the partition is the XOR of address bits";
      for (const auto& b : bit_list) fn += " " + b.dump();
      if (f.details.contains("lines_off_the_xor"))
        fn += " (but for " + f.details["lines_off_the_xor"].dump() + " lines, labelled by a vote of the SMs)";
    } else if (f.details["function"] == "undetermined") {
      fn = "whether the partition is a XOR of address bits is not read: the best one gets " +
           stats::percent(f.details["best_xor_agreement"].get<double>()) +
           " of the lines right, between what noise in the labels explains and what it does not";
    } else {
      fn = "the partition is no XOR of address bits " + std::to_string(lo) + ".." + std::to_string(lo + static_cast<int>(nbits) - 1) +
           " (the best one gets " + stats::percent(f.details["best_xor_agreement"].get<double>()) + " of the lines right)";
    }
    f.summary = "two groups of SMs (" + std::to_string(g0.size()) + " and " + std::to_string(g1.size()) +
                "), each nearer one partition (by " + stats::fmt(f.details["near_far_cycles"].get<double>()) +
                " cycles); lines go to a partition in blocks of " + format_bytes(granule) + ", " +
                stats::percent(share) + " of them to the first group's; " + fn;
    f.evidence = ev;
    return f;
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_partition_map_analyzer() { return std::make_unique<PartitionMapAnalyzer>(); }

}  // namespace dissect
