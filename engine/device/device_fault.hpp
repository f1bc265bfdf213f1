#pragma once
// A fault that ended a device's state, not just one run: a kernel fault (an
// out-of-bounds load, a trap) poisons a CUDA context, and every later call in it
// fails. Device::run throws DeviceFault after it has tried to recover (a fresh
// context), so that the caller knows both what happened (the message names the
// spec, the point and the call that saw it) and whether the device can run the
// next spec (recovered()). The runner records details() in the bundle
// (bundle.json "fault") and the topology in its step.
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/core/diagnostics.hpp"

namespace dissect {

class DeviceFault : public RunError {
 public:
  DeviceFault(const std::string& what, nlohmann::json details, bool recovered)
      : RunError(what), details_(std::make_shared<const nlohmann::json>(std::move(details))), recovered_(recovered) {}
  // {"kind", "cuda_call", "cuda_error", "sticky", "recovery"} for the CUDA device.
  [[nodiscard]] const nlohmann::json& details() const noexcept { return *details_; }
  // Whether the device runs again (its next run may go on).
  [[nodiscard]] bool recovered() const noexcept { return recovered_; }

 private:
  std::shared_ptr<const nlohmann::json> details_;  // shared: copying an exception must not throw
  bool recovered_;
};

}  // namespace dissect
