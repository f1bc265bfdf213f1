#include "engine/device/cuda/nvml_clock.hpp"

#include <dlfcn.h>

namespace dissect {
namespace {
using InitFn = int (*)();
using HandleFn = int (*)(const char*, void**);
using ClockFn = int (*)(void*, int, unsigned int*);
constexpr int kNvmlClockSm = 1;   // NVML_CLOCK_SM
constexpr int kNvmlClockMem = 2;  // NVML_CLOCK_MEM
}  // namespace

NvmlClock::NvmlClock(const std::string& pci_bus_id) {
  void* lib = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    why_ = "libnvidia-ml.so.1 not found";
    return;
  }
  auto init = reinterpret_cast<InitFn>(::dlsym(lib, "nvmlInit_v2"));
  auto handle = reinterpret_cast<HandleFn>(::dlsym(lib, "nvmlDeviceGetHandleByPciBusId_v2"));
  get_clock_ = ::dlsym(lib, "nvmlDeviceGetClockInfo");
  if (init == nullptr || handle == nullptr || get_clock_ == nullptr) {
    why_ = "libnvidia-ml.so.1 lacks nvmlInit_v2 / nvmlDeviceGetHandleByPciBusId_v2 / nvmlDeviceGetClockInfo";
    return;
  }
  if (int r = init(); r != 0) {
    why_ = "nvmlInit_v2 failed (" + std::to_string(r) + ")";
    return;
  }
  void* dev = nullptr;
  if (int r = handle(pci_bus_id.c_str(), &dev); r != 0 || dev == nullptr) {
    why_ = "NVML does not know PCI device " + pci_bus_id + " (" + std::to_string(r) + ")";
    return;
  }
  device_ = dev;
}

std::optional<double> NvmlClock::clock_khz(int type) const {
  if (device_ == nullptr) return std::nullopt;
  unsigned int mhz = 0;
  if (reinterpret_cast<ClockFn>(get_clock_)(device_, type, &mhz) != 0 || mhz == 0) return std::nullopt;
  return mhz * 1000.0;
}

std::optional<double> NvmlClock::sm_clock_khz() const { return clock_khz(kNvmlClockSm); }
std::optional<double> NvmlClock::mem_clock_khz() const { return clock_khz(kNvmlClockMem); }

}  // namespace dissect
