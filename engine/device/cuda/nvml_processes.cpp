#include "engine/device/cuda/nvml_processes.hpp"

#include <algorithm>

namespace dissect {
namespace {

// nvmlProcessInfo_t of nvml.h (NVML 11 and later), which _v3 and _v2 fill alike; dissect
// reads nvml.h's ABI without the header (the toolkit does not always ship it).
struct ProcessInfo {
  unsigned int pid;
  unsigned long long used_gpu_memory;
  unsigned int gpu_instance_id;
  unsigned int compute_instance_id;
};
using ListFn = int (*)(void*, unsigned int*, ProcessInfo*);
constexpr int kNvmlErrorInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE

}  // namespace

NvmlProcesses::NvmlProcesses(const NvmlDevice& nvml) {
  if (!nvml.available()) {
    why_ = nvml.why;
    return;
  }
  for (const char* name : {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"})
    if (void* fn = nvml.symbol(name); fn != nullptr) {
      list_ = fn;
      symbol_ = name;
      break;
    }
  if (list_ == nullptr) {
    why_ = "libnvidia-ml.so.1 lacks nvmlDeviceGetComputeRunningProcesses_v3 and _v2";
    return;
  }
  device_ = nvml.device;
}

std::optional<std::vector<std::uint32_t>> NvmlProcesses::compute_pids(std::string* why) const {
  if (device_ == nullptr) {
    if (why != nullptr) *why = "no NVML: " + why_;
    return std::nullopt;
  }
  std::vector<ProcessInfo> infos(16);
  // Processes can start between the calls: asked again with the size NVML said it needs.
  for (int attempt = 0; attempt < 4; ++attempt) {
    auto count = static_cast<unsigned int>(infos.size());
    const int r = reinterpret_cast<ListFn>(list_)(device_, &count, infos.data());
    if (r == kNvmlErrorInsufficientSize) {
      infos.resize(std::max<std::size_t>(count, infos.size()) + 16);
      continue;
    }
    if (r != 0) {
      if (why != nullptr) *why = symbol_ + " failed (NVML error " + std::to_string(r) + ")";
      return std::nullopt;
    }
    std::vector<std::uint32_t> pids;
    for (unsigned int i = 0; i < count && i < infos.size(); ++i) pids.push_back(infos[i].pid);
    return pids;
  }
  if (why != nullptr) *why = symbol_ + ": the list kept growing";
  return std::nullopt;
}

}  // namespace dissect
