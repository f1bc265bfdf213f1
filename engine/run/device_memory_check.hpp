#pragma once
// Arrays that do not fit the device are refused before anything runs: on a GPU
// the allocation would fail mid-run, on the simulated GPU a petabyte array would
// be modelled access by access for hours.
#include <cstdint>
#include <span>

#include "engine/device/device.hpp"
#include "engine/spec/spec.hpp"

namespace dissect {

// Bytes of device memory a point's arrays take (its array, and the phases
// kernel's named arrays).
std::uint64_t point_array_bytes(const Experiment& e);

// Throws SpecError at the spec line that sets the size (the sweep value of the
// first point at fault, else array.size or the arrays: entry) when a point's
// arrays exceed the device's memory. Does nothing for a device that does not
// know its memory (Device::memory_bytes() == 0).
void check_points_fit_device(const Spec& spec, std::span<const Point> points, const Device& device);

}  // namespace dissect
