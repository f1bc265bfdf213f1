#include <doctest/doctest.h>

#include <random>

#include "support/analysis.hpp"

using namespace dissect;

namespace {
// Thread 0 measures its array after the test thread (warp w) warmed its own:
// misses when warp w uses the same cache as warp 0 (w mod caches == 0).
TraceSet sweep(std::uint32_t caches, bool reference) {
  TraceSet t;
  std::mt19937_64 rng(4);
  std::normal_distribution<double> jitter(0, 2);
  for (std::uint32_t thread = 32; thread <= 992; thread += 32) {
    PointTrace p;
    p.point_id = t.points.size();
    p.params = {{"kernel", "phases"}, {"threads", "1024"}, {"axes", "phases.1.thread=" + std::to_string(thread)}};
    const bool same = (thread / 32) % caches == 0;
    for (std::uint32_t phase = 0; phase < (reference ? 2u : 1u); ++phase) {
      const bool disturbed = same && (!reference || phase == 1);
      for (std::uint64_t k = 0; k < 512; ++k) {
        Sample s;
        s.thread = 0;
        s.phase = phase;
        s.seq = k;
        s.offset_bytes = k * 32;
        s.latency = (disturbed ? 220.0 : 110.0) + jitter(rng);
        p.samples.push_back(s);
      }
    }
    t.points.push_back(p);
  }
  return t;
}
}  // namespace

TEST_CASE("amount: caches per SM from the warps that disturb warp 0") {
  for (std::uint32_t c : {2u, 4u}) {
    const Finding f = test::analyze(sweep(c, false), "amount");
    INFO(f.to_json().dump());
    CHECK(f.value == c);
    CHECK(f.confidence > 0.9);
  }
  // One cache: every warp disturbs; only a reference phase shows it.
  Finding f = test::analyze(sweep(1, true), "amount");
  CHECK(f.value == 1);
  f = test::analyze(sweep(1, false), "amount");
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("reference") != std::string::npos);
}
