// Which CUDA errors poison a context (a kernel fault) and which leave it usable.
#include "engine/device/cuda/cuda_error.hpp"

#include <doctest/doctest.h>

using namespace dissect;

TEST_CASE("kernel faults poison the context; hardware errors the process") {
  for (const CUresult r : {CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_LAUNCH_FAILED, CUDA_ERROR_ASSERT,
                           CUDA_ERROR_ILLEGAL_INSTRUCTION, CUDA_ERROR_MISALIGNED_ADDRESS, CUDA_ERROR_HARDWARE_STACK_ERROR,
                           CUDA_ERROR_INVALID_ADDRESS_SPACE, CUDA_ERROR_INVALID_PC, CUDA_ERROR_LAUNCH_TIMEOUT,
                           CUDA_ERROR_TENSOR_MEMORY_LEAK}) {
    CAPTURE(static_cast<int>(r));
    CHECK(cuda_stickiness(r) == CudaStickiness::context);
  }
  for (const CUresult r : {CUDA_ERROR_ECC_UNCORRECTABLE, CUDA_ERROR_NVLINK_UNCORRECTABLE, CUDA_ERROR_CONTAINED,
                           CUDA_ERROR_MPS_CLIENT_TERMINATED, CUDA_ERROR_EXTERNAL_DEVICE}) {
    CAPTURE(static_cast<int>(r));
    CHECK(cuda_stickiness(r) == CudaStickiness::process);
  }
}

TEST_CASE("errors that leave the context usable are not sticky: no reset for them") {
  for (const CUresult r : {CUDA_SUCCESS, CUDA_ERROR_OUT_OF_MEMORY, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_INVALID_HANDLE,
                           CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, CUDA_ERROR_INVALID_IMAGE, CUDA_ERROR_NOT_FOUND,
                           CUDA_ERROR_NOT_READY, CUDA_ERROR_NO_BINARY_FOR_GPU, CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
                           CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_INVALID_CONTEXT, CUDA_ERROR_UNKNOWN}) {
    CAPTURE(static_cast<int>(r));
    CHECK(cuda_stickiness(r) == CudaStickiness::none);
  }
  CHECK(std::string(to_string(CudaStickiness::none)) == "none");
  CHECK(std::string(to_string(CudaStickiness::context)) == "context");
  CHECK(std::string(to_string(CudaStickiness::process)) == "process");
}

TEST_CASE("a located CUDA error keeps its result and call, with the place before its message") {
  const CudaError e("cuEventSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was encountered)",
                    CUDA_ERROR_ILLEGAL_ADDRESS, "cuEventSynchronize");
  const CudaError l = e.located("spec a.yaml, point #3 (array.size=8 KiB): ");
  CHECK(std::string(l.what()) ==
        "spec a.yaml, point #3 (array.size=8 KiB): cuEventSynchronize: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory "
        "access was encountered)");
  CHECK(l.result() == CUDA_ERROR_ILLEGAL_ADDRESS);
  CHECK(l.call() == "cuEventSynchronize");
  // Caught as the RunError every caller already handles.
  try {
    throw l;
  } catch (const RunError& r) {
    CHECK(std::string(r.what()).find("point #3") != std::string::npos);
  }
}
