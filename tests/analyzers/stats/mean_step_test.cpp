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

namespace {

// Points N = round(2^(j/2)) slots over `levels` (slots, penalty): every access past a
// level's slots pays its penalty (LRU, an entry per slot), penalties adding up; a
// wobble of +-`wobble` cycles from point to point on every plateau, a standard error
// of a cycle.
std::vector<MeanPoint> staircase(const std::vector<std::pair<double, double>>& levels, double wobble) {
  std::vector<MeanPoint> v;
  for (int j = 2; j <= 26; ++j) {
    MeanPoint p;
    const double n = std::round(std::ldexp(1.0, j / 2) * (j % 2 ? std::sqrt(2.0) : 1.0));
    p.size_bytes = static_cast<std::uint64_t>(n) << 25;
    p.mean = 300 + (j % 2 ? wobble : -wobble);
    for (const auto& [slots, penalty] : levels) p.mean += n > slots ? penalty : 0;
    p.se = 1.0;
    p.units = static_cast<std::size_t>(n);
    v.push_back(p);
  }
  return v;
}

}  // namespace

TEST_CASE("mean_steps: three levels whose penalties add up, each over a plateau of its own") {
  // +9 past 16 slots, +95 past 2048, +650 past 4096: the last two a grid step apart.
  const auto pts = staircase({{16, 9}, {2048, 95}, {4096, 650}}, 1.0);
  const auto steps = mean_steps(pts, 2);
  REQUIRE(steps.size() == 3);
  const std::vector<std::uint64_t> clean{16, 2048, 4096};
  const std::vector<double> rise{9, 95, 650};
  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    CHECK((pts[steps[i].clean].size_bytes >> 25) == clean[i]);
    CHECK(steps[i].rise() == doctest::Approx(rise[i]).epsilon(0.3));
  }
  // mean_step alone finds no step (the points past the first climb twice).
  CHECK_FALSE(mean_step(pts, 2).found);
}

TEST_CASE("mean_steps: a gradual rise is one step, not a staircase of small ones") {
  const auto pts = curve(290, 9, gradual, 0.3, 0.5);
  const auto steps = mean_steps(pts, 2);
  REQUIRE(steps.size() == 1);
  CHECK(pts[steps[0].clean].size_bytes == 256ull << 20);
  // A later step over a plateau must add a quarter of the last rise: +6 past +40 is
  // within what a plateau drifts, and stays part of it.
  const auto drift = staircase({{16, 40}, {1024, 6}}, 1.0);
  CHECK(mean_steps(drift, 2).size() == 1);
  // A later climb larger than the plateau's own rise is a second step; one smaller
  // than it (+30 past +40) is read with the first (deeper levels cost more: the rule
  // that tells a second level from a gradual rise).
  CHECK(mean_steps(staircase({{16, 40}, {1024, 60}}, 1.0), 2).size() == 2);
  CHECK(mean_steps(staircase({{16, 40}, {1024, 30}}, 1.0), 2).size() == 1);
}
