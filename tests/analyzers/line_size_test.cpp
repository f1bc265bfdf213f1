#include <doctest/doctest.h>

#include <functional>

#include "support/analysis.hpp"
#include "support/ref_model.hpp"

using namespace dissect;
using dissect::test::RefCacheConfig;

namespace {
void add(TraceSet& t, const RefCacheConfig& cfg, std::uint64_t n, std::uint64_t stride, bool context = true) {
  test::ChaseSpec cs;
  cs.size = n;
  cs.stride = stride;
  cs.iterations = std::max<std::uint64_t>(4096, 4 * n / stride);
  cs.with_context = context;
  test::RefNoise noise;
  noise.jitter = 2;
  noise.outlier_rate = 0.003;
  noise.seed = n + stride;
  t.points.push_back(test::cache_chase(t.points.size(), cfg, cs, {}, noise));
}
// A cold chase (no warm-up, s = 4 B) of `loads` samples over `size` bytes; the
// latency of load i from latency(i, draw), draw(m) a fixed pseudo-random 0..m-1.
TraceSet cold_chase(std::uint64_t size, std::uint64_t loads, std::uint64_t seed,
                    const std::function<double(std::uint64_t, const std::function<double(std::uint64_t)>&)>& latency) {
  PointTrace p;
  p.point_id = 0;
  p.params = {{"size_bytes", std::to_string(size)}, {"stride_bytes", "4"}, {"kernel", "pchase"}};
  p.accesses_per_pass = size / 4;
  std::uint64_t state = seed;
  const std::function<double(std::uint64_t)> draw = [&state](std::uint64_t m) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>((state >> 33) % m);
  };
  for (std::uint64_t i = 0; i < loads; ++i) p.samples.push_back({0, i, 4 * i, latency(i, draw), 3, 0});
  TraceSet t;
  t.points.push_back(std::move(p));
  return t;
}
}  // namespace

TEST_CASE("line_size: 128 B lines from a 4 B chase above C") {
  const auto cfg = RefCacheConfig::uniform(16384, 128, 4);
  TraceSet t;
  add(t, cfg, 32768, 4);
  add(t, cfg, 16384 + 4, 4);
  const Finding f = test::analyze(t, "line_size");
  INFO(f.to_json().dump());
  CHECK(f.value == 128);
  CHECK(f.details["fetch_bytes"] == 128);
  CHECK(f.confidence > 0.9);
}

TEST_CASE("line_size: dense misses only (thesis style): the spacing, sector unknown") {
  const auto cfg = RefCacheConfig::uniform(16384, 64, 4);
  TraceSet t;
  add(t, cfg, 65536, 8, false);
  const Finding f = test::analyze(t, "line_size");
  CHECK(f.value == 64);
  CHECK(f.details["fetch_bytes"].is_null());
}

TEST_CASE("line_size: 128 B lines of 32 B sectors, told from blocked 32 B lines by a 128 B-stride chase") {
  auto sect = RefCacheConfig::uniform(16384, 128, 4);
  sect.sector = 32;
  TraceSet t;
  add(t, sect, 32768, 4);
  add(t, sect, 16384 + 4, 4);
  add(t, sect, 16384, 4);
  add(t, sect, 32768, 128);  // C < N <= 4C at one access per 128 B
  Finding f = test::analyze(t, "line_size");
  INFO(f.to_json().dump());
  CHECK(f.value == 128);
  CHECK(f.details["fetch_bytes"] == 32);

  auto tex = RefCacheConfig::uniform(12288, 32, 96);
  tex.map = RefCacheConfig::Map::blocked;
  tex.block = 4;
  TraceSet u;
  add(u, tex, 24576, 4);
  add(u, tex, 12288 + 4, 4);
  add(u, tex, 12288, 4);
  add(u, tex, 24576, 128);
  f = test::analyze(u, "line_size");
  INFO(f.to_json().dump());
  CHECK(f.value == 32);
  CHECK(f.details["lines_per_block"] == 4);

  // Without the deciding chase: the miss spacing, the other reading reported, less confident.
  TraceSet v;
  add(v, sect, 32768, 4);
  add(v, sect, 16384 + 4, 4);
  f = test::analyze(v, "line_size");
  CHECK(f.value == 32);
  CHECK(f.details["alternative"]["line_bytes"] == 128);
  CHECK(f.confidence <= 0.5);
}

TEST_CASE("line_size: nothing misses: undetermined with a reason") {
  const auto cfg = RefCacheConfig::uniform(16384, 128, 4);
  TraceSet t;
  add(t, cfg, 8192, 4);
  const Finding f = test::analyze(t, "line_size");
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("above the cache size") != std::string::npos);
}

TEST_CASE("line_size: a cold chase whose few misses spread over the L2's near and far latencies (H100)") {
  // 4 KiB, s = 4 B, no warm-up, 256 loads: every 8th load (32 B) misses to
  // an L2 hit, 281-312 cycles and a few slower; the 224 hits take 49-50. Too
  // few and too scattered misses for a level of their own: they are still
  // misses, every 32 B.
  const TraceSet t = cold_chase(4096, 256, 7, [](std::uint64_t i, const auto& draw) {
    if (i % 8 != 0) return 49.0 + draw(2);
    return i % 64 == 0 ? 380.0 + draw(120) : 281.0 + draw(32);
  });
  const Finding f = test::analyze(t, "line_size");
  INFO(f.to_json().dump());
  CHECK(f.details["fetch_bytes"] == 32);
}

TEST_CASE("line_size: a cold L2 chase: near and far hits are two levels, the scattered DRAM misses still count") {
  // 64 KiB, s = 4 B, no warm-up, 512 loads with ld.global.cg on the H100: every
  // 16th load (64 B) misses to DRAM, 430-700 cycles; the hits split into the
  // near (~280) and far (~301) L2 partitions, two levels within 1.25 x each other.
  const TraceSet t = cold_chase(65536, 512, 11, [](std::uint64_t i, const auto& draw) {
    if (i % 16 == 0) return 430.0 + draw(270);
    return (i / 16) % 2 == 0 ? 276.0 + draw(9) : 291.0 + draw(20);
  });
  const Finding f = test::analyze(t, "line_size");
  INFO(f.to_json().dump());
  CHECK(f.details["fetch_bytes"] == 64);
}
