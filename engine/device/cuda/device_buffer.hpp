#pragma once
// Device memory that grows on demand and is kept between launches (a sweep
// reuses its buffers instead of allocating per point).
//
// A buffer is one allocation (contiguous physical frames, as cuMemAlloc gives a
// large array), or, with Frames::scattered (ArraySpec::frames), chunks of the
// driver's minimum allocation granularity, each a physical allocation of its own,
// mapped into one virtual range in a shuffled order: virtually neighbouring chunks
// are then physically apart, so no TLB entry can cover more than one chunk
// (engine/device/cuda/scattered_frames.hpp); or, with Frames::aliased, one
// physical block mapped over the whole range again and again
// (engine/device/cuda/aliased_frames.hpp).
#include <cstdint>
#include <string>

#include "engine/core/diagnostics.hpp"
#include "engine/device/cuda/cuda_driver.hpp"
#include "engine/device/cuda/cuda_error.hpp"
#include "engine/device/cuda/aliased_frames.hpp"
#include "engine/device/cuda/scattered_frames.hpp"
#include "engine/spec/experiment.hpp"

namespace dissect {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::string what) : what_(std::move(what)) {}
  ~DeviceBuffer() { release(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // At least `bytes` (contents are not kept), aligned to `align` bytes, backed as
  // `frames` says. An aliased buffer is kept where its block is at least the one
  // the new range would get (a smaller range lies inside the first block).
  CUdeviceptr ensure(std::uint64_t bytes, std::uint64_t align = 256, Frames frames = Frames::contiguous) {
    if (bytes == 0) bytes = 1;
    if (holds(bytes, align, frames)) return aligned_;
    release();
    if (frames == Frames::scattered) {
      align_ = align < 256 ? 256 : align;
      aligned_ = frames_.map(bytes, align_, what_);
      usable_ = frames_.bytes();
      return aligned_;
    }
    if (frames == Frames::aliased) {
      align_ = align < 256 ? 256 : align;
      aligned_ = aliased_.map(bytes, align_, kAliasedBlockBytes, what_);
      usable_ = aliased_.bytes();
      return aligned_;
    }
    const CudaDriver& d = CudaDriver::get();
    const std::uint64_t total = bytes + (align > 256 ? align : 0);
    const CUresult r = d.cuMemAlloc(&ptr_, total);
    if (r != CUDA_SUCCESS) {
      ptr_ = 0;
      std::size_t free_b = 0, total_b = 0;
      d.cuMemGetInfo(&free_b, &total_b);
      // A CudaError: an allocation can be the first call to see an earlier kernel's fault.
      throw CudaError("cuMemAlloc: " + d.error_text(r) + ": " + what_ + " needs " + std::to_string(total) +
                          " B; the GPU has " + std::to_string(free_b) + " B free of " + std::to_string(total_b),
                      r, "cuMemAlloc");
    }
    align_ = align < 256 ? 256 : align;
    aligned_ = (ptr_ + align_ - 1) / align_ * align_;
    usable_ = total - (aligned_ - ptr_);
    return aligned_;
  }
  [[nodiscard]] CUdeviceptr ptr() const { return aligned_; }
  // Whether ensure() would keep what is there (no allocation, no mapping).
  [[nodiscard]] bool holds(std::uint64_t bytes, std::uint64_t align, Frames frames) const {
    if (bytes == 0) bytes = 1;
    return aligned_ != 0 && bytes <= usable_ && align <= align_ && frames == frames_in_use() &&
           (frames != Frames::aliased || aliased_.block_bytes() >= aliased_block_for(bytes));
  }
  // The scattered mapping in use (chunks() == 0: one allocation).
  [[nodiscard]] const ScatteredFrames& frames() const { return frames_; }
  // The aliased mapping in use (active() false: none).
  [[nodiscard]] const AliasedFrames& aliased() const { return aliased_; }
  void release() {
    if (ptr_ != 0 && CudaDriver::available()) CudaDriver::get().cuMemFree(ptr_);
    frames_.unmap();
    aliased_.unmap();
    ptr_ = aligned_ = 0;
    usable_ = 0;
  }

 private:
  std::string what_ = "a buffer";
  CUdeviceptr ptr_ = 0, aligned_ = 0;
  std::uint64_t usable_ = 0, align_ = 256;
  ScatteredFrames frames_;
  AliasedFrames aliased_;

  [[nodiscard]] Frames frames_in_use() const {
    return frames_.active() ? Frames::scattered : aliased_.active() ? Frames::aliased : Frames::contiguous;
  }
  // The block a new aliased mapping of `bytes` would use (granularity as mapped).
  [[nodiscard]] std::uint64_t aliased_block_for(std::uint64_t bytes) const {
    return aliased_block_bytes(bytes, kAliasedBlockBytes, aliased_.granularity());
  }
};

}  // namespace dissect
