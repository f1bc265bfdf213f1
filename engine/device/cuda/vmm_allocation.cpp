#include "engine/device/cuda/vmm_allocation.hpp"

#include "engine/device/cuda/cuda_error.hpp"

namespace dissect {

CUmemAccessDesc VmmAllocation::read_write() const {
  CUmemAccessDesc access{};
  access.location = prop.location;
  access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  return access;
}

VmmAllocation vmm_allocation(const CudaDriver& d, const std::string& what, const std::string& who) {
  auto fail = [&](CUresult r, const char* call, const std::string& detail) {
    throw CudaError(std::string(call) + ": " + d.error_text(r) + ": " + what + " " + detail, r, call);
  };
  CUdevice dev = 0;
  if (const CUresult r = d.cuCtxGetDevice(&dev); r != CUDA_SUCCESS) fail(r, "cuCtxGetDevice", "(" + who + ")");
  VmmAllocation a;
  a.prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  a.prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  a.prop.location.id = dev;
  std::size_t g = 0;
  if (const CUresult r = d.cuMemGetAllocationGranularity(&g, &a.prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
      r != CUDA_SUCCESS || g == 0)
    fail(r == CUDA_SUCCESS ? CUDA_ERROR_NOT_SUPPORTED : r, "cuMemGetAllocationGranularity",
         "(" + who + " need the virtual memory management API)");
  a.granularity = g;
  return a;
}

}  // namespace dissect
