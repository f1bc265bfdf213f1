// bandwidth: throughput kernels (seed 000 §5.1, §6.1). One sample per warp per
// repeat: latency = cycles from the warp's first to its last load,
// offset_bytes = bytes it loaded. Per point: bytes over the kernel time (GB/s),
// bytes per cycle device-wide and per SM; the peak, and the smallest
// ILP x warps that reaches it.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "analyzers/analyzer.hpp"
#include "analyzers/stats/report.hpp"

namespace dissect {
namespace {

struct Tp {
  const PointTrace* point = nullptr;
  std::uint64_t ilp = 1, threads = 0, blocks = 1, warps = 0;
  double bytes = 0, cycles = 0, gbps = std::nan(""), bpc = 0, bpc_sm = 0;
  std::size_t sms = 0;
};

class BandwidthAnalyzer final : public Analyzer {
 public:
  std::string name() const override { return "bandwidth"; }
  std::string purpose() const override {
    return "bytes per cycle and GB/s of throughput kernels, and the ILP x warps that reach the peak";
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
      t.warps = static_cast<std::uint64_t>(std::ceil(static_cast<double>(t.threads) / warp));
      std::map<std::int32_t, double> sm_bytes, sm_cycles;
      for (const Sample* s : p.measured_samples()) {
        t.bytes += static_cast<double>(s->offset_bytes);
        sm_bytes[s->sm_id] += static_cast<double>(s->offset_bytes);
        sm_cycles[s->sm_id] = std::max(sm_cycles[s->sm_id], s->latency);
      }
      t.sms = sm_bytes.size();
      const double clock = !std::isnan(p.sm_clock_khz) ? p.sm_clock_khz : traces.sm_clock_khz;
      if (!std::isnan(p.kernel_ms) && p.kernel_ms > 0) {
        t.gbps = t.bytes / (p.kernel_ms * 1e6);
        if (!std::isnan(clock)) t.cycles = p.kernel_ms * clock;
      }
      if (t.cycles > 0) {
        t.bpc = t.bytes / t.cycles;
      } else {
        // No kernel time: every SM's warps ran concurrently (an upper bound).
        for (const auto& [sm, b] : sm_bytes) t.bpc += sm_cycles[sm] > 0 ? b / sm_cycles[sm] : 0;
        if (!std::isnan(clock)) t.gbps = t.bpc * clock * 1e3 / 1e9;
      }
      t.bpc_sm = t.sms > 0 ? t.bpc / static_cast<double>(t.sms) : t.bpc;
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
        const auto work = t.ilp * t.warps;
        if (!reach || work < reach->ilp * reach->warps ||
            (work == reach->ilp * reach->warps && metric(t) > metric(*reach)))
          reach = &t;
      }
    nlohmann::json table = nlohmann::json::array();
    for (const auto& t : pts)
      table.push_back({{"point_id", t.point->point_id}, {"ilp", t.ilp}, {"threads", t.threads},
                       {"warps_per_block", t.warps}, {"blocks", t.blocks}, {"bytes", t.bytes},
                       {"bytes_per_cycle", t.bpc}, {"bytes_per_cycle_per_sm", t.bpc_sm},
                       {"gbps", have_gbps ? nlohmann::json(t.gbps) : nlohmann::json(nullptr)}, {"sms", t.sms}});
    Finding f;
    f.analyzer = name();
    f.unit = have_gbps ? "GB/s" : "B/cycle";
    f.value = metric(*peak);
    f.details["peak_gbps"] = have_gbps ? nlohmann::json(peak->gbps) : nlohmann::json(nullptr);
    f.details["peak_bytes_per_cycle"] = peak->bpc;
    f.details["peak_bytes_per_cycle_per_sm"] = peak->bpc_sm;
    f.details["peak_point"] = {{"ilp", peak->ilp}, {"threads", peak->threads}, {"warps_per_block", peak->warps}};
    f.details["reaches_peak"] = {{"ilp", reach->ilp},
                                 {"threads", reach->threads},
                                 {"warps_per_block", reach->warps},
                                 {"ilp_x_warps", reach->ilp * reach->warps}};
    f.evidence["points"] = table;
    // Confidence: a peak that several configurations reach is a plateau, not a spike.
    std::size_t near = 0;
    for (const auto& t : pts) near += metric(t) >= share * metric(*peak) ? 1 : 0;
    f.confidence = pts.size() < 2 ? 0.3 : std::min(1.0, 0.5 + 0.25 * static_cast<double>(near));
    if (near < 2) f.details["note"] = "only one configuration reaches the peak: the plateau may lie beyond the sweep";
    f.summary = "peak " + stats::fmt(metric(*peak), 4) + " " + f.unit + " (" + stats::fmt(peak->bpc, 4) +
                " B/cycle, " + stats::fmt(peak->bpc_sm, 4) + " B/cycle per SM); reached from ILP " +
                std::to_string(reach->ilp) + " x " + std::to_string(reach->warps) + " warps per block";
    return {f};
  }
};

}  // namespace

std::unique_ptr<Analyzer> make_bandwidth_analyzer() { return std::make_unique<BandwidthAnalyzer>(); }

}  // namespace dissect
