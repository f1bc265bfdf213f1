// Kernel family `pchase` (kernels_templates/pchase.cuh): Mei & Chu's fine-grained
// pointer chase (every access timed) and the classic chain (one time per chain of
// `iterations` dependent loads). One block per point; chosen threads chase.
#include <algorithm>
#include <functional>
#include <optional>

#include "engine/core/diagnostics.hpp"
#include "engine/core/worker_pool.hpp"
#include "engine/device/chase_order.hpp"
#include "engine/device/cuda/array_placement.hpp"
#include "engine/device/cuda/cuda_launch.hpp"
#include "engine/device/cuda/template_abi.hpp"
#include "engine/device/families/family_support.hpp"
#include "engine/device/kernel_family.hpp"
#include "engine/device/sim/sim_kernels.hpp"
#include "kernels_templates/pchase.cuh"

namespace dissect {
namespace {

// Shared-memory sample buffer of one block (latencies and indices of every chaser,
// `chunk` entries each, flushed to global memory when full).
constexpr std::uint32_t kSampleBufferBytes = 6 * 1024;

class PchaseLaunch final : public CudaLaunch {
 public:
  PchaseLaunch(std::span<const Experiment* const> pts, const CudaLimits& limits) : CudaLaunch(pts) {
    const Experiment& e0 = *points.front();
    chain_ = e0.timing.mode == TimingMode::chain;
    on_chip_ = e0.timing.mode == TimingMode::on_chip;
    warm_block_ = e0.warmup_by == WarmupBy::block;  // a kernel of its own (append_identity)
    std::uint32_t needed = 8;
    for (const Experiment* ep : points) {
      const Experiment& e = *ep;
      Meta m;
      m.blocks = e.layout.blocks;
      m.nch = static_cast<std::uint32_t>(e.layout.chasers.size());
      const std::uint64_t total_chasers = std::uint64_t{m.blocks} * m.nch;
      std::vector<std::uint64_t> start_bytes;
      for (std::uint64_t c = 0; c < total_chasers; ++c) start_bytes.push_back(chaser_start_offset(e, c));
      LaunchArray a;
      a.image = make_array_image(e.array, e.element, start_bytes, e.path != LoadPath::constant);
      a.path = e.path;
      m.per_block = e.layout.array == BlockArrays::per_block;
      if (m.per_block) {
        a.copies = m.blocks;
        a.copy_stride = per_block_array_stride(e);
      }
      const std::uint64_t pass_length = a.image.pass_length;
      arrays.push_back(std::move(a));
      for (auto s : start_bytes) m.starts.push_back(s / e.elem_bytes());
      // on_chip: every sample of the timed window stays in shared memory (one byte each,
      // after a scratch word per chaser); otherwise `chunk` 8-byte entries per chaser.
      std::uint64_t sample_bytes = 0;
      if (on_chip_) {
        m.chunk = static_cast<std::uint32_t>(std::max<std::uint64_t>(e.iterations, 1));
        sample_bytes = round_up(4ull * m.nch, 16) + std::uint64_t{m.chunk} * m.nch;
      } else {
        m.chunk = chain_ ? 1u
                         : static_cast<std::uint32_t>(std::clamp<std::uint64_t>(
                               std::min<std::uint64_t>(kSampleBufferBytes / (8u * m.nch), e.iterations), 1, 1u << 16));
        sample_bytes = 8ull * m.chunk * m.nch;
      }
      const auto shared_at = static_cast<std::uint32_t>(round_up(sample_bytes, 16));
      std::uint64_t need = shared_at;
      if (e.path == LoadPath::shared) need += e.array.size_bytes;
      if (need > limits.max_shared_per_block)
        throw RunError("the point needs " + std::to_string(need) + " B of shared memory per block (samples" +
                       std::string(on_chip_ ? ", one byte per timed access of every chaser (timing.mode on_chip)"
                                            : "") +
                       std::string(e.path == LoadPath::shared ? " + the shared array" : "") +
                       "); the device allows " + std::to_string(limits.max_shared_per_block) + " B");
      needed = std::max(needed, static_cast<std::uint32_t>(need));
      m.first_entry = entries_.size();
      for (std::uint32_t b = 0; b < m.blocks; ++b) {
        dissect_pchase_point pt{};
        pt.warm = std::uint64_t{e.warmup} * pass_length;
        if (warm_block_) {
          // The slots of one pass (chase_order.hpp: (offset + k s) mod N for sequential
          // and random chases), loaded by every thread of the block instead.
          pt.warm = 0;
          warms_.push_back({e.array.offset_bytes / e.elem_bytes(), e.array.stride_bytes / e.elem_bytes(), pass_length,
                            e.warmup});
        }
        pt.iters = e.iterations;
        pt.out_base = slots_;
        pt.first_chaser = static_cast<std::uint32_t>(chasers_.size());
        pt.n_chasers = m.nch;
        pt.chunk = m.chunk;
        pt.shared_at = shared_at;
        for (std::uint32_t c = 0; c < m.nch; ++c) {
          dissect_chaser ch{};
          ch.start = m.starts[std::size_t{b} * m.nch + c];
          ch.thread = e.layout.chasers[c];
          chasers_.push_back(ch);
        }
        slots_ += chain_ ? m.nch : std::uint64_t{m.nch} * e.iterations;
        entries_.push_back(pt);
      }
      metas_.push_back(std::move(m));
    }
    blocks = static_cast<std::uint32_t>(entries_.size());
    shared_bytes = needed;
    flush_l2 = e0.warmup == 0 && !is_sm_private(e0.target);
  }

  std::size_t lay_out(std::span<const dissect_array_ref> refs, ParamTable& table, OutputLayout& out,
                      std::vector<KernelArg>& args) override {
    for (std::size_t i = 0; i < metas_.size(); ++i)
      for (std::uint32_t b = 0; b < metas_[i].blocks; ++b) {
        dissect_array_ref& ref = entries_[metas_[i].first_entry + b].array;
        ref = refs[i];
        if (metas_[i].per_block) {  // block b chases copy b (placed copy_stride_bytes apart)
          ref.base += b * copy_stride_bytes(arrays[i]);
          ref.src = ref.base;
        }
      }
    const std::uint64_t nchasers = chasers_.size();
    const std::uint64_t points_at = table.add(entries_), chasers_at = table.add(chasers_);
    lat_ = out.add_samples(chain_ ? 0 : 4 * slots_);
    idx_ = out.add_samples(chain_ ? 0 : 4 * slots_);
    chain_out_ = out.add(8 * nchasers);
    final_ = out.add(8 * nchasers);
    const std::size_t smid = out.add(4ull * blocks);
    ovh_ = out.add(4 * nchasers * DISSECT_OVERHEAD_REPS);
    args = {KernelArg::table(points_at), KernelArg::table(chasers_at), KernelArg::output(lat_),
            KernelArg::output(idx_),     KernelArg::output(chain_out_), KernelArg::output(final_),
            KernelArg::output(smid),     KernelArg::output(ovh_),       KernelArg::zero()};
    if (warm_block_) args.push_back(KernelArg::table(table.add(warms_)));
    smid_ = smid;
    return smid;
  }

  [[nodiscard]] std::uint32_t first_block(std::size_t point) const override {
    return static_cast<std::uint32_t>(metas_.at(point).first_entry);
  }

  void start_point(std::size_t point, PointTrace& trace, std::uint32_t repeats) const override {
    const Meta& m = metas_[point];
    trace.params["sample_chunk"] = std::to_string(m.chunk);
    if (points[point]->array.frames != Frames::contiguous) trace.params["frames"] = to_string(points[point]->array.frames);
    if (m.per_block) {
      trace.params["block_arrays"] = "per_block";
      trace.params["copy_stride_bytes"] = std::to_string(per_block_array_stride(*points[point]));
    }
    if (on_chip_)
      trace.params["on_chip_unit_cycles"] = std::to_string(points[point]->timing.unit);  // latencies saturate at 255 units
    const std::uint64_t chasers_of_point = std::uint64_t{m.blocks} * m.nch;
    trace.samples.reserve(chasers_of_point * repeats * (chain_ ? 1 : points[point]->iterations));
  }

  // A launch can hold millions of samples (a per-SM stage sweep, every SM chasing the L2):
  // they are decoded side by side on the pool's free workers, whole points per task, or,
  // for a launch of fewer points than tasks, ranges of a point's blocks, each into a
  // buffer of its own that is appended in block order afterwards. Every sample lands
  // where the one-by-one decoding puts it, and the first error in that order is thrown.
  void decode(std::uint32_t r, const Readback& res, std::span<PointTrace> traces,
              std::span<std::vector<double>> overheads) const override {
    std::vector<std::uint64_t> samples_of(points.size());
    std::uint64_t total = 0;
    for (std::size_t gi = 0; gi < points.size(); ++gi) total += samples_of[gi] = metas_[gi].blocks * samples_per_block(gi);
    // Samples record the index each access loaded in 32 bits. Past 2^32 elements the chase
    // order the host laid out gives the full index (one per point, shared by its parts).
    std::vector<std::optional<ChaseOrder>> orders(points.size());
    for (std::size_t gi = 0; gi < points.size(); ++gi)
      if (points[gi]->array.size_bytes / points[gi]->elem_bytes() > (1ull << 32))
        orders[gi].emplace(points[gi]->array, points[gi]->elem_bytes());
    const auto order_of = [&orders](std::size_t gi) { return orders[gi] ? &*orders[gi] : nullptr; };
    const std::size_t tasks = std::min<std::uint64_t>(workers::size() + 1, total / kSamplesPerTask);
    if (tasks < 2) {
      for (std::size_t gi = 0; gi < points.size(); ++gi)
        decode_blocks(r, res, gi, 0, metas_[gi].blocks, order_of(gi), traces[gi].samples, overheads[gi]);
      return;
    }
    struct Part {
      std::size_t point;
      std::uint32_t first_block, end_block;
      bool whole;  // the point's only part: decoded into its trace directly
      std::vector<Sample> samples;
      std::vector<double> overheads;
    };
    std::vector<Part> parts;
    for (std::size_t gi = 0; gi < points.size(); ++gi) {
      const std::uint32_t point_blocks = metas_[gi].blocks;  // at least one
      const auto pieces =
          static_cast<std::uint32_t>(std::clamp<std::uint64_t>(samples_of[gi] * tasks / total, 1, point_blocks));
      for (std::uint32_t k = 0; k < pieces; ++k)
        parts.push_back({gi, point_blocks * k / pieces, point_blocks * (k + 1) / pieces, pieces == 1, {}, {}});
    }
    std::vector<std::function<int()>> jobs;
    for (std::size_t t = 0; t < tasks; ++t) {
      const std::size_t from = parts.size() * t / tasks, to = parts.size() * (t + 1) / tasks;
      if (from == to) continue;
      jobs.emplace_back([&, from, to] {
        for (std::size_t k = from; k < to; ++k) {
          Part& p = parts[k];
          if (!p.whole) p.samples.reserve((p.end_block - p.first_block) * samples_per_block(p.point));
          decode_blocks(r, res, p.point, p.first_block, p.end_block, order_of(p.point),
                        p.whole ? traces[p.point].samples : p.samples, p.whole ? overheads[p.point] : p.overheads);
        }
        return 0;
      });
    }
    workers::run_all(std::move(jobs), workers::Priority::urgent);
    for (Part& p : parts)
      if (!p.whole) {
        std::vector<Sample>& to = traces[p.point].samples;
        to.insert(to.end(), p.samples.begin(), p.samples.end());
        overheads[p.point].insert(overheads[p.point].end(), p.overheads.begin(), p.overheads.end());
      }
  }

 private:
  // Fewer samples than this a task are decoded where they are.
  static constexpr std::uint64_t kSamplesPerTask = 32 * 1024;

  // The samples one block of point gi gives in one repeat.
  [[nodiscard]] std::uint64_t samples_per_block(std::size_t gi) const {
    return std::uint64_t{metas_[gi].nch} * (chain_ ? 1 : points[gi]->iterations);
  }

  // Appends repeat r's samples of blocks [b0, b1) of point gi, and their timer-overhead
  // readings, in the order the one-by-one decoding gives them. `order`: the point's chase
  // order where its indices need more than 32 bits, else null.
  void decode_blocks(std::uint32_t r, const Readback& res, std::size_t gi, std::uint32_t b0, std::uint32_t b1,
                     const ChaseOrder* order, std::vector<Sample>& out, std::vector<double>& overheads) const {
    const auto lat = res.as<std::uint32_t>(lat_), idx = res.as<std::uint32_t>(idx_),
               smid = res.as<std::uint32_t>(smid_), ovh = res.as<std::uint32_t>(ovh_);
    const auto chain_t = res.as<std::uint64_t>(chain_out_), fin = res.as<std::uint64_t>(final_);
    const Experiment& e = *points[gi];
    const Meta& m = metas_[gi];
    const std::uint64_t elem = e.elem_bytes();
    const std::uint64_t n_elems = e.array.size_bytes / elem;
    // Past 2^32 elements the recorded low 32 bits must match the chase order at every sample.
    const bool wide = order != nullptr;
    for (std::uint32_t b = b0; b < b1; ++b) {
      const dissect_pchase_point& pt = entries_[m.first_entry + b];
      const auto sm = static_cast<std::int32_t>(smid[m.first_entry + b]);
      for (std::uint32_t c = 0; c < m.nch; ++c) {
        const std::uint64_t g = std::uint64_t{b} * m.nch + c;  // chaser index within the point
        const std::uint64_t gc = pt.first_chaser + c;           // in the launch
        append_overheads(ovh.subspan(gc * DISSECT_OVERHEAD_REPS, DISSECT_OVERHEAD_REPS), overheads);
        if (chain_) {
          Sample s;
          s.thread = static_cast<std::uint32_t>(g);
          s.seq = r;
          s.offset_bytes = m.starts[g] * elem;
          s.latency = static_cast<double>(chain_t[gc]) / static_cast<double>(e.iterations);
          s.sm_id = sm;
          out.push_back(s);
          continue;
        }
        std::uint64_t prev = m.starts[g];
        const std::uint64_t base = pt.out_base + std::uint64_t{c} * e.iterations;
        const auto stream = static_cast<std::uint32_t>(std::uint64_t{r} * m.blocks * m.nch + g);
        std::optional<ChaseWalker> walk;
        if (wide) {
          // The chase from the chaser's start, past the untimed warm-up accesses: the
          // first timed access loads the element the warm-up ended on.
          walk.emplace(*order, prev * elem);
          for (std::uint64_t k = 0; k < pt.warm; ++k) walk->next();
          prev = walk->next() / elem;
        }
        for (std::uint64_t q = 0; q < e.iterations; ++q) {
          const std::uint32_t v = idx[base + q];
          const std::uint64_t loaded = wide ? walk->next() / elem : v;
          if ((!wide && v >= n_elems) || lat[base + q] == kUnwritten32 ||
              (wide && static_cast<std::uint32_t>(loaded) != v))
            throw RunError("the kernel left sample " + std::to_string(q) + " of chaser " + std::to_string(g) +
                           " unwritten or out of range (index " + std::to_string(v) +
                           (wide ? ", expected the low 32 bits of " + std::to_string(loaded) : std::string()) + ")");
          Sample s;
          s.thread = stream;
          s.seq = q;
          s.offset_bytes = prev * elem;
          s.latency = lat[base + q];
          s.sm_id = sm;
          out.push_back(s);
          prev = loaded;
        }
        if (e.iterations > 0 && fin[gc] != prev)
          throw RunError("final index " + std::to_string(fin[gc]) + " of chaser " + std::to_string(g) +
                         " differs from the last sampled index " + std::to_string(prev));
      }
    }
  }

  struct Meta {
    std::size_t first_entry = 0;
    std::uint32_t blocks = 1, nch = 1, chunk = 1;
    bool per_block = false;  // layout.array per_block: block b chases copy b of the array
    std::vector<std::uint64_t> starts;  // element index per chaser of the point
  };
  bool chain_ = false;
  bool on_chip_ = false;
  bool warm_block_ = false;
  std::vector<dissect_pchase_warm> warms_;  // warm_block_: one per block entry
  std::vector<Meta> metas_;
  std::vector<dissect_pchase_point> entries_;
  std::vector<dissect_chaser> chasers_;
  std::uint64_t slots_ = 0;
  std::size_t lat_ = 0, idx_ = 0, chain_out_ = 0, final_ = 0, smid_ = 0, ovh_ = 0;
};

class PchaseFamily final : public KernelFamily {
 public:
  [[nodiscard]] KernelKind kind() const override { return KernelKind::pchase; }

  [[nodiscard]] KernelParams kernel_params(const Experiment& e) const override {
    KernelParams p;
    p.template_name = "pchase";
    p.entry = "dissect_pchase";
    p.label = std::string("pchase-") + to_string(e.path) + "-" + to_string(e.element) + "-" +
              to_string(e.timing.mode) + "-" + to_string(e.timing.clock);
    p.defines = {{"DISSECT_PATH", std::to_string(path_code(e.path))},
                 {"DISSECT_CHAIN", e.timing.mode == TimingMode::chain ? "1" : "0"},
                 {"DISSECT_ON_CHIP", e.timing.mode == TimingMode::on_chip ? "1" : "0"},
                 element_define(e),
                 clock_define(e),
                 {"DISSECT_USES_CONST", e.path == LoadPath::constant ? "1" : "0"}};
    if (e.timing.mode == TimingMode::on_chip && e.timing.unit != DISSECT_ON_CHIP_UNIT) {  // the default: as it was
      p.label += "-unit" + std::to_string(e.timing.unit);
      p.defines.emplace_back("DISSECT_ON_CHIP_UNIT", std::to_string(e.timing.unit));
    }
    if (e.warmup_by == WarmupBy::block) {  // only then: every other kernel stays as it was
      p.label += "-warm_block";
      p.defines.emplace_back("DISSECT_WARM_BLOCK", "1");
    }
    return p;
  }
  void append_identity(const Experiment& e, std::string& out) const override {
    append_byte(out, e.path);
    append_byte(out, e.timing.mode);
    append_byte(out, e.warmup_by);
    if (e.timing.mode == TimingMode::on_chip) append_byte(out, static_cast<std::uint8_t>(e.timing.unit));
  }
  [[nodiscard]] bool sample_averages_iterations(const Experiment& e) const override {
    return e.timing.mode == TimingMode::chain;
  }
  [[nodiscard]] std::unique_ptr<CudaLaunch> cuda_launch(std::span<const Experiment* const> points,
                                                        const CudaLimits& limits) const override {
    return std::make_unique<PchaseLaunch>(points, limits);
  }
  void simulate(sim::KernelContext& c) const override { sim::simulate_pchase(c); }
};

}  // namespace

const KernelFamily& pchase_family() {
  static const PchaseFamily f;
  return f;
}

}  // namespace dissect
