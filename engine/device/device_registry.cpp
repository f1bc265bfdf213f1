#include <algorithm>
#include <cctype>

#include "engine/device/device.hpp"

namespace dissect {

DeviceFactory sim_device_factory();   // engine/device/sim/sim_device.cpp
DeviceFactory cuda_device_factory();  // engine/device/cuda/cuda_device.cpp

// Each device family contributes one factory; a new family is one file plus
// one line here.
const std::vector<DeviceFactory>& device_factories() {
  static const std::vector<DeviceFactory> factories = [] {
    std::vector<DeviceFactory> f;
    f.push_back(sim_device_factory());
    f.push_back(cuda_device_factory());
    return f;
  }();
  return factories;
}

const DeviceFactory* find_device_factory(const std::string& selector) {
  for (const auto& f : device_factories())
    if (f.accepts(selector)) return &f;
  return nullptr;
}

std::unique_ptr<Device> open_device(const std::string& selector, std::span<const Point> upcoming) {
  if (const DeviceFactory* f = find_device_factory(selector)) return f->open(selector, upcoming);
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
