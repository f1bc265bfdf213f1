#include "engine/device/cuda/nvml_device.hpp"

#include <dlfcn.h>

namespace dissect {
namespace {
using InitFn = int (*)();
using HandleFn = int (*)(const char*, void**);
using DriverVersionFn = int (*)(char*, unsigned int);
}  // namespace

void* NvmlDevice::symbol(const char* name) const { return lib == nullptr ? nullptr : ::dlsym(lib, name); }

std::string NvmlDevice::driver_release() const {
  auto fn = reinterpret_cast<DriverVersionFn>(symbol("nvmlSystemGetDriverVersion"));
  char buf[96] = {};  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE is 80
  if (!available() || fn == nullptr || fn(buf, sizeof buf) != 0) return "";
  return buf;
}

NvmlDevice open_nvml_device(const std::string& pci_bus_id) {
  NvmlDevice d;
  d.lib = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (d.lib == nullptr) {
    d.why = "libnvidia-ml.so.1 not found";
    return d;
  }
  auto init = reinterpret_cast<InitFn>(d.symbol("nvmlInit_v2"));
  auto handle = reinterpret_cast<HandleFn>(d.symbol("nvmlDeviceGetHandleByPciBusId_v2"));
  if (init == nullptr || handle == nullptr) {
    d.why = "libnvidia-ml.so.1 lacks nvmlInit_v2 / nvmlDeviceGetHandleByPciBusId_v2";
    return d;
  }
  if (int r = init(); r != 0) {
    d.why = "nvmlInit_v2 failed (" + std::to_string(r) + ")";
    return d;
  }
  void* dev = nullptr;
  if (int r = handle(pci_bus_id.c_str(), &dev); r != 0 || dev == nullptr) {
    d.why = "NVML does not know PCI device " + pci_bus_id + " (" + std::to_string(r) + ")";
    return d;
  }
  d.device = dev;
  return d;
}

}  // namespace dissect
