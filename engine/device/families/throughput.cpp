// Kernel family `throughput` (kernels_templates/throughput.cuh): many warps, each
// thread making `iterations` rounds of `ilp` independent loads (`access: store`:
// stores); one time per warp. Bandwidth of a level is the bytes the warps loaded
// (stored) over their cycles.
#include <algorithm>

#include "engine/core/diagnostics.hpp"
#include "engine/device/cuda/cuda_launch.hpp"
#include "engine/device/cuda/template_abi.hpp"
#include "engine/device/families/block_table_launch.hpp"
#include "engine/device/kernel_family.hpp"
#include "engine/device/sim/sim_kernels.hpp"
#include "kernels_templates/throughput.cuh"

namespace dissect {
namespace {

// The kernel never uses what its array holds. A load kernel's array is written all
// the same (one fill launch before the measuring one), which leaves an array that
// fits the L2 there: the first rounds of an L1 or L2 read hit as the later ones do.
// It is left unwritten where that write would be part of the measurement: a store
// kernel overwrites it anyway, and an array read from DRAM (target dram) would
// start with an L2 of dirty lines of the fill that the reads must write back first.
LaunchArray throughput_array(const Experiment& e) {
  LaunchArray a = plain_array(e);
  if (e.path != LoadPath::constant && (e.access == Access::store || e.target == Target::dram)) a.image.unwritten = true;
  return a;
}

class ThroughputLaunch final : public BlockTableLaunch<dissect_tp_point> {
 public:
  ThroughputLaunch(std::span<const Experiment* const> pts, const CudaLimits& limits) : BlockTableLaunch(pts) {
    std::uint32_t needed = 16;
    for (const Experiment* ep : points) {
      const Experiment& e = *ep;
      if (e.array.size_bytes / e.elem_bytes() >= (1ull << 32))
        throw RunError("kernel throughput indexes arrays of fewer than 2^32 elements");
      begin_point();
      arrays.push_back(throughput_array(e));
      const std::uint32_t threads = e.layout.threads;
      for (std::uint32_t b = 0; b < e.layout.blocks; ++b) {
        dissect_tp_point p{};
        p.iters = e.iterations;
        p.out_base = slots_;
        p.first_thread = b * threads;
        p.total_threads = e.layout.blocks * threads;
        p.shared_at = static_cast<std::uint32_t>(round_up(4ull * threads, 16));
        slots_ += (threads + 31) / 32;
        entries_.push_back(p);
        needed = std::max<std::uint32_t>(
            needed, static_cast<std::uint32_t>(p.shared_at + (e.path == LoadPath::shared ? e.array.size_bytes : 0)));
      }
      finals_ += std::uint64_t{e.layout.blocks} * threads;
    }
    finish(needed, limits, "throughput");
  }

 protected:
  void decode_block(std::uint32_t r, const Experiment& e, std::uint32_t b, const dissect_tp_point& p,
                    const Readback& res, std::int32_t sm, PointTrace& trace) const override {
    const auto lat = samples<std::uint32_t>(res);
    const std::uint32_t threads = e.layout.threads, warps = (threads + 31) / 32;
    for (std::uint32_t w = 0; w < warps; ++w) {
      const std::uint32_t v = lat[p.out_base + w];
      if (v == kUnwritten32) unwritten("throughput", "warp " + std::to_string(w));
      const std::uint32_t lanes = std::min<std::uint32_t>(32, threads - w * 32);
      Sample s;
      s.thread = b * warps + w;
      s.seq = r;
      s.offset_bytes = std::uint64_t{lanes} * e.iterations * e.ilp * e.elem_bytes();
      s.latency = v;
      s.sm_id = sm;
      trace.samples.push_back(s);
    }
  }
  // Every block times the same loop; the first block's readings stand for the point.
  [[nodiscard]] bool overhead_from_block(std::uint32_t b) const override { return b == 0; }
};

class ThroughputFamily final : public KernelFamily {
 public:
  [[nodiscard]] KernelKind kind() const override { return KernelKind::throughput; }
  [[nodiscard]] KernelParams kernel_params(const Experiment& e) const override {
    KernelParams p;
    p.template_name = "throughput";
    p.entry = "dissect_throughput";
    const bool store = e.access == Access::store;
    p.label = std::string("throughput-") + (store ? "store-" : "") + to_string(e.path) + "-" + to_string(e.element) +
              "-ilp" + std::to_string(e.ilp) + "-" + to_string(e.timing.clock);
    p.defines = {{"DISSECT_PATH", std::to_string(path_code(e.path))},
                 {"DISSECT_ILP", std::to_string(e.ilp)},
                 {"DISSECT_STORE", store ? "1" : "0"},
                 element_define(e),
                 clock_define(e),
                 {"DISSECT_USES_CONST", e.path == LoadPath::constant ? "1" : "0"}};
    return p;
  }
  void append_identity(const Experiment& e, std::string& out) const override {
    append_byte(out, e.path);
    append_byte(out, e.access);
    for (int shift = 0; shift < 32; shift += 8) append_byte(out, e.ilp >> shift);
  }
  [[nodiscard]] std::unique_ptr<CudaLaunch> cuda_launch(std::span<const Experiment* const> points,
                                                        const CudaLimits& limits) const override {
    return std::make_unique<ThroughputLaunch>(points, limits);
  }
  void simulate(sim::KernelContext& c) const override { sim::simulate_throughput(c); }
};

}  // namespace

const KernelFamily& throughput_family() {
  static const ThroughputFamily f;
  return f;
}

}  // namespace dissect
