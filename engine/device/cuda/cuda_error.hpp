#pragma once
// What a failed CUDA driver call means for the context it was made in. A kernel
// fault (an illegal address, a trap, a misaligned load, a device-side assert) is
// "sticky": it poisons the context that ran the kernel, and every later call in that
// context returns the same error, so nothing more can run until the context is
// recreated. Other errors (out of memory, an invalid value, a launch the device
// refuses) leave the context usable: recreating it would only throw away the loaded
// modules and buffers of the runs still to come.
#include <cuda.h>

#include <memory>
#include <string>

#include "engine/core/diagnostics.hpp"

namespace dissect {

enum class CudaStickiness {
  none,     // the context stays usable
  context,  // a kernel fault: the context is poisoned; a fresh one runs again
  process,  // the GPU, its memory or its link failed (uncorrectable ECC, a contained error, an
            // MPS client ended): CUDA asks for a new process; a fresh context is tried and checked
};

// The class of `r`, from the wording of cuda.h: the errors it says leave "the process in an
// inconsistent state" (process-level where they name hardware, context-level where they name
// the kernel), CUDA_ERROR_ASSERT ("the context ... must be destroyed"), and the uncorrectable
// ECC and NVLink errors, which in practice are as sticky. Anything else: none.
[[nodiscard]] CudaStickiness cuda_stickiness(CUresult r) noexcept;
[[nodiscard]] const char* to_string(CudaStickiness s) noexcept;  // "none", "context", "process"

// A failed driver call: "cuLaunchKernel: CUDA_ERROR_... (text)", with the call and its result
// kept for the device to classify (cuda_stickiness) after the message has been given its
// context (spec, point).
class CudaError : public RunError {
 public:
  CudaError(const std::string& what, CUresult result, std::string call)
      : RunError(what), result_(result), call_(std::make_shared<const std::string>(std::move(call))) {}
  [[nodiscard]] CUresult result() const noexcept { return result_; }
  [[nodiscard]] const std::string& call() const noexcept { return *call_; }
  // The same error with `prefix` (where it happened) before its message.
  [[nodiscard]] CudaError located(const std::string& prefix) const {
    return CudaError(prefix + what(), result_, *call_);
  }

 private:
  CUresult result_;
  std::shared_ptr<const std::string> call_;  // shared: copying an exception must not throw
};

}  // namespace dissect
