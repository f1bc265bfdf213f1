// Kernel family `coalescing` (kernels_templates/coalescing.cuh; seed 001, ch. 4): the
// first warp of a block makes one warp-wide request per iteration, lane i at
// offset + i * stride; lane 0 times each request: sectors and lines per request.
#include <algorithm>

#include "engine/device/cuda/cuda_launch.hpp"
#include "engine/device/cuda/template_abi.hpp"
#include "engine/device/families/block_table_launch.hpp"
#include "engine/device/kernel_family.hpp"
#include "engine/device/sim/sim_kernels.hpp"
#include "kernels_templates/coalescing.cuh"

namespace dissect {
namespace {

// Where the kernel's dynamic shared memory puts a shared-path array (after its scratch).
constexpr std::uint32_t kSharedAt = 128;

class CoalescingLaunch final : public BlockTableLaunch<dissect_co_point> {
 public:
  CoalescingLaunch(std::span<const Experiment* const> pts, const CudaLimits& limits) : BlockTableLaunch(pts) {
    std::uint32_t needed = 16;
    for (const Experiment* ep : points) {
      const Experiment& e = *ep;
      begin_point();
      arrays.push_back(plain_array(e));
      for (std::uint32_t b = 0; b < e.layout.blocks; ++b) {
        dissect_co_point p{};
        p.size_bytes = e.array.size_bytes;
        p.offset_bytes = e.array.offset_bytes;
        p.stride_bytes = e.array.stride_bytes;
        p.iters = e.iterations;
        p.warm = e.warmup;
        p.out_base = slots_;
        p.lanes = std::min<std::uint32_t>(e.layout.threads, 32);
        p.shared_at = kSharedAt;
        slots_ += e.iterations;
        entries_.push_back(p);
        needed = std::max<std::uint32_t>(
            needed, static_cast<std::uint32_t>(kSharedAt + (e.path == LoadPath::shared ? e.array.size_bytes : 0)));
      }
      finals_ += std::uint64_t{e.layout.blocks} * 32;
    }
    finish(needed, limits, "coalescing");
  }

 protected:
  void decode_block(std::uint32_t r, const Experiment& e, std::uint32_t b, const dissect_co_point& p,
                    const Readback& res, std::int32_t sm, PointTrace& trace) const override {
    (void)r;
    const auto lat = samples<std::uint32_t>(res);
    const std::uint64_t size = std::max<std::uint64_t>(e.array.size_bytes, 1);
    for (std::uint64_t q = 0; q < e.iterations; ++q) {
      const std::uint32_t v = lat[p.out_base + q];
      if (v == kUnwritten32) unwritten("coalescing", "request " + std::to_string(q));
      Sample s;
      s.thread = b;
      s.seq = q;
      s.offset_bytes = e.array.offset_bytes % size;
      s.latency = v;
      s.sm_id = sm;
      trace.samples.push_back(s);
    }
  }
};

class CoalescingFamily final : public KernelFamily {
 public:
  [[nodiscard]] KernelKind kind() const override { return KernelKind::coalescing; }
  [[nodiscard]] KernelParams kernel_params(const Experiment& e) const override {
    KernelParams p;
    p.template_name = "coalescing";
    p.entry = "dissect_coalescing";
    p.label = std::string("coalescing-") + to_string(e.path) + "-" + to_string(e.element) + "-" +
              to_string(e.timing.clock);
    p.defines = {{"DISSECT_PATH", std::to_string(path_code(e.path))},
                 element_define(e),
                 clock_define(e),
                 {"DISSECT_USES_CONST", e.path == LoadPath::constant ? "1" : "0"}};
    return p;
  }
  void append_identity(const Experiment& e, std::string& out) const override { append_byte(out, e.path); }
  [[nodiscard]] std::unique_ptr<CudaLaunch> cuda_launch(std::span<const Experiment* const> points,
                                                        const CudaLimits& limits) const override {
    return std::make_unique<CoalescingLaunch>(points, limits);
  }
  void simulate(sim::KernelContext& c) const override { sim::simulate_coalescing(c); }
};

}  // namespace

const KernelFamily& coalescing_family() {
  static const CoalescingFamily f;
  return f;
}

}  // namespace dissect
