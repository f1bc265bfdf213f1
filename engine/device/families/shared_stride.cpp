// Kernel family `shared_stride` (kernels_templates/shared_stride.cuh; Mei & Chu 2014
// §3.1, Listing 1): every lane of a warp reads the shared-memory word at
// offset + lane * stride as a dependent chain timed as a whole: the warp's
// bank-conflict degree.
#include <algorithm>

#include "engine/device/cuda/cuda_launch.hpp"
#include "engine/device/cuda/template_abi.hpp"
#include "engine/device/families/block_table_launch.hpp"
#include "engine/device/kernel_family.hpp"
#include "engine/device/sim/sim_kernels.hpp"
#include "kernels_templates/shared_stride.cuh"

namespace dissect {
namespace {

class SharedStrideLaunch final : public BlockTableLaunch<dissect_ss_point> {
 public:
  SharedStrideLaunch(std::span<const Experiment* const> pts, const CudaLimits& limits) : BlockTableLaunch(pts) {
    // The array lives in shared memory: the kernel builds it there, nothing to place.
    slot_bytes_ = 8;
    std::uint32_t needed = 16;
    for (const Experiment* ep : points) {
      const Experiment& e = *ep;
      begin_point();
      for (std::uint32_t b = 0; b < e.layout.blocks; ++b) {
        dissect_ss_point p{};
        p.n_elems = e.array.size_bytes / e.elem_bytes();
        p.offset_bytes = e.array.offset_bytes;
        p.stride_bytes = e.array.stride_bytes;
        p.iters = e.iterations;
        p.warm = e.warmup;
        p.out_base = slots_;
        slots_ += e.layout.threads;
        entries_.push_back(p);
        needed = std::max<std::uint32_t>(needed, static_cast<std::uint32_t>(16 + e.array.size_bytes));
      }
      finals_ += std::uint64_t{e.layout.blocks} * e.layout.threads;
    }
    finish(needed, limits, "shared_stride");
  }

 protected:
  void decode_block(std::uint32_t r, const Experiment& e, std::uint32_t b, const dissect_ss_point& p,
                    const Readback& res, std::int32_t sm, PointTrace& trace) const override {
    const auto cycles = samples<std::uint64_t>(res);
    const std::uint64_t size = std::max<std::uint64_t>(e.array.size_bytes, 1);
    const std::uint32_t threads = e.layout.threads;
    for (std::uint32_t t = 0; t < threads; ++t) {
      const std::uint64_t c = cycles[p.out_base + t];
      if (c == kUnwritten64) unwritten("shared_stride", "lane " + std::to_string(t));
      Sample s;
      s.thread = b * threads + t;
      s.seq = r;
      s.offset_bytes = (e.array.offset_bytes + std::uint64_t{t} * e.array.stride_bytes) % size;
      s.latency = static_cast<double>(c) / static_cast<double>(std::max<std::uint64_t>(e.iterations, 1));
      s.sm_id = sm;
      trace.samples.push_back(s);
    }
  }
};

class SharedStrideFamily final : public KernelFamily {
 public:
  [[nodiscard]] KernelKind kind() const override { return KernelKind::shared_stride; }
  [[nodiscard]] KernelParams kernel_params(const Experiment& e) const override {
    KernelParams p;
    p.template_name = "shared_stride";
    p.entry = "dissect_shared_stride";
    p.label = std::string("shared_stride-") + to_string(e.element) + "-" + to_string(e.timing.clock);
    p.defines = {element_define(e), clock_define(e), {"DISSECT_USES_CONST", "0"}};
    return p;
  }
  void append_identity(const Experiment& e, std::string& out) const override { (void)e, (void)out; }
  [[nodiscard]] std::vector<std::pair<LoadPath, const ArraySpec*>> arrays(const Experiment& e) const override {
    return {{LoadPath::shared, &e.array}};
  }
  [[nodiscard]] bool sample_averages_iterations(const Experiment& e) const override {
    (void)e;
    return true;
  }
  [[nodiscard]] std::unique_ptr<CudaLaunch> cuda_launch(std::span<const Experiment* const> points,
                                                        const CudaLimits& limits) const override {
    return std::make_unique<SharedStrideLaunch>(points, limits);
  }
  void simulate(sim::KernelContext& c) const override { sim::simulate_shared_stride(c); }
};

}  // namespace

const KernelFamily& shared_stride_family() {
  static const SharedStrideFamily f;
  return f;
}

}  // namespace dissect
