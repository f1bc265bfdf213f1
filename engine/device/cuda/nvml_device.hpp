#pragma once
// NVML (libnvidia-ml.so.1) for one GPU, opened at run time and optional: without
// it (no driver, a container without the library, an unknown PCI id) what NVML would
// tell is unknown, and nothing fails. The readers of clocks (nvml_clock.hpp) and of
// processes (nvml_processes.hpp) share one handle.
#include <string>

namespace dissect {

struct NvmlDevice {
  void* lib = nullptr;     // the library (kept open for the process, like libcuda)
  void* device = nullptr;  // nvmlDevice_t; null when unavailable
  std::string why;         // why unavailable

  [[nodiscard]] bool available() const { return device != nullptr; }
  // An entry point of the library, or null.
  [[nodiscard]] void* symbol(const char* name) const;
  // The driver's release ("580.65.06", nvmlSystemGetDriverVersion); "" when unknown.
  [[nodiscard]] std::string driver_release() const;
};

// `pci_bus_id` as cuDeviceGetPCIBusId writes it ("0000:01:00.0").
NvmlDevice open_nvml_device(const std::string& pci_bus_id);

}  // namespace dissect
