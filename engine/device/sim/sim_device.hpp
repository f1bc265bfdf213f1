#pragma once
// The simulated GPU: `--device sim:<profile>`. Runs every point of a spec on
// the memory model of a device profile and returns the trace a GPU would give,
// deterministic for a given profile (seeds included).
#include <map>
#include <memory>
#include <string>

#include "engine/device/device.hpp"
#include "engine/device/sim/memory_system.hpp"
#include "engine/device/sim/sim_profile.hpp"

namespace dissect::sim {

class SimDevice final : public Device {
 public:
  SimDevice(Profile profile, std::string selector);

  [[nodiscard]] nlohmann::json describe() const override;
  [[nodiscard]] std::string selector() const override { return selector_; }
  [[nodiscard]] std::uint64_t memory_bytes() const override { return profile_->memory_bytes; }
  // Runs the points. A fault injected for tests (engine/device/fault_injection.hpp) throws
  // DeviceFault (not recovered), after which every run fails at once.
  RunTimings run(const RunRequest& request, RunSink& sink) override;

  // One point, outside a run (tests, benchmarks). Throws RunError.
  PointTrace run_point(const Point& point, double* cycles = nullptr);
  [[nodiscard]] const Profile& profile() const { return *profile_; }
  // The memory system used for a carveout (tests inspect cache contents).
  MemorySystem& memory(int carveout);

 private:
  std::unique_ptr<Profile> profile_;  // stable address: memory systems refer to it
  std::string selector_;
  std::map<int, std::unique_ptr<MemorySystem>> memory_;
  // Set by an injected fault (DISSECT_TEST_INJECT_FAULT): the device runs nothing more, as
  // a CUDA device whose context could not be recreated.
  std::string lost_;
};

// "sim:<name or path>" -> device; throws RunError (unknown profile, listing
// the available ones) or SpecError (invalid profile).
std::unique_ptr<SimDevice> open_sim_device(const std::string& selector);

}  // namespace dissect::sim

namespace dissect {
// Registered in engine/device/device_registry.cpp.
DeviceFactory sim_device_factory();
}  // namespace dissect
