#pragma once
// Helpers for the simulated-GPU tests: library profiles (optionally without
// noise), specs from text, one point run on a SimDevice.
#include <string>
#include <vector>

#include "engine/device/sim/sim_device.hpp"
#include "engine/spec/spec.hpp"

namespace dissect::test {

inline sim::Profile library_profile(const std::string& name, bool noise = false) {
  sim::Profile p = sim::load_profile_file(std::string(DISSECT_SOURCE_DIR) + "/specs/devices/" + name + ".yaml");
  if (!noise) p.noise = sim::NoiseSpec{};
  return p;
}

inline sim::SimDevice sim_device(const std::string& name, bool noise = false) {
  return sim::SimDevice(library_profile(name, noise), "sim:" + name);
}

inline std::vector<Point> spec_points(const std::string& text) {
  return load_spec_text(text, "test.yaml").expand();
}

// Runs the first (or `index`th) point of a spec text.
inline PointTrace run_spec_point(sim::SimDevice& dev, const std::string& text, std::size_t index = 0) {
  const auto points = spec_points(text);
  return dev.run_point(points.at(index));
}

// Latency of the timed access to `offset` in the first timed pass of thread 0.
inline double latency_at(const PointTrace& t, std::uint64_t offset) {
  for (const auto& s : t.samples)
    if (s.thread == 0 && s.offset_bytes == offset) return s.latency;
  return -1;
}

}  // namespace dissect::test
