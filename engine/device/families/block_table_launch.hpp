#pragma once
// The launch shape shared by the families whose parameter table is one entry per
// block and whose kernel signature is (entries, samples, final values, %smid, timer
// overheads, rt_zero): shared_stride, coalescing, throughput. A family derives from
// it, fills `entries_` (and `arrays`, one per point that reads one) in its
// constructor and decodes the samples of one block.
#include <algorithm>
#include <span>
#include <vector>

#include "engine/core/diagnostics.hpp"
#include "engine/device/cuda/cuda_launch.hpp"
#include "engine/device/families/family_support.hpp"

namespace dissect {

// The one array of a kernel whose array contents do not matter (coalescing,
// throughput): sequential, written on the device.
inline LaunchArray plain_array(const Experiment& e) {
  ArraySpec plain;
  plain.size_bytes = e.array.size_bytes;
  plain.stride_bytes = e.elem_bytes();
  return {make_array_image(plain, e.element, {}, e.path != LoadPath::constant), e.path};
}

template <typename Entry>
class BlockTableLaunch : public CudaLaunch {
 public:
  using CudaLaunch::CudaLaunch;

  std::size_t lay_out(std::span<const dissect_array_ref> refs, ParamTable& table, OutputLayout& out,
                      std::vector<KernelArg>& args) override {
    if constexpr (requires(Entry en) { en.array; })
      for (std::size_t gi = 0; gi < points.size() && gi < refs.size(); ++gi)
        for (std::uint32_t b = 0; b < points[gi]->layout.blocks; ++b) entries_[first_entry_[gi] + b].array = refs[gi];
    const std::uint64_t entries_at = table.add(entries_);
    samples_ = out.add_samples(slot_bytes_ * slots_);
    const std::size_t fin = out.add(8 * finals_);
    smid_ = out.add(4ull * blocks);
    ovh_ = out.add(4ull * blocks * DISSECT_OVERHEAD_REPS);
    args = {KernelArg::table(entries_at), KernelArg::output(samples_), KernelArg::output(fin),
            KernelArg::output(smid_),     KernelArg::output(ovh_),     KernelArg::zero()};
    return smid_;
  }

  [[nodiscard]] std::uint32_t first_block(std::size_t point) const override {
    return static_cast<std::uint32_t>(first_entry_.at(point));
  }

  void decode(std::uint32_t r, const Readback& res, std::span<PointTrace> traces,
              std::span<std::vector<double>> overheads) const override {
    const auto smid = res.as<std::uint32_t>(smid_), ovh = res.as<std::uint32_t>(ovh_);
    for (std::size_t gi = 0; gi < points.size(); ++gi)
      for (std::uint32_t b = 0; b < points[gi]->layout.blocks; ++b) {
        const std::size_t blk = first_entry_[gi] + b;  // entries are the launch's blocks, in order
        if (overhead_from_block(b))
          append_overheads(ovh.subspan(blk * DISSECT_OVERHEAD_REPS, DISSECT_OVERHEAD_REPS), overheads[gi]);
        decode_block(r, *points[gi], b, entries_[blk], res, static_cast<std::int32_t>(smid[blk]), traces[gi]);
      }
  }

 protected:
  // Appends the samples block b of a point wrote in repeat r (its entry `en`, on SM `sm`).
  virtual void decode_block(std::uint32_t r, const Experiment& e, std::uint32_t b, const Entry& en,
                            const Readback& res, std::int32_t sm, PointTrace& trace) const = 0;
  // Whether block b of a point contributes timer-overhead readings.
  [[nodiscard]] virtual bool overhead_from_block(std::uint32_t b) const {
    (void)b;
    return true;
  }
  // The samples output as an array of T.
  template <typename T>
  [[nodiscard]] std::span<const T> samples(const Readback& res) const {
    return res.as<T>(samples_);
  }
  // Marks where point entries begin (call before adding a point's entries).
  void begin_point() { first_entry_.push_back(entries_.size()); }
  // The end of the constructor: grid size and shared memory, checked against the device.
  void finish(std::uint32_t needed, const CudaLimits& limits, const char* what) {
    if (needed > limits.max_shared_per_block)
      throw RunError(std::string("the ") + what + " kernel needs " + std::to_string(needed) +
                     " B of shared memory per block; the device allows " + std::to_string(limits.max_shared_per_block) +
                     " B");
    blocks = static_cast<std::uint32_t>(entries_.size());
    shared_bytes = needed;
  }
  [[noreturn]] static void unwritten(const char* kernel, const std::string& what) {
    throw RunError(std::string("the ") + kernel + " kernel left " + what + " unwritten");
  }

  std::vector<Entry> entries_;
  std::uint64_t slots_ = 0;       // sample slots of the launch
  std::uint64_t slot_bytes_ = 4;  // bytes per sample slot
  std::uint64_t finals_ = 0;      // final values the kernel writes (8 bytes each)

 private:
  std::vector<std::size_t> first_entry_;
  std::size_t samples_ = 0, smid_ = 0, ovh_ = 0;
};

}  // namespace dissect
