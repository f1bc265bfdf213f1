#pragma once
// Current SM and memory clocks through NVML (optional: engine/device/cuda/nvml_device.hpp).
// The driver attribute CU_DEVICE_ATTRIBUTE_CLOCK_RATE is the rated clock, not the one a
// kernel ran at: boost and power limits move it.
#include <optional>
#include <string>

#include "engine/device/cuda/nvml_device.hpp"

namespace dissect {

class NvmlClock {
 public:
  explicit NvmlClock(const NvmlDevice& nvml);
  [[nodiscard]] bool available() const { return device_ != nullptr; }
  [[nodiscard]] std::optional<double> sm_clock_khz() const;
  [[nodiscard]] std::optional<double> mem_clock_khz() const;
  [[nodiscard]] const std::string& why_unavailable() const { return why_; }

 private:
  [[nodiscard]] std::optional<double> clock_khz(int type) const;
  void* device_ = nullptr;
  void* get_clock_ = nullptr;
  std::string why_;
};

}  // namespace dissect
