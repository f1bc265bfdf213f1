// bandwidth: throughput kernels (seed 000 §5.1, §6.1). One sample per warp per
// repeat: latency = cycles from the warp's first to its last load (stores: to their
// completion), offset_bytes = bytes it loaded (stored); sm_id = the SM it ran on.
// Loads and stores (the point's `access`) are read alike; a sweep of both reports
// the peak of each beside the overall one (by_access).
//
// Per point, two ways to the rate:
//  - sm_clocks: when every block ran on an SM of its own (as many distinct SMs as
//    blocks), each SM's rate is its bytes over its slowest warp (the warps start
//    together after a barrier), per repeat; the point's rate is the sum over the
//    SMs (they run concurrently), the per-SM rate their mean. No launch overhead.
//  - kernel_time: otherwise (several blocks per SM, one after another), bytes over
//    the kernel time, launch overhead included (a lower bound); per SM = that over
//    the SMs seen.
// Without a kernel time or one block per SM the per-SM warp rates are summed (an
// upper bound: warp_clocks). The finding is the peak over the points, always with
// the number of SMs it was measured on: a figure of one SM is never the device's,
// and the smallest ILP x warps per SM (the warps of all the blocks an SM ran) that
// comes within peak_share of it.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "analyzers/analyzer.hpp"
#include "analyzers/stats/report.hpp"

namespace dissect {
namespace {

struct Tp {
  const PointTrace* point = nullptr;
  std::uint64_t ilp = 1, threads = 0, blocks = 1, warps = 0;
  std::uint64_t blocks_per_sm = 1;  // blocks over the SMs seen (rounded up)
  std::string element, access;
  [[nodiscard]] std::uint64_t warps_per_sm() const { return warps * blocks_per_sm; }
  double bytes = 0;
  double gbps = std::nan("");         // the point's figure (method below)
  double bpc = 0, bpc_sm = 0;         // bytes per cycle over the SMs that ran, and per SM
  double kernel_gbps = std::nan("");  // bytes over the kernel time, launch included
  double sm_min = std::nan(""), sm_median = std::nan(""), sm_max = std::nan("");  // sm_clocks: spread over SMs
  std::size_t sms = 0;                // distinct SMs (0: unknown)
  std::string method;
};

double median_of(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

std::string gbps_text(double gbps) {
  return gbps >= 1000 ? stats::fmt(gbps / 1000, 3) + " TB/s" : stats::fmt(gbps, 4) + " GB/s";
}

std::string sms_text(std::size_t sms) {
  if (sms == 0) return "on an unknown number of SMs";
  return sms == 1 ? "on 1 SM only (one SM's figure, not the device's)" : "over " + std::to_string(sms) + " SMs";
}

class BandwidthAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "bandwidth"; }
  std::string purpose() const override {
    return "bytes per cycle per SM and GB/s over the SMs that ran, for throughput kernels (loads or stores); "
           "the ILP x warps per SM that reach the peak";
  }
  std::vector<AnalyzerParam> params() const override {
    return {{"peak_share", "0.95", "a point within this share of the peak reaches it"},
            {"warp_size", "32", "threads per warp"}};
  }
  std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const override {
    const double share = params.number("peak_share", 0.95);
    const double warp = params.number("warp_size", 32);
    std::vector<Tp> pts;
    for (const auto& p : traces.points) {
      if (p.param("kernel") != "throughput" || p.samples.empty()) continue;
      Tp t;
      t.point = &p;
      t.ilp = p.param_u64("ilp", 1);
      t.threads = p.param_u64("threads", 0);
      t.blocks = p.param_u64("blocks", 1);
      t.element = p.param("element");
      t.access = p.param("access").empty() ? "load" : p.param("access");
      t.warps = static_cast<std::uint64_t>(std::ceil(static_cast<double>(t.threads) / warp));
      // Per repeat and SM: bytes and the slowest warp.
      struct Acc {
        double bytes = 0, cycles = 0;
      };
      std::map<std::int32_t, std::map<std::uint64_t, Acc>> per_sm;
      bool sm_known = true;
      for (const Sample* s : p.measured_samples()) {
        t.bytes += static_cast<double>(s->offset_bytes);
        Acc& a = per_sm[s->sm_id][s->seq];
        a.bytes += static_cast<double>(s->offset_bytes);
        a.cycles = std::max(a.cycles, s->latency);
        sm_known = sm_known && s->sm_id >= 0;
      }
      t.sms = sm_known ? per_sm.size() : 0;
      std::vector<double> sm_rates;  // per SM: mean over repeats of bytes / slowest warp
      for (const auto& sm : per_sm) {
        double sum = 0;
        std::size_t n = 0;
        for (const auto& rep : sm.second)
          if (rep.second.cycles > 0) sum += rep.second.bytes / rep.second.cycles, ++n;
        sm_rates.push_back(n > 0 ? sum / static_cast<double>(n) : 0);
      }
      double sm_sum = 0;
      for (double r : sm_rates) sm_sum += r;
      const double clock = !std::isnan(p.sm_clock_khz) ? p.sm_clock_khz : traces.sm_clock_khz;
      const bool have_kernel_time = !std::isnan(p.kernel_ms) && p.kernel_ms > 0;
      if (have_kernel_time) t.kernel_gbps = t.bytes / (p.kernel_ms * 1e6);
      const std::size_t sms_seen = std::max<std::size_t>(per_sm.size(), 1);
      // SMs unknown (an imported trace): warps are counted per block.
      if (t.sms > 0) t.blocks_per_sm = std::max<std::uint64_t>(1, (t.blocks + t.sms - 1) / t.sms);
      if (t.sms > 0 && t.sms == t.blocks) {
        t.method = "sm_clocks";
        t.bpc = sm_sum;
        t.bpc_sm = sm_sum / static_cast<double>(t.sms);
        t.sm_min = *std::min_element(sm_rates.begin(), sm_rates.end());
        t.sm_max = *std::max_element(sm_rates.begin(), sm_rates.end());
        t.sm_median = median_of(sm_rates);
        if (!std::isnan(clock)) t.gbps = t.bpc * clock / 1e6;
      } else if (have_kernel_time && !std::isnan(clock)) {
        t.method = "kernel_time";
        t.gbps = t.kernel_gbps;
        t.bpc = t.bytes / (p.kernel_ms * clock);
        t.bpc_sm = t.bpc / static_cast<double>(sms_seen);
      } else {
        // No kernel time (or clock): every SM's warps taken as concurrent, an upper bound.
        t.method = "warp_clocks";
        t.bpc = sm_sum;
        t.bpc_sm = sm_sum / static_cast<double>(sms_seen);
        if (!std::isnan(clock)) t.gbps = t.bpc * clock / 1e6;
        else if (have_kernel_time) t.gbps = t.kernel_gbps, t.method = "kernel_time";
      }
      pts.push_back(t);
    }
    if (pts.empty())
      return {stats::undetermined(name(), "GB/s", "no throughput points (kernel: throughput)")};
    const bool have_gbps = std::all_of(pts.begin(), pts.end(), [](const Tp& t) { return !std::isnan(t.gbps); });
    auto metric = [&](const Tp& t) { return have_gbps ? t.gbps : t.bpc; };
    const Tp* peak = &pts.front();
    for (const auto& t : pts)
      if (metric(t) > metric(*peak)) peak = &t;
    const Tp* reach = nullptr;
    for (const auto& t : pts)
      if (metric(t) >= share * metric(*peak)) {
        const auto work = t.ilp * t.warps_per_sm();
        if (!reach || work < reach->ilp * reach->warps_per_sm() ||
            (work == reach->ilp * reach->warps_per_sm() && metric(t) > metric(*reach)))
          reach = &t;
      }
    auto num_or_null = [](double v) { return std::isnan(v) ? nlohmann::json(nullptr) : nlohmann::json(v); };
    nlohmann::json table = nlohmann::json::array();
    for (const auto& t : pts)
      table.push_back({{"point_id", t.point->point_id},
                       {"ilp", t.ilp},
                       {"threads", t.threads},
                       {"warps_per_block", t.warps},
                       {"blocks", t.blocks},
                       {"blocks_per_sm", t.blocks_per_sm},
                       {"element", t.element},
                       {"access", t.access},
                       {"bytes", t.bytes},
                       {"bytes_per_cycle", t.bpc},
                       {"bytes_per_cycle_per_sm", t.bpc_sm},
                       {"gbps", have_gbps ? num_or_null(t.gbps) : nlohmann::json(nullptr)},
                       {"kernel_time_gbps", num_or_null(t.kernel_gbps)},
                       {"sms", t.sms},
                       {"method", t.method}});
    Finding f;
    f.analyzer = name();
    f.unit = have_gbps ? "GB/s" : "B/cycle";
    f.value = metric(*peak);
    f.details["peak_gbps"] = have_gbps ? nlohmann::json(peak->gbps) : nlohmann::json(nullptr);
    f.details["peak_bytes_per_cycle"] = peak->bpc;
    f.details["peak_bytes_per_cycle_per_sm"] = peak->bpc_sm;
    // How many SMs the figure covers: the value is theirs, not the device's unless they are all of it.
    f.details["sms"] = peak->sms;
    f.details["blocks"] = peak->blocks;
    f.details["method"] = peak->method;
    f.details["kernel_time_gbps"] = num_or_null(peak->kernel_gbps);
    if (peak->method == "sm_clocks")
      f.details["per_sm_bytes_per_cycle"] = {{"min", peak->sm_min}, {"median", peak->sm_median}, {"max", peak->sm_max}};
    f.details["access"] = peak->access;
    f.details["peak_point"] = {{"ilp", peak->ilp},
                               {"threads", peak->threads},
                               {"warps_per_block", peak->warps},
                               {"blocks", peak->blocks},
                               {"blocks_per_sm", peak->blocks_per_sm},
                               {"element", peak->element}};
    // ilp_x_warps: ILP x the warps of all the blocks one SM ran (one block per SM: its warps).
    f.details["reaches_peak"] = {{"ilp", reach->ilp},
                                 {"threads", reach->threads},
                                 {"warps_per_block", reach->warps},
                                 {"blocks_per_sm", reach->blocks_per_sm},
                                 {"warps_per_sm", reach->warps_per_sm()},
                                 {"element", reach->element},
                                 {"ilp_x_warps", reach->ilp * reach->warps_per_sm()}};
    // The best point of each element type (load width), when the sweep has several.
    std::map<std::string, const Tp*> best;
    for (const auto& t : pts)
      if (!best.count(t.element) || metric(t) > metric(*best[t.element])) best[t.element] = &t;
    if (best.size() > 1)
      for (const auto& [el, t] : best)
        f.details["by_element"][el.empty() ? "?" : el] = {{"gbps", have_gbps ? num_or_null(t->gbps) : nlohmann::json(nullptr)},
                                                          {"bytes_per_cycle_per_sm", t->bpc_sm},
                                                          {"ilp", t->ilp},
                                                          {"warps_per_block", t->warps}};
    // Loads and stores in one sweep: the peak of each.
    std::map<std::string, const Tp*> by_access;
    for (const auto& t : pts)
      if (!by_access.count(t.access) || metric(t) > metric(*by_access[t.access])) by_access[t.access] = &t;
    if (by_access.size() > 1)
      for (const auto& [acc, t] : by_access)
        f.details["by_access"][acc] = {{"gbps", have_gbps ? num_or_null(t->gbps) : nlohmann::json(nullptr)},
                                       {"bytes_per_cycle", t->bpc},
                                       {"bytes_per_cycle_per_sm", t->bpc_sm},
                                       {"sms", t->sms},
                                       {"method", t->method}};
    f.evidence["points"] = table;
    // Confidence: a peak that several configurations reach is a plateau, not a spike.
    std::size_t near = 0;
    for (const auto& t : pts) near += metric(t) >= share * metric(*peak) ? 1 : 0;
    f.confidence = pts.size() < 2 ? 0.3 : std::min(1.0, 0.5 + 0.25 * static_cast<double>(near));
    std::vector<std::string> notes;
    if (near < 2) notes.push_back("only one configuration reaches the peak: the plateau may lie beyond the sweep");
    if (peak->sms > 0 && peak->sms < peak->blocks)
      notes.push_back(std::to_string(peak->blocks) + " blocks ran on " + std::to_string(peak->sms) +
                      " SMs: rates from the kernel time, launch overhead included");
    if (peak->method == "warp_clocks")
      notes.push_back("no kernel time: the SMs' warps are taken as concurrent (an upper bound)");
    if (!notes.empty()) {
      std::string all;
      for (const auto& n : notes) all += (all.empty() ? "" : "; ") + n;
      f.details["note"] = all;
    }
    const std::string figure = have_gbps ? gbps_text(peak->gbps) : stats::fmt(peak->bpc, 4) + " B/cycle";
    const std::string warps_text = reach->blocks_per_sm > 1
                                       ? std::to_string(reach->warps_per_sm()) + " warps per SM (" +
                                             std::to_string(reach->blocks_per_sm) + " blocks of " +
                                             std::to_string(reach->warps) + ")"
                                       : std::to_string(reach->warps) + " warps per block";
    f.summary = "peak " + figure + (peak->access == "store" ? " of stores " : " ") + sms_text(peak->sms) + " (" +
                stats::fmt(peak->bpc_sm, 4) + " B/cycle per SM" + (peak->element.empty() ? "" : ", " + peak->element) +
                ", " + peak->method + "); reached from ILP " + std::to_string(reach->ilp) + " x " + warps_text;
    return {f};
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_bandwidth_analyzer() { return std::make_unique<BandwidthAnalyzer>(); }

}  // namespace dissect
