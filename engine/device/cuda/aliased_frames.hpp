#pragma once
// A virtual range far larger than the device's memory, backed by one physical
// block (cuMemCreate) mapped again and again, block after block (cuMemMap of the
// same handle at every block-sized offset). A TLB sees every page of the range
// as a page of its own; the caches see the block's few frames. This is how the
// `tlb` steps reach levels whose coverage exceeds what the GPU can allocate
// (Frames::aliased, engine/spec/experiment.hpp), while the data a chase touches
// stays within one block (and within the L2 where the chase's lines fit).
//
// Two virtual addresses whose offsets agree modulo the block are one physical
// word: `physical_offset` says where an offset lands, and the array placement
// refuses an aliased array whose written elements would share a word.
#include <cstdint>
#include <string>

#include "engine/device/cuda/cuda_driver.hpp"

namespace dissect {

class AliasedFrames {
 public:
  AliasedFrames() = default;
  ~AliasedFrames() { unmap(); }
  AliasedFrames(const AliasedFrames&) = delete;
  AliasedFrames& operator=(const AliasedFrames&) = delete;

  // Maps at least `bytes` of virtual addresses at a base aligned to `align` and
  // to the block, over one block of at most `block_bytes` (rounded up to the
  // driver's granularity; the range's own size when that is smaller). Throws
  // CudaError naming the call that failed, with nothing left mapped.
  CUdeviceptr map(std::uint64_t bytes, std::uint64_t align, std::uint64_t block_bytes, const std::string& what);
  void unmap();

  [[nodiscard]] bool active() const { return base_ != 0; }
  [[nodiscard]] std::uint64_t bytes() const { return block_ * mapped_; }
  [[nodiscard]] std::uint64_t block_bytes() const { return block_; }
  // The driver's granularity, once a map() has asked for it (0 before).
  [[nodiscard]] std::uint64_t granularity() const { return granularity_; }
  // Where byte `offset` from the base lies in the block.
  [[nodiscard]] std::uint64_t physical_offset(std::uint64_t offset) const { return offset % block_; }

 private:
  CUdeviceptr reserved_ = 0, base_ = 0;
  std::uint64_t reserved_bytes_ = 0, block_ = 0, granularity_ = 0;
  CUmemGenericAllocationHandle handle_ = 0;
  std::uint64_t mapped_ = 0;  // blocks mapped so far (map() stopped early: unmap only those)
};

// The block an aliased range of `bytes` uses: at most `block_bytes`, a multiple
// of `granularity`, and no larger than the range rounded up to the granularity.
std::uint64_t aliased_block_bytes(std::uint64_t bytes, std::uint64_t block_bytes, std::uint64_t granularity);

}  // namespace dissect
