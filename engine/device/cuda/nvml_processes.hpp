#pragma once
// The compute processes on a GPU through NVML (optional: engine/device/cuda/nvml_device.hpp),
// for a run's conditions (engine/device/run_conditions.hpp): another process's kernels
// share the SMs, caches and memory a measurement runs on.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/device/cuda/nvml_device.hpp"

namespace dissect {

class NvmlProcesses {
 public:
  explicit NvmlProcesses(const NvmlDevice& nvml);
  // The pids NVML lists (this process included while it holds a context); nullopt, with
  // *why saying why, when NVML cannot list them. Never throws.
  [[nodiscard]] std::optional<std::vector<std::uint32_t>> compute_pids(std::string* why) const;

 private:
  void* device_ = nullptr;
  void* list_ = nullptr;
  std::string symbol_, why_;
};

}  // namespace dissect
