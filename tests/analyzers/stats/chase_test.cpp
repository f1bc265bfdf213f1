#include <doctest/doctest.h>

#include "analyzers/stats/chase.hpp"
#include "support/ref_model.hpp"

using namespace dissect;
using namespace dissect::stats;

TEST_CASE("chase: the period is inferred from offsets on an imported trace") {
  const auto cfg = test::RefCacheConfig::uniform(4096, 64, 4);
  test::ChaseSpec cs;
  cs.size = 6000;
  cs.stride = 8;
  cs.iterations = 3000;
  cs.with_context = false;
  const PointTrace p = test::cache_chase(0, cfg, cs);
  CHECK(p.accesses_per_pass == 0);
  const Chase c = main_chase(p);
  CHECK(c.period == 750);
  CHECK(c.period_inferred);
  // One pass only: the sample count.
  cs.iterations = 500;
  CHECK(main_chase(test::cache_chase(0, cfg, cs)).period == 500);
}

TEST_CASE("chase: a warm-up that did not warm is detected and its pass dropped") {
  const auto cfg = test::RefCacheConfig::uniform(16384, 128, 4);
  test::ChaseSpec cs;
  cs.size = 8192;
  cs.stride = 128;
  cs.iterations = 640;  // 10 passes of 64
  cs.warm_passes = 0;   // cold: the first pass misses everywhere
  const PointTrace p = test::cache_chase(0, cfg, cs);
  std::vector<double> lat;
  for (const auto& s : p.samples) lat.push_back(s.latency);
  const LevelModel m = cluster_levels(lat);
  REQUIRE(m.levels.size() == 2);
  const PassGrid g = make_grid(main_chase(p), m, 0, true);
  CHECK(g.warmup.checked);
  CHECK(g.warmup.failed);
  CHECK(g.warmup.first_pass_miss_rate == doctest::Approx(1));
  CHECK(g.passes() == 9);
  CHECK(g.miss_fraction() == doctest::Approx(0));
  // Without the check the cold pass stays.
  CHECK(make_grid(main_chase(p), m, 0, false).miss_fraction() == doctest::Approx(0.1));
}

TEST_CASE("chase: threads and measure phases are separate chases") {
  PointTrace p;
  for (std::uint32_t t = 0; t < 2; ++t)
    for (std::uint32_t ph = 0; ph < 2; ++ph)
      for (std::uint64_t k = 0; k < 10; ++k) {
        Sample s;
        s.thread = t;
        s.phase = ph;
        s.seq = k;
        s.offset_bytes = (k % 5) * 4;
        s.latency = 30;
        p.samples.push_back(s);
      }
  const auto cs = chases_of(p);
  REQUIRE(cs.size() == 4);
  CHECK(cs[1].thread == 0);
  CHECK(cs[1].phase == 1);
  CHECK(cs[1].samples.size() == 10);
  CHECK(cs[1].period == 5);
}
