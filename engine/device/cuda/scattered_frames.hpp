#pragma once
// A virtual range backed by chunks of the driver's minimum allocation
// granularity, each a physical allocation of its own (cuMemCreate), mapped in a
// shuffled order (cuMemMap). Chunks are created one after the other, so the
// driver tends to give consecutive ones consecutive frames; the shuffle puts
// them far apart in the virtual range. A TLB that coalesces the translations of
// virtually and physically contiguous pages into one entry (Zhang et al., CCS
// 2023) then finds no two neighbouring chunks to coalesce: an entry reaches one
// page, or at most one chunk. The `tlb` and `page_size` steps compare the two
// layouts to tell the page from the reach of an entry.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/device/cuda/cuda_driver.hpp"

namespace dissect {

class ScatteredFrames {
 public:
  ScatteredFrames() = default;
  ~ScatteredFrames() { unmap(); }
  ScatteredFrames(const ScatteredFrames&) = delete;
  ScatteredFrames& operator=(const ScatteredFrames&) = delete;

  // Maps at least `bytes` at an address aligned to `align` (and to the
  // granularity); throws CudaError naming the call that failed, with nothing
  // left mapped. `what` names the buffer in messages.
  CUdeviceptr map(std::uint64_t bytes, std::uint64_t align, const std::string& what);
  void unmap();

  [[nodiscard]] bool active() const { return base_ != 0; }
  [[nodiscard]] std::uint64_t bytes() const { return chunk_ * handles_.size(); }
  [[nodiscard]] std::uint64_t chunk_bytes() const { return chunk_; }
  [[nodiscard]] std::size_t chunks() const { return handles_.size(); }

 private:
  CUdeviceptr reserved_ = 0, base_ = 0;
  std::uint64_t reserved_bytes_ = 0, chunk_ = 0;
  std::vector<CUmemGenericAllocationHandle> handles_;
  std::size_t mapped_ = 0;  // chunks mapped so far (map() stopped early: unmap only those)
  std::vector<std::uint64_t> slot_;  // chunk i lies at base_ + slot_[i] x chunk_
};

// The slot of each of `n` chunks: a seeded shuffle in which no chunk follows
// its predecessor in creation order (chunk i + 1 never lands right after chunk
// i), so that no two virtually neighbouring chunks were created one after the
// other. A permutation of 0 .. n-1.
std::vector<std::uint64_t> scattered_slots(std::size_t n, std::uint64_t seed);

}  // namespace dissect
