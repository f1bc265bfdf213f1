#include <algorithm>
#include <cctype>

#include "engine/device/device.hpp"

namespace dissect {

// Each device family contributes one factory; a new family is one file plus
// one line here.
const std::vector<DeviceFactory>& device_factories() {
  static const std::vector<DeviceFactory> factories = [] {
    std::vector<DeviceFactory> f;
    return f;
  }();
  return factories;
}

std::unique_ptr<Device> open_device(const std::string& selector) {
  for (const auto& f : device_factories())
    if (f.accepts(selector)) return f.open(selector);
  std::string msg = "no device '" + selector + "'";
  if (device_factories().empty()) {
    msg += ": this build has no device backends yet";
  } else {
    msg += "; devices are selected with";
    for (const auto& f : device_factories()) msg += "\n  " + f.help;
  }
  throw RunError(msg);
}

}  // namespace dissect
