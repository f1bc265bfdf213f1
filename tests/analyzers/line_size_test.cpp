#include <doctest/doctest.h>

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
