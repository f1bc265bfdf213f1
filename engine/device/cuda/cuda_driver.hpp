#pragma once
// The CUDA driver API, opened at run time. dissect does not link libcuda: the
// binary must start (and run on the simulated GPU) on machines without a GPU
// driver, such as CI. libcuda.so.1 is opened with dlopen and every entry point
// is fetched through cuGetProcAddress for the CUDA version of the headers.
#include <cuda.h>

#include <string>

namespace dissect {

// X-macro: the entry points dissect uses (field name = driver API name).
#define DISSECT_CUDA_DRIVER_ENTRIES(X)                                                                   \
  X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuGetErrorString) X(cuDeviceGetCount) X(cuDeviceGet) \
  X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuDeviceTotalMem) X(cuDeviceGetPCIBusId)                    \
  X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuDevicePrimaryCtxReset) X(cuCtxSetCurrent)   \
  X(cuCtxSynchronize) X(cuModuleLoadData) X(cuModuleUnload) X(cuModuleGetFunction) X(cuModuleGetGlobal)    \
  X(cuFuncSetAttribute) X(cuFuncGetAttribute) X(cuOccupancyMaxActiveBlocksPerMultiprocessor) X(cuMemAlloc) \
  X(cuMemFree) X(cuMemAllocHost) X(cuMemFreeHost) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoD)          \
  X(cuMemsetD8Async) X(cuMemGetInfo)                                                                      \
  X(cuTexObjectCreate) X(cuTexObjectDestroy) X(cuLaunchKernel) X(cuEventCreate) X(cuEventRecord)           \
  X(cuEventSynchronize) X(cuEventElapsedTime) X(cuEventDestroy) X(cuCtxGetDevice)                          \
  X(cuMemGetAllocationGranularity) X(cuMemAddressReserve) X(cuMemAddressFree) X(cuMemCreate) X(cuMemRelease) \
  X(cuMemMap) X(cuMemUnmap) X(cuMemSetAccess)

class CudaDriver {
 public:
  // The process-wide driver table. Throws RunError when libcuda.so.1 cannot be
  // opened or lacks an entry point (the message says how to use the simulator).
  static const CudaDriver& get();
  // Whether the driver library can be opened (no exception); `why` says why not.
  static bool available(std::string* why = nullptr);

#define DISSECT_CUDA_FIELD(name) decltype(&::name) name = nullptr;
  DISSECT_CUDA_DRIVER_ENTRIES(DISSECT_CUDA_FIELD)
#undef DISSECT_CUDA_FIELD

  // "CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
  [[nodiscard]] std::string error_text(CUresult r) const;
  // Throws CudaError (engine/device/cuda/cuda_error.hpp) "call: CUDA_ERROR_... (text)"
  // unless r == CUDA_SUCCESS.
  void check(CUresult r, const char* call) const;

 private:
  CudaDriver() = default;
  static CudaDriver* load(std::string& error);
};

// Shorthand: DISSECT_CU(drv, cuMemAlloc(&p, n)) checks and names the call.
#define DISSECT_CU(drv, call) (drv).check((drv).call, #call)

}  // namespace dissect
