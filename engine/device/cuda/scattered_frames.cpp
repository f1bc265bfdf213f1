#include "engine/device/cuda/scattered_frames.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "engine/device/cuda/cuda_error.hpp"
#include "engine/device/cuda/vmm_allocation.hpp"

namespace dissect {

std::vector<std::uint64_t> scattered_slots(std::size_t n, std::uint64_t seed) {
  std::vector<std::uint64_t> slot(n);
  std::iota(slot.begin(), slot.end(), std::uint64_t{0});
  std::mt19937_64 rng(seed);
  std::shuffle(slot.begin(), slot.end(), rng);
  if (n < 3) {
    if (n == 2) slot = {1, 0};
    return slot;
  }
  // Break every "i + 1 right after i" by swapping chunk i + 1's slot with a
  // random other chunk's; a few passes settle it.
  for (int pass = 0; pass < 64; ++pass) {
    bool clean = true;
    for (std::size_t i = 0; i + 1 < n; ++i) {
      if (slot[i + 1] != slot[i] + 1) continue;
      clean = false;
      std::swap(slot[i + 1], slot[std::uniform_int_distribution<std::size_t>(0, n - 1)(rng)]);
    }
    if (clean) break;
  }
  return slot;
}

CUdeviceptr ScatteredFrames::map(std::uint64_t bytes, std::uint64_t align, const std::string& what) {
  unmap();
  const CudaDriver& d = CudaDriver::get();
  auto fail = [&](CUresult r, const char* call, const std::string& detail) {
    unmap();
    throw CudaError(std::string(call) + ": " + d.error_text(r) + ": " + what + " " + detail, r, call);
  };
  const VmmAllocation vmm = vmm_allocation(d, what, "scattered frames");  // nothing mapped yet: it may throw
  const CUmemAllocationProp& prop = vmm.prop;
  const std::uint64_t g = vmm.granularity;
  chunk_ = g;
  const std::uint64_t n = (bytes + g - 1) / g;
  const std::uint64_t alignment = std::max<std::uint64_t>(align, g);
  reserved_bytes_ = n * g + alignment;  // room to align the base by hand
  if (const CUresult r = d.cuMemAddressReserve(&reserved_, reserved_bytes_, 0, 0, 0); r != CUDA_SUCCESS) {
    reserved_ = 0;
    fail(r, "cuMemAddressReserve", "needs " + std::to_string(reserved_bytes_) + " B of virtual addresses");
  }
  base_ = (reserved_ + alignment - 1) / alignment * alignment;
  handles_.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    CUmemGenericAllocationHandle h = 0;
    if (const CUresult r = d.cuMemCreate(&h, g, &prop, 0); r != CUDA_SUCCESS)
      fail(r, "cuMemCreate", "chunk " + std::to_string(i) + " of " + std::to_string(n) + " (" + std::to_string(g) +
                                 " B each)");
    handles_.push_back(h);
  }
  slot_ = scattered_slots(n, 0x5ca77e7ed);
  for (std::uint64_t i = 0; i < n; ++i) {
    if (const CUresult r = d.cuMemMap(base_ + slot_[i] * g, g, 0, handles_[i], 0); r != CUDA_SUCCESS)
      fail(r, "cuMemMap", "chunk " + std::to_string(i) + " of " + std::to_string(n));
    ++mapped_;
  }
  const CUmemAccessDesc access = vmm.read_write();
  if (const CUresult r = d.cuMemSetAccess(base_, n * g, &access, 1); r != CUDA_SUCCESS)
    fail(r, "cuMemSetAccess", "(" + std::to_string(n * g) + " B)");
  return base_;
}

void ScatteredFrames::unmap() {
  if (reserved_ == 0 && handles_.empty()) return;
  if (CudaDriver::available()) {
    const CudaDriver& d = CudaDriver::get();
    for (std::size_t i = 0; i < mapped_; ++i) d.cuMemUnmap(base_ + slot_[i] * chunk_, chunk_);
    for (auto h : handles_) d.cuMemRelease(h);
    if (reserved_ != 0) d.cuMemAddressFree(reserved_, reserved_bytes_);
  }
  handles_.clear();
  slot_.clear();
  mapped_ = 0;
  reserved_ = base_ = 0;
  reserved_bytes_ = 0;
}

}  // namespace dissect
