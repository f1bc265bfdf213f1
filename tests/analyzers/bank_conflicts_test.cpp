#include <doctest/doctest.h>

#include <map>
#include <random>
#include <set>

#include "support/analysis.hpp"

using namespace dissect;

namespace {
// Ground truth: lane t reads the word at t * stride; a bank serves one distinct word per access.
int degree(std::uint64_t stride, std::uint32_t banks, std::uint64_t width) {
  std::map<std::uint64_t, std::set<std::uint64_t>> w;
  for (std::uint64_t t = 0; t < 32; ++t) w[(t * stride / width) % banks].insert(t * stride / width);
  std::size_t d = 1;
  for (const auto& [b, s] : w) d = std::max(d, s.size());
  return static_cast<int>(d);
}

TraceSet sweep(std::uint32_t banks, std::uint64_t width, std::uint64_t elem, double base, double per) {
  TraceSet t;
  std::mt19937_64 rng(9);
  std::normal_distribution<double> n(0, 0.5);
  for (std::uint64_t k = 0; k <= 64; ++k) {
    PointTrace p;
    p.point_id = k;
    p.params = {{"kernel", "shared_stride"}, {"size_bytes", "65536"}, {"stride_bytes", std::to_string(k * elem)},
                {"element", elem == 4 ? "u32" : "u64"}, {"threads", "32"}};
    const double lat = base + per * (degree(k * elem, banks, width) - 1);
    for (std::uint32_t lane = 0; lane < 32; ++lane) {
      Sample s;
      s.thread = lane;
      s.latency = lat + n(rng);
      p.samples.push_back(s);
    }
    t.points.push_back(p);
  }
  return t;
}
}  // namespace

TEST_CASE("bank_conflicts: Fermi (32 x 4 B) and Kepler's 8-byte mode (32 x 8 B)") {
  Finding f = test::analyze(sweep(32, 4, 4, 50, 38), "bank_conflicts");
  INFO(f.to_json().dump());
  CHECK(f.value == 32);
  CHECK(f.details["bank_width_bytes"] == 4);
  CHECK(f.details["cycles_per_conflict"].get<double>() == doctest::Approx(38).epsilon(0.02));
  for (const auto& s : f.details["per_stride"])
    CHECK(s["degree"] == degree(s["stride_bytes"].get<std::uint64_t>(), 32, 4));

  f = test::analyze(sweep(32, 8, 4, 40, 30), "bank_conflicts");
  INFO(f.to_json().dump());
  CHECK(f.value == 32);
  CHECK(f.details["bank_width_bytes"] == 8);

  f = test::analyze(sweep(16, 4, 4, 40, 30), "bank_conflicts");
  CHECK(f.value == 16);
  CHECK(f.details["bank_width_bytes"] == 4);
}

TEST_CASE("bank_conflicts: no shared_stride points") {
  const Finding f = test::analyze(TraceSet{}, "bank_conflicts");
  CHECK(f.value.is_null());
  CHECK_FALSE(test::reason(f).empty());
}
