#pragma once
// A test hook: DISSECT_TEST_INJECT_FAULT=<spec>:<point id> makes the device fault at that
// point of that spec (<spec>: the spec's name, or its file name without .yaml), as an
// out-of-bounds chase or a trap would. The CUDA device launches a trapping kernel in its
// context (a real kernel fault, met by the driver call that follows); the simulator throws
// the DeviceFault a CUDA device throws when its context cannot be recreated, and refuses to
// run anything after it, so that the CPU tests can follow a batch through its re-execution
// (docs/bundles.md, "Kernel faults"). Read once per process; not for measurements.
#include <cstdint>
#include <optional>
#include <string>

#include "engine/device/device.hpp"

namespace dissect {

struct InjectedFault {
  std::string spec;
  std::uint64_t point = 0;
};

// The fault DISSECT_TEST_INJECT_FAULT asks for (read on the first call), or nullopt.
const std::optional<InjectedFault>& injected_fault();

// Whether the injected fault is meant for `point` of the request's spec.
[[nodiscard]] bool fault_injected_at(const RunRequest& request, const Point& point);

// "spec <path>, point #<id> (<axis>=<value>, ...)": where a fault happened, as the CUDA
// device names it.
[[nodiscard]] std::string fault_location(const RunRequest& request, const Point& point);

}  // namespace dissect
