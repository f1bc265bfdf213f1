#include <doctest/doctest.h>

#include <set>

#include "analyzers/stats/staircase.hpp"
#include "support/ref_model.hpp"

using namespace dissect;
using namespace dissect::stats;

namespace {
// Missing units of an LRU chase at N = C + k*b by direct simulation.
std::vector<StairPoint> stages(const test::RefCacheConfig& cfg, std::uint64_t from_k, std::uint64_t to_k, int flip = 0) {
  std::vector<StairPoint> out;
  const std::uint64_t C = cfg.capacity(), b = cfg.line;
  for (std::uint64_t k = from_k; k <= to_k; ++k) {
    const std::uint64_t n = C + k * b;
    const std::uint64_t units = n / b;
    test::RefCache cache(cfg);
    for (std::uint64_t u = 0; u < units; ++u) cache.access(u * b);  // warm
    std::set<std::uint64_t> miss;
    for (int pass = 0; pass < 3; ++pass)
      for (std::uint64_t u = 0; u < units; ++u)
        if (!cache.access(u * b)) miss.insert(u);
    StairPoint p;
    p.size_bytes = n;
    p.units = units;
    p.missing.assign(miss.begin(), miss.end());
    // Noise: flip a unit in some points (a stray miss, a lost miss).
    if (flip && k % 5 == 2) p.missing.push_back(units - 1 == 0 ? 0 : (k * 7) % units);
    out.push_back(p);
  }
  return out;
}
}  // namespace

TEST_CASE("staircase: modulo mapping, 32 sets x 4 ways") {
  const auto cfg = test::RefCacheConfig::uniform(16384, 128, 4);
  const auto st = stage_staircase(stages(cfg, 0, 40), 128);
  REQUIRE(st.ok);
  CHECK(st.capacity_bytes == 16384);
  CHECK(st.sets == 32);
  CHECK(st.complete);
  CHECK(st.lines_per_block == 1);
  CHECK(st.bit_defined);
  CHECK(st.set_sizes == std::vector<std::size_t>(32, 4));
}

TEST_CASE("staircase: blocked mapping (texture L1), non-power-of-two sets, hashed, with noise") {
  auto tex = test::RefCacheConfig::uniform(12288, 32, 96);
  tex.map = test::RefCacheConfig::Map::blocked;
  tex.block = 4;
  auto st = stage_staircase(stages(tex, 0, 20), 32);
  REQUIRE(st.ok);
  CHECK(st.sets == 4);
  CHECK(st.lines_per_block == 4);
  CHECK(st.bit_defined);

  const auto odd = test::RefCacheConfig::uniform(48 * 3 * 64, 64, 3);  // 48 sets x 3 ways
  st = stage_staircase(stages(odd, 0, 60, 1), 64);
  REQUIRE(st.ok);
  CHECK(st.sets == 48);
  CHECK(st.set_sizes == std::vector<std::size_t>(48, 3));
  CHECK(st.bit_defined);

  auto hashed = test::RefCacheConfig::uniform(8 * 4 * 128, 128, 4);
  hashed.map = test::RefCacheConfig::Map::table;
  hashed.table = {3, 6, 1, 0, 7, 2, 5, 4, 0, 5, 7, 1, 4, 6, 2, 3, 5, 1, 0, 7, 3, 4, 6, 2, 7, 2, 4, 6, 1, 3, 0, 5};
  st = stage_staircase(stages(hashed, 0, 12), 128);
  REQUIRE(st.ok);
  CHECK(st.sets == 8);
  CHECK_FALSE(st.bit_defined);
}

TEST_CASE("staircase: unequal sets (L2 TLB: one of 17, six of 8)") {
  test::RefCacheConfig tlb;
  tlb.line = 2 << 20;
  tlb.set_ways = {17, 8, 8, 8, 8, 8, 8};
  tlb.map = test::RefCacheConfig::Map::table;
  // Pages 0..64 fill the sets exactly; page 65 overflows the big set, then one small set per page.
  for (int i = 0; i < 8; ++i)
    for (std::uint32_t s = 0; s < 7; ++s) tlb.table.push_back(s);
  for (int i = 0; i < 9; ++i) tlb.table.push_back(0);
  for (std::uint32_t s = 0; s < 7; ++s) tlb.table.push_back(s);
  const auto st = stage_staircase(stages(tlb, 0, 8), 2 << 20);
  REQUIRE(st.ok);
  CHECK(st.capacity_bytes == 65ull * (2 << 20));
  CHECK(st.sets == 7);
  CHECK(st.set_sizes == std::vector<std::size_t>{17, 8, 8, 8, 8, 8, 8});
  CHECK(st.complete);
}

TEST_CASE("staircase: a sweep that stops early, or starts above C, says so") {
  const auto cfg = test::RefCacheConfig::uniform(16384, 128, 4);
  auto st = stage_staircase(stages(cfg, 0, 10), 128);
  REQUIRE(st.ok);
  CHECK_FALSE(st.complete);
  CHECK(st.sets == 10);
  st = stage_staircase(stages(cfg, 3, 12), 128);
  CHECK_FALSE(st.ok);
  CHECK(st.reason.find("already misses") != std::string::npos);
}
