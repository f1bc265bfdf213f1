#pragma once
// What the virtual memory management API needs for device memory of the current
// context: a pinned allocation on its device, the driver's minimum granularity for
// it, and read-write access from that device. Shared by the mappings that place
// physical blocks at virtual addresses of their choosing (scattered_frames.hpp,
// aliased_frames.hpp).
#include <cstdint>
#include <string>

#include "engine/device/cuda/cuda_driver.hpp"

namespace dissect {

struct VmmAllocation {
  CUmemAllocationProp prop{};
  std::uint64_t granularity = 0;
  // Read-write access from the allocation's device (cuMemSetAccess).
  [[nodiscard]] CUmemAccessDesc read_write() const;
};

// Throws CudaError naming the call that failed, with `what` (the buffer) and `who`
// (the mapping that needs the API) in the message; nothing is allocated.
VmmAllocation vmm_allocation(const CudaDriver& d, const std::string& what, const std::string& who);

}  // namespace dissect
