// tlb_scope: whether a TLB level is private to an SM or shared by SMs (issue 16), from
// chases that B SMs make at once, each over an array of its own (layout.array per_block:
// copies placed apart, every SM on pages of its own), in random order, one slot per
// entry (the level's granule plus a pad).
//
// Every SM chases F = 3E/4 slots: one SM alone keeps them all in the level's E entries.
// B SMs that share the level need B x 3E/4 entries of it, more than E from B = 2 on, and
// miss; SMs with a level each keep hitting. Block 0 runs on the same SM over the same
// lines (its copy first in the arena) whatever B is, so its latency moves only with its
// translations: it is read against itself alone (B = 1). The level's penalty is read on
// the same slots from one SM chasing more slots (the topology: 3E/2, the footprint two
// SMs sharing the level give it, so that a level that is not LRU misses the same share of
// accesses in both): a point of B SMs counts as "shared" when block 0 pays more than half
// of it, "private" below a quarter, and is left unread between.
//
// Block 0's slots are few (3E/4 of a level's entries), and each lies in the near or far
// L2 partition; reading block 0 against itself on the same lines keeps that
// mix out of the comparison (a changing set of slots would not).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analyzers/analyzer.hpp"
#include "analyzers/stats/report.hpp"
#include "analyzers/stats/sample_mean.hpp"
#include "engine/spec/units.hpp"

namespace dissect {
namespace {

struct ScopePoint {
  const PointTrace* point = nullptr;
  std::uint32_t blocks = 1;
  std::uint64_t slots = 0;
  std::set<std::int32_t> sms;
};

class TlbScopeAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "tlb_scope"; }
  std::string purpose() const override {
    return "TLB scope: whether a level is private to each SM or shared, from B SMs chasing arrays of their own at "
           "once (3E/4 slots each), read on block 0 against itself alone, beside the level's penalty";
  }
  std::vector<AnalyzerParam> params() const override {
    return {{"min_penalty", "2", "cycles the level's penalty must reach to read a scope from it"},
            {"z", "4", "standard errors a difference must exceed to count"}};
  }

  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const override {
    const double min_penalty = params.number("min_penalty", 2);
    const double z = params.number("z", 4);
    std::map<std::uint64_t, std::vector<ScopePoint>> by_stride;
    for (const auto& p : traces.points) {
      if (p.status != "ok" && !p.status.empty()) continue;
      if (p.param("kernel", "pchase") != "pchase" || p.device_note("block_arrays") != "per_block") continue;
      if (p.samples.empty() || p.stride_bytes() == 0) continue;
      ScopePoint sp;
      sp.point = &p;
      sp.blocks = static_cast<std::uint32_t>(std::max<std::uint64_t>(1, p.param_u64("blocks", 1)));
      sp.slots = p.size_bytes() / p.stride_bytes();
      for (const Sample& x : p.samples) sp.sms.insert(x.sm_id);
      by_stride[p.stride_bytes()].push_back(sp);
    }
    std::vector<Finding> out;
    for (auto& [stride, pts] : by_stride) out.push_back(analyze_level(stride, pts, min_penalty, z));
    if (out.empty())
      return {stats::undetermined(name(), "",
                                  "no pointer chase with arrays of their own per block (layout.array per_block): "
                                  "tlb_scope compares B SMs chasing at once with one SM")};
    return out;
  }

 private:
  // Chasers of one block (layout.chasers: thread indices, space-separated): block 0's
  // are the streams numbered 0 .. per_block - 1 modulo the point's chasers.
  static std::uint64_t chasers_per_block(const ScopePoint& sp) {
    std::uint64_t n = 0;
    for (const char c : sp.point->param("chasers", "0") + " ")
      if (c == ' ') ++n;
    return std::max<std::uint64_t>(1, n);
  }

  // The SM block 0 ran on (-1: none recorded).
  static std::int32_t block0_sm(const ScopePoint& sp) {
    const std::uint64_t per_block = chasers_per_block(sp);
    const std::uint64_t chasers = per_block * std::max<std::uint32_t>(1, sp.blocks);
    for (const Sample& s : sp.point->samples)
      if (s.thread % chasers < per_block) return s.sm_id;
    return -1;
  }

  // Block 0's timed accesses to slots below `slots`.
  static std::vector<double> block0(const ScopePoint& sp, std::uint64_t slots) {
    const std::uint64_t per_block = chasers_per_block(sp);
    const std::uint64_t chasers = per_block * std::max<std::uint32_t>(1, sp.blocks);
    const std::uint64_t stride = sp.point->stride_bytes();
    std::vector<double> v;
    for (const Sample* s : sp.point->measured_samples())
      if (s->thread % chasers < per_block && s->offset_bytes / stride < slots) v.push_back(s->latency);
    return v;
  }

  Finding analyze_level(std::uint64_t stride, std::vector<ScopePoint>& pts, double min_penalty, double z) const {
    nlohmann::json ev{{"stride_bytes", stride}, {"points", nlohmann::json::array()}, {"points_not_read", nlohmann::json::array()}};
    auto fail = [&](const std::string& why) {
      Finding f = stats::undetermined(name(), "", "stride " + format_bytes(stride) + ": " + why);
      f.details["stride_bytes"] = stride;
      f.evidence = ev;
      return f;
    };
    // The one-SM points: the fewest slots is the reference, the most the penalty.
    const ScopePoint* alone = nullptr;
    const ScopePoint* over = nullptr;
    for (const auto& sp : pts) {
      if (sp.blocks != 1) continue;
      if (alone == nullptr || sp.slots < alone->slots) alone = &sp;
      if (over == nullptr || sp.slots > over->slots) over = &sp;
    }
    if (alone == nullptr || over == nullptr || over->slots <= alone->slots)
      return fail("needs one SM at two slot counts (the reference, and past the level's entries for its penalty)");
    const std::uint64_t slots_per_sm = alone->slots;
    const stats::SampleMean ref = stats::sample_mean(block0(*alone, slots_per_sm));
    const stats::SampleMean past = stats::sample_mean(block0(*over, slots_per_sm));
    const double penalty = past.mean - ref.mean;
    const double penalty_se = std::hypot(past.se, ref.se);
    ev["reference"] = {{"slots", slots_per_sm}, {"mean", ref.mean}, {"se", ref.se}, {"accesses", ref.n}};
    ev["past_entries"] = {{"slots", over->slots}, {"mean_on_reference_slots", past.mean}, {"se", past.se},
                          {"accesses", past.n}};
    if (ref.n == 0 || past.n == 0) return fail("no accesses of block 0 on the reference slots");
    if (penalty < min_penalty || penalty < z * penalty_se)
      return fail("one SM over " + std::to_string(over->slots) + " slots pays only " + stats::fmt(penalty) +
                  " cycles more on the same " + std::to_string(slots_per_sm) + " slots than over " + std::to_string(slots_per_sm) +
                  " (standard error " + stats::fmt(penalty_se) + "): no level runs out between them");
    if (block0_sm(*over) != block0_sm(*alone))
      return fail("block 0 ran on SM " + std::to_string(block0_sm(*over)) + " over " + std::to_string(over->slots) +
                  " slots, on SM " + std::to_string(block0_sm(*alone)) + " over " + std::to_string(slots_per_sm) +
                  ": the penalty is not read on the same lines' latencies");
    std::uint32_t largest_private = 1, smallest_shared = 0;
    std::string unread;
    std::vector<const ScopePoint*> others;
    for (const auto& sp : pts)
      if (sp.blocks > 1 && sp.slots == slots_per_sm) others.push_back(&sp);
    std::sort(others.begin(), others.end(), [](const ScopePoint* a, const ScopePoint* b) { return a->blocks < b->blocks; });
    if (others.empty()) return fail("no point of several SMs at once over " + std::to_string(slots_per_sm) + " slots each");
    for (const ScopePoint* sp : others) {
      const stats::SampleMean r = stats::sample_mean(block0(*sp, slots_per_sm));
      const double d = r.mean - ref.mean, se = std::hypot(r.se, ref.se);
      const double share = d / penalty;
      nlohmann::json j{{"blocks", sp->blocks},   {"sm_ids", std::vector<std::int32_t>(sp->sms.begin(), sp->sms.end())},
                       {"block0_mean", r.mean}, {"se", r.se}, {"rise_cycles", d}, {"share_of_penalty", share}};
      std::string verdict;
      if (block0_sm(*sp) != block0_sm(*alone)) {
        // Another SM sees the same lines at other latencies (the L2's near and far halves):
        // this point is not read; the others still are.
        verdict = "block 0 on another SM: not read";
        ev["points_not_read"].push_back("block 0 ran on SM " + std::to_string(block0_sm(*sp)) + " with " +
                                        std::to_string(sp->blocks) + " SMs at once, on SM " +
                                        std::to_string(block0_sm(*alone)) + " alone: not the same lines' latencies");
      } else if (sp->sms.size() < sp->blocks) {
        verdict = "blocks shared SMs";
        unread = std::to_string(sp->blocks) + " blocks ran on " + std::to_string(sp->sms.size()) + " SMs";
      } else if (share > 0.5 && d > z * se) {
        verdict = "shared";
        if (smallest_shared == 0) smallest_shared = sp->blocks;
      } else if (share < 0.25 && d + z * se < 0.5 * penalty) {  // below half the penalty beyond doubt
        verdict = "private";
        if (smallest_shared == 0) largest_private = sp->blocks;
        else unread = "private again at " + std::to_string(sp->blocks) + " SMs after shared at " +
                      std::to_string(smallest_shared);
      } else {
        verdict = "between";
        unread = std::to_string(sp->blocks) + " SMs at once pay " + stats::percent(share) + " of the penalty (+-" +
                 stats::fmt(z * se) + " cycles): neither private (below 25 %, and half the penalty beyond " +
                 stats::fmt(z) + " standard errors) nor shared (above 50 %)";
      }
      j["verdict"] = verdict;
      ev["points"].push_back(j);
    }
    if (!unread.empty()) return fail(unread + ": the scope is not read");
    if (smallest_shared == 0 && largest_private == 1)
      return fail("no point of several SMs at once had block 0 on the SM it ran on alone: the scope is not read");
    // Shared by every SM needs two SMs at once running out of it; B > 2 SMs running out,
    // with no smaller B read, leaves groups of SMs open.
    if (smallest_shared > 2 && largest_private == 1)
      return fail(std::to_string(smallest_shared) + " SMs at once run out of it, and no smaller number of SMs was "
                  "read: shared by every SM or by groups of SMs, not told apart");
    Finding fd;
    fd.analyzer = name();
    fd.unit = "";
    fd.details["stride_bytes"] = stride;
    fd.details["slots_per_sm"] = slots_per_sm;
    fd.details["penalty_cycles"] = penalty;
    fd.evidence = ev;
    const std::string level = "the level one SM runs out of between " + std::to_string(slots_per_sm) + " and " +
                              std::to_string(over->slots) + " slots of " + format_bytes(stride) + " (+" +
                              stats::fmt(penalty) + " cycles)";
    if (smallest_shared == 0) {
      fd.value = "sm";
      fd.details["private_up_to_sms"] = largest_private;
      fd.confidence = 0.9;
      fd.summary = "private to each SM: with " + std::to_string(largest_private) + " SMs chasing " +
                   std::to_string(slots_per_sm) + " slots each at once, none misses (" + level +
                   "); a group of SMs that shared a level would need two of them among these";
    } else if (largest_private == 1) {
      fd.value = "shared";
      fd.details["shared_by_sms"] = smallest_shared;
      fd.confidence = 0.9;
      fd.summary = "shared: " + std::to_string(smallest_shared) + " SMs chasing " + std::to_string(slots_per_sm) +
                   " slots each at once run out of it (" + level + ")";
    } else {
      fd.value = "group";
      fd.details["private_up_to_sms"] = largest_private;
      fd.details["shared_from_sms"] = smallest_shared;
      fd.confidence = 0.7;
      fd.summary = "shared by groups of SMs: " + std::to_string(largest_private) + " SMs at once keep their entries, " +
                   std::to_string(smallest_shared) + " run out (" + level + ")";
    }
    return fd;
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_tlb_scope_analyzer() { return std::make_unique<TlbScopeAnalyzer>(); }

}  // namespace dissect
