#include "engine/device/cuda/cuda_error.hpp"

namespace dissect {

CudaStickiness cuda_stickiness(CUresult r) noexcept {
  switch (r) {
    // A kernel did something it must not: the context that ran it is poisoned.
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_TENSOR_MEMORY_LEAK:
      return CudaStickiness::context;
    // The hardware or the service behind the context failed.
    case CUDA_ERROR_ECC_UNCORRECTABLE:
    case CUDA_ERROR_NVLINK_UNCORRECTABLE:
    case CUDA_ERROR_CONTAINED:
    case CUDA_ERROR_MPS_CLIENT_TERMINATED:
    case CUDA_ERROR_EXTERNAL_DEVICE:
      return CudaStickiness::process;
    default:
      return CudaStickiness::none;
  }
}

const char* to_string(CudaStickiness s) noexcept {
  switch (s) {
    case CudaStickiness::context:
      return "context";
    case CudaStickiness::process:
      return "process";
    case CudaStickiness::none:
      break;
  }
  return "none";
}

}  // namespace dissect
