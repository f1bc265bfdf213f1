#pragma once
// Measurement noise of the simulated GPU: per-access jitter (uniform or
// normal) and rare outliers, from a seeded generator. Deterministic: the same
// stream id gives the same noise.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "engine/device/sim/cache_model.hpp"
#include "engine/device/sim/sim_profile.hpp"

namespace dissect::sim {

class Noise {
 public:
  Noise(const NoiseSpec& spec, std::uint64_t stream)
      : spec_(spec),
        enabled_(spec.enabled()),
        state_(mix64(spec.seed ^ mix64(stream))),
        outlier_threshold_(spec.outlier_cycles == 0 ? 0
                                                    : static_cast<std::uint64_t>(std::min(1.0, spec.outlier_rate) *
                                                                                 4294967296.0)) {}

  [[nodiscard]] bool enabled() const { return enabled_; }

  // Cycles to add to one access. One 64-bit draw serves both the jitter (low
  // 32 bits) and the outlier test (high 32 bits) for the uniform distribution.
  [[gnu::always_inline]] double sample() {
    if (!enabled_) return 0.0;
    double v = 0;
    const std::uint64_t r = next();
    switch (spec_.distribution) {
      case NoiseSpec::Distribution::none: break;
      case NoiseSpec::Distribution::uniform:
        v = (static_cast<double>(r & 0xffffffffull) * (2.0 / 4294967296.0) - 1.0) * spec_.jitter;
        break;
      case NoiseSpec::Distribution::normal: {
        // Box-Muller.
        const double u1 = std::max(uniform(), 1e-300), u2 = uniform();
        v = spec_.jitter * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
        break;
      }
    }
    if ((r >> 32) < outlier_threshold_) v += spec_.outlier_cycles;
    return v;
  }

  // Uniform in [0, 1).
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

 private:
  std::uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  NoiseSpec spec_;
  bool enabled_;
  std::uint64_t state_;
  std::uint64_t outlier_threshold_;  // outlier when the draw's high 32 bits are below it
};

}  // namespace dissect::sim
