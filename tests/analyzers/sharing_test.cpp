#include <doctest/doctest.h>

#include "support/analysis.hpp"
#include "support/ref_model.hpp"

using namespace dissect;
using dissect::test::RefCacheConfig;

namespace {
// warm a (thread 0), [measure a], warm b (thread 1), measure a: through one
// shared reference cache or two separate ones.
PointTrace phases_point(bool shared, bool reference_phase, std::uint32_t passes = 1) {
  const auto cfg = RefCacheConfig::uniform(32768, 128, 4);
  test::RefCache ca(cfg), tex(cfg);
  test::RefCache& cb = shared ? ca : tex;
  const std::uint64_t size = 24576, b_base = 1 << 20;
  PointTrace p;
  p.params = {{"kernel", "phases"}, {"arrays", "a:ca:24576:128 b:tex:24576:128"}};
  test::RefNoise noise;
  noise.jitter = 2;
  test::ChaseSpec cs;
  cs.size = size;
  cs.stride = 128;
  cs.warm_passes = 1;
  cs.iterations = 0;
  test::append_chase(p, cs, [&](std::uint64_t off) { return ca.access(off) ? 30.0 : 300.0; }, noise);
  cs.iterations = passes * (size / 128);
  cs.warm_passes = 0;
  std::uint32_t phase = 0;
  if (reference_phase) {
    cs.phase = phase++;
    test::append_chase(p, cs, [&](std::uint64_t off) { return ca.access(off) ? 30.0 : 300.0; }, noise);
  }
  for (std::uint64_t off = 0; off < size; off += 128) cb.access(b_base + off);
  cs.phase = phase;
  test::append_chase(p, cs, [&](std::uint64_t off) { return ca.access(off) ? 30.0 : 300.0; }, noise);
  p.accesses_per_pass = size / 128;
  return p;
}
}  // namespace

TEST_CASE("sharing: a reference phase tells one physical cache from two") {
  TraceSet t;
  t.points = {phases_point(true, true)};
  Finding f = test::analyze(t, "sharing");
  INFO(f.to_json().dump());
  CHECK(f.value == true);
  CHECK(f.confidence > 0.8);
  t.points = {phases_point(false, true)};
  f = test::analyze(t, "sharing");
  CHECK(f.value == false);
}

TEST_CASE("sharing: several passes of one measure phase are their own reference") {
  TraceSet t;
  t.points = {phases_point(true, false, 4)};
  CHECK(test::analyze(t, "sharing").value == true);
  t.points = {phases_point(false, false, 4)};
  CHECK(test::analyze(t, "sharing").value == false);
}

TEST_CASE("sharing: one pass and no reference: undetermined, and it says what is missing") {
  TraceSet t;
  t.points = {phases_point(true, false, 1)};
  const Finding f = test::analyze(t, "sharing");
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("reference") != std::string::npos);
}
