// Kernel family `phases` (kernels_templates/phases.cuh; MT4G, Größler 2022,
// §4.5-4.6): several arrays, each on its own load path, and ordered warm / measure
// phases by chosen threads with barriers in between. Which caches share storage,
// and how many of a cache an SM has.
#include <algorithm>

#include "engine/core/diagnostics.hpp"
#include "engine/device/cuda/cuda_launch.hpp"
#include "engine/device/cuda/template_abi.hpp"
#include "engine/device/families/family_support.hpp"
#include "engine/device/kernel_family.hpp"
#include "engine/device/sim/sim_kernels.hpp"
#include "kernels_templates/phases.cuh"

namespace dissect {
namespace {

// Shared-memory sample buffer of one block (one thread measures at a time).
constexpr std::uint32_t kSampleBufferBytes = 6 * 1024;
constexpr std::uint32_t kChunk = kSampleBufferBytes / 8;

class PhasesLaunch final : public CudaLaunch {
 public:
  PhasesLaunch(std::span<const Experiment* const> pts, const CudaLimits& limits) : CudaLaunch(pts) {
    std::uint32_t needed = 8 * kChunk;
    for (const Experiment* ep : points) {
      const Experiment& e = *ep;
      Meta m;
      m.blocks = e.layout.blocks;
      m.first_upload = arrays.size();
      std::uint32_t shared_at = 8 * kChunk;
      std::vector<dissect_phase_array> point_arrays;
      for (const auto& pa : e.arrays) {
        LaunchArray a;
        a.image = make_array_image(pa.array, e.element, {}, pa.path != LoadPath::constant);
        a.path = pa.path;
        dissect_phase_array ta{};
        ta.start = a.image.start_offset / e.elem_bytes();
        ta.pass_len = a.image.pass_length;
        ta.path = static_cast<std::uint32_t>(path_code(pa.path));
        if (pa.path == LoadPath::shared) {
          ta.shared_at = shared_at;
          shared_at = static_cast<std::uint32_t>(round_up(shared_at + pa.array.size_bytes, 16));
        }
        m.array_start.push_back(ta.start);
        m.array_pass.push_back(ta.pass_len);
        point_arrays.push_back(ta);
        arrays.push_back(std::move(a));
      }
      if (shared_at > limits.max_shared_per_block)
        throw RunError("the shared-path arrays and the sample buffer need " + std::to_string(shared_at) +
                       " B of shared memory per block; the device allows " +
                       std::to_string(limits.max_shared_per_block));
      needed = std::max(needed, shared_at);
      std::uint32_t overhead_array = 0;
      bool have_measure = false;
      for (const auto& ph : e.phases) {
        const auto it =
            std::find_if(e.arrays.begin(), e.arrays.end(), [&](const PhaseArray& a) { return a.name == ph.array; });
        const auto ai = static_cast<std::uint32_t>(it - e.arrays.begin());
        m.phase_array.push_back(ai);
        if (ph.action == Phase::Action::measure && !have_measure) {
          have_measure = true;
          overhead_array = ai;
          m.first_measured_pass = m.array_pass[ai];
        }
      }
      m.first_entry = entries_.size();
      for (std::uint32_t b = 0; b < m.blocks; ++b) {
        dissect_phases_point pt{};
        pt.first_array = static_cast<std::uint32_t>(tarrays_.size());
        pt.n_arrays = static_cast<std::uint32_t>(point_arrays.size());
        pt.first_phase = static_cast<std::uint32_t>(tphases_.size());
        pt.n_phases = static_cast<std::uint32_t>(e.phases.size());
        pt.chunk = kChunk;
        pt.overhead_array = overhead_array;
        tarrays_.insert(tarrays_.end(), point_arrays.begin(), point_arrays.end());
        for (std::size_t p = 0; p < e.phases.size(); ++p) {
          const auto& ph = e.phases[p];
          dissect_phase tp{};
          tp.thread = ph.thread;
          tp.array = m.phase_array[p];
          tp.measure = ph.action == Phase::Action::measure ? 1 : 0;
          tp.passes = ph.passes;
          tp.out_base = slots_;
          if (tp.measure) slots_ += std::uint64_t{ph.passes} * m.array_pass[tp.array];
          tphases_.push_back(tp);
        }
        entries_.push_back(pt);
      }
      metas_.push_back(std::move(m));
    }
    blocks = static_cast<std::uint32_t>(entries_.size());
    shared_bytes = needed;
  }

  std::size_t lay_out(std::span<const dissect_array_ref> refs, ParamTable& table, OutputLayout& out,
                      std::vector<KernelArg>& args) override {
    for (const Meta& m : metas_)
      for (std::uint32_t b = 0; b < m.blocks; ++b) {
        const dissect_phases_point& pt = entries_[m.first_entry + b];
        for (std::uint32_t a = 0; a < pt.n_arrays; ++a) tarrays_[pt.first_array + a].ref = refs[m.first_upload + a];
      }
    const std::uint64_t points_at = table.add(entries_), arrays_at = table.add(tarrays_),
                        phases_at = table.add(tphases_);
    lat_ = out.add_samples(4 * std::max<std::uint64_t>(slots_, 1));
    idx_ = out.add_samples(4 * std::max<std::uint64_t>(slots_, 1));
    const std::size_t fin = out.add(8 * tphases_.size());
    smid_ = out.add(4ull * blocks);
    ovh_ = out.add(4ull * blocks * DISSECT_OVERHEAD_REPS);
    args = {KernelArg::table(points_at), KernelArg::table(arrays_at), KernelArg::table(phases_at),
            KernelArg::output(lat_),     KernelArg::output(idx_),     KernelArg::output(fin),
            KernelArg::output(smid_),    KernelArg::output(ovh_),     KernelArg::zero()};
    return smid_;
  }

  [[nodiscard]] std::uint32_t first_block(std::size_t point) const override {
    return static_cast<std::uint32_t>(metas_.at(point).first_entry);
  }

  [[nodiscard]] std::uint64_t accesses_per_pass(std::size_t point) const override {
    return metas_.at(point).first_measured_pass;
  }

  void decode(std::uint32_t r, const Readback& res, std::span<PointTrace> traces,
              std::span<std::vector<double>> overheads) const override {
    const auto lat = res.as<std::uint32_t>(lat_), idx = res.as<std::uint32_t>(idx_),
               smid = res.as<std::uint32_t>(smid_), ovh = res.as<std::uint32_t>(ovh_);
    for (std::size_t gi = 0; gi < points.size(); ++gi) {
      const Experiment& e = *points[gi];
      const Meta& m = metas_[gi];
      const std::uint64_t elem = e.elem_bytes();
      const std::uint32_t threads = e.layout.threads;
      for (std::uint32_t b = 0; b < m.blocks; ++b) {
        const std::size_t blk = m.first_entry + b;
        const dissect_phases_point& pt = entries_[blk];
        const auto sm = static_cast<std::int32_t>(smid[blk]);
        append_overheads(ovh.subspan(blk * DISSECT_OVERHEAD_REPS, DISSECT_OVERHEAD_REPS), overheads[gi]);
        std::uint32_t measure_ordinal = 0;
        for (std::uint32_t p = 0; p < pt.n_phases; ++p) {
          const dissect_phase& ph = tphases_[pt.first_phase + p];
          if (!ph.measure) continue;
          const std::uint64_t count = std::uint64_t{ph.passes} * m.array_pass[ph.array];
          const std::uint64_t n_elems = e.arrays[ph.array].array.size_bytes / elem;
          std::uint64_t prev = m.array_start[ph.array];
          for (std::uint64_t q = 0; q < count; ++q) {
            const std::uint32_t v = idx[ph.out_base + q];
            if (v >= n_elems || lat[ph.out_base + q] == kUnwritten32)
              throw RunError("the phases kernel left sample " + std::to_string(q) + " of phase " + std::to_string(p) +
                             " unwritten or out of range");
            Sample s;
            s.thread = static_cast<std::uint32_t>((std::uint64_t{r} * m.blocks + b) * threads + ph.thread);
            s.seq = q;
            s.offset_bytes = prev * elem;
            s.latency = lat[ph.out_base + q];
            s.sm_id = sm;
            s.phase = measure_ordinal;
            traces[gi].samples.push_back(s);
            prev = v;
          }
          ++measure_ordinal;
        }
      }
    }
  }

 private:
  struct Meta {
    std::size_t first_entry = 0, first_upload = 0;
    std::uint32_t blocks = 1;
    std::vector<std::uint64_t> array_start, array_pass;  // element index, pass length per array
    std::vector<std::uint32_t> phase_array;              // array index per phase
    std::uint64_t first_measured_pass = 0;
  };
  std::vector<Meta> metas_;
  std::vector<dissect_phases_point> entries_;
  std::vector<dissect_phase_array> tarrays_;
  std::vector<dissect_phase> tphases_;
  std::uint64_t slots_ = 0;
  std::size_t lat_ = 0, idx_ = 0, smid_ = 0, ovh_ = 0;
};

class PhasesFamily final : public KernelFamily {
 public:
  [[nodiscard]] KernelKind kind() const override { return KernelKind::phases; }

  [[nodiscard]] KernelParams kernel_params(const Experiment& e) const override {
    if (e.arrays.empty()) throw RunError("kernel phases needs at least one array");
    KernelParams p;
    p.template_name = "phases";
    p.entry = "dissect_phases";
    std::string paths, sw;
    bool uses_const = false;
    for (std::size_t k = 0; k < e.arrays.size(); ++k) {
      const LoadPath lp = e.arrays[k].path;
      uses_const = uses_const || lp == LoadPath::constant;
      paths += (k ? "+" : "") + std::string(to_string(lp));
      sw += (k ? " " : "") + std::string("DISSECT_PHASE_CASE(") + std::to_string(k) + ", " +
            std::to_string(path_code(lp)) + ")";
    }
    p.label = "phases-" + paths + "-" + to_string(e.element) + "-" + to_string(e.timing.clock);
    p.defines = {{"DISSECT_NARRAYS", std::to_string(e.arrays.size())},
                 {"DISSECT_PHASE_SWITCH", sw},
                 element_define(e),
                 clock_define(e),
                 {"DISSECT_USES_CONST", uses_const ? "1" : "0"}};
    return p;
  }
  void append_identity(const Experiment& e, std::string& out) const override {
    for (const auto& a : e.arrays) append_byte(out, a.path);
  }
  [[nodiscard]] std::vector<std::pair<LoadPath, const ArraySpec*>> arrays(const Experiment& e) const override {
    std::vector<std::pair<LoadPath, const ArraySpec*>> out;
    for (const auto& a : e.arrays) out.emplace_back(a.path, &a.array);
    return out;
  }
  [[nodiscard]] std::unique_ptr<CudaLaunch> cuda_launch(std::span<const Experiment* const> points,
                                                        const CudaLimits& limits) const override {
    return std::make_unique<PhasesLaunch>(points, limits);
  }
  void simulate(sim::KernelContext& c) const override { sim::simulate_phases(c); }
};

}  // namespace

const KernelFamily& phases_family() {
  static const PhasesFamily f;
  return f;
}

}  // namespace dissect
