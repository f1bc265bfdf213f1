#include "engine/device/cuda/nvml_clock.hpp"

namespace dissect {
namespace {
using ClockFn = int (*)(void*, int, unsigned int*);
constexpr int kNvmlClockSm = 1;   // NVML_CLOCK_SM
constexpr int kNvmlClockMem = 2;  // NVML_CLOCK_MEM
}  // namespace

NvmlClock::NvmlClock(const NvmlDevice& nvml) {
  if (!nvml.available()) {
    why_ = nvml.why;
    return;
  }
  get_clock_ = nvml.symbol("nvmlDeviceGetClockInfo");
  if (get_clock_ == nullptr) {
    why_ = "libnvidia-ml.so.1 lacks nvmlDeviceGetClockInfo";
    return;
  }
  device_ = nvml.device;
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
