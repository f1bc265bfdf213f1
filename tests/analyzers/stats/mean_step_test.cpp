#include "analyzers/stats/mean_step.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <vector>

using namespace dissect::stats;

namespace {

// Points N = 2^k MiB, k = 4..14; mean = base + penalty x share(N), standard
// error `se`, and a wobble of +-`wobble` alternating from point to point.
std::vector<MeanPoint> curve(double base, double penalty, double (*share)(double), double se = 0.3,
                             double wobble = 0) {
  std::vector<MeanPoint> v;
  for (int k = 4; k <= 14; ++k) {
    const double n = std::ldexp(1.0, k);
    MeanPoint p;
    p.size_bytes = static_cast<std::uint64_t>(n) << 20;
    p.mean = base + penalty * share(n) + (k % 2 == 0 ? wobble : -wobble);
    p.se = se;
    p.units = 1000;
    v.push_back(p);
  }
  return v;
}

// A random order over slots that share entries of a 256 MiB coverage: 1 - C/N past it.
double gradual(double n) { return n <= 256 ? 0.0 : 1.0 - 256.0 / n; }
// Slots with entries of their own, LRU: every access misses past the coverage.
double sharp(double n) { return n <= 256 ? 0.0 : 1.0; }

}  // namespace

TEST_CASE("mean_step: a gradual rise past the coverage: the knee where it begins, the plateau it reaches") {
  const auto pts = curve(290, 9, gradual);
  const MeanStep s = mean_step(pts, 2);
  REQUIRE(s.found);
  CHECK(pts[s.clean].size_bytes == 256ull << 20);
  CHECK(pts[s.first].size_bytes == 512ull << 20);
  CHECK(s.rise() == doctest::Approx(9).epsilon(0.1));
  CHECK(s.share_at_first == doctest::Approx(0.5).epsilon(0.15));
}

TEST_CASE("mean_step: a sharp step: every access misses at the first point past it") {
  const MeanStep s = mean_step(curve(290, 9, sharp), 2);
  REQUIRE(s.found);
  CHECK(s.share_at_first == doctest::Approx(1.0).epsilon(0.05));
}

TEST_CASE("mean_step: no step in noise, a step below min_rise, a wobble that falls back") {
  CHECK_FALSE(mean_step(curve(290, 0, sharp, 0.3, 0.2), 2).found);
  const MeanStep small = mean_step(curve(290, 1.5, sharp), 2);
  CHECK_FALSE(small.found);
  CHECK(small.reason.find("rise by only") != std::string::npos);
  // One point raised, the rest back at the base.
  auto pts = curve(290, 0, sharp);
  pts[5].mean += 10;
  const MeanStep blip = mean_step(pts, 2);
  CHECK_FALSE(blip.found);
  CHECK(blip.reason.find("fall back") != std::string::npos);
}

TEST_CASE("mean_step: a rise still climbing at the end of the sweep has no plateau to read") {
  // Two levels: the second starts where the first would level off.
  const auto two = [](double n) { return n <= 256 ? 0.0 : n <= 1024 ? 1.0 : n / 1024.0; };
  const MeanStep s = mean_step(curve(290, 9, two), 2);
  CHECK_FALSE(s.found);
  CHECK(s.reason.find("does not level off") != std::string::npos);
}
