#include "engine/device/cuda/aliased_frames.hpp"

#include <algorithm>

#include "engine/device/cuda/cuda_error.hpp"
#include "engine/device/cuda/vmm_allocation.hpp"

namespace dissect {

std::uint64_t aliased_block_bytes(std::uint64_t bytes, std::uint64_t block_bytes, std::uint64_t granularity) {
  if (granularity == 0) granularity = 1;
  const auto up = [granularity](std::uint64_t v) {
    return (std::max<std::uint64_t>(v, 1) + granularity - 1) / granularity * granularity;
  };
  return std::min(up(block_bytes), up(bytes));
}

CUdeviceptr AliasedFrames::map(std::uint64_t bytes, std::uint64_t align, std::uint64_t block_bytes,
                               const std::string& what) {
  unmap();
  const CudaDriver& d = CudaDriver::get();
  auto fail = [&](CUresult r, const char* call, const std::string& detail) {
    unmap();
    throw CudaError(std::string(call) + ": " + d.error_text(r) + ": " + what + " " + detail, r, call);
  };
  const VmmAllocation vmm = vmm_allocation(d, what, "aliased frames");  // nothing mapped yet: it may throw
  const CUmemAllocationProp& prop = vmm.prop;
  const std::uint64_t g = vmm.granularity;
  granularity_ = g;
  block_ = aliased_block_bytes(bytes, block_bytes, g);
  const std::uint64_t n = (bytes + block_ - 1) / block_;
  const std::uint64_t alignment = std::max<std::uint64_t>(align, block_);
  reserved_bytes_ = n * block_ + alignment;  // room to align the base by hand
  if (const CUresult r = d.cuMemAddressReserve(&reserved_, reserved_bytes_, 0, 0, 0); r != CUDA_SUCCESS) {
    reserved_ = 0;
    fail(r, "cuMemAddressReserve", "needs " + std::to_string(reserved_bytes_) + " B of virtual addresses");
  }
  base_ = (reserved_ + alignment - 1) / alignment * alignment;
  if (const CUresult r = d.cuMemCreate(&handle_, block_, &prop, 0); r != CUDA_SUCCESS) {
    handle_ = 0;
    fail(r, "cuMemCreate", "(one block of " + std::to_string(block_) + " B)");
  }
  for (std::uint64_t i = 0; i < n; ++i) {
    if (const CUresult r = d.cuMemMap(base_ + i * block_, block_, 0, handle_, 0); r != CUDA_SUCCESS)
      fail(r, "cuMemMap", "block copy " + std::to_string(i) + " of " + std::to_string(n));
    ++mapped_;
  }
  const CUmemAccessDesc access = vmm.read_write();
  if (const CUresult r = d.cuMemSetAccess(base_, n * block_, &access, 1); r != CUDA_SUCCESS)
    fail(r, "cuMemSetAccess", "(" + std::to_string(n * block_) + " B)");
  return base_;
}

void AliasedFrames::unmap() {
  if (reserved_ == 0 && handle_ == 0) return;
  if (CudaDriver::available()) {
    const CudaDriver& d = CudaDriver::get();
    for (std::uint64_t i = 0; i < mapped_; ++i) d.cuMemUnmap(base_ + i * block_, block_);
    if (handle_ != 0) d.cuMemRelease(handle_);
    if (reserved_ != 0) d.cuMemAddressFree(reserved_, reserved_bytes_);
  }
  handle_ = 0;
  mapped_ = 0;
  block_ = 0;
  reserved_ = base_ = 0;
  reserved_bytes_ = 0;
}

}  // namespace dissect
