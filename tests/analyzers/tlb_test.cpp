#include <doctest/doctest.h>

#include <algorithm>

#include "support/analysis.hpp"
#include "support/ref_model.hpp"

using namespace dissect;
using dissect::test::RefCacheConfig;

namespace {
constexpr std::uint64_t kPage = 2ull << 20;

// Fermi/Kepler TLBs (seed 003 Sec. 4.2): L1 16 entries fully associative, L2
// 65 entries in one set of 17 and six of 8.
test::RefTlb fermi_tlb(double l1_penalty, double l2_penalty) {
  test::RefTlb t;
  RefCacheConfig l1;
  l1.line = kPage;
  l1.set_ways = {16};
  RefCacheConfig l2;
  l2.line = kPage;
  l2.set_ways = {17, 8, 8, 8, 8, 8, 8};
  l2.map = RefCacheConfig::Map::table;
  for (int i = 0; i < 8; ++i)
    for (std::uint32_t s = 0; s < 7; ++s) l2.table.push_back(s);
  for (int i = 0; i < 9; ++i) l2.table.push_back(0);
  for (int i = 0; i < 9; ++i)
    for (std::uint32_t s = 0; s < 7; ++s) l2.table.push_back(s);
  t.levels = {l1, l2};
  t.penalty = {l1_penalty, l2_penalty};
  t.base = 371;
  return t;
}

TraceSet page_sweep(const test::RefTlb& tlb, std::uint64_t from_pages, std::uint64_t to_pages, bool context) {
  TraceSet t;
  for (std::uint64_t e = from_pages; e <= to_pages; ++e) {
    test::ChaseSpec cs;
    cs.size = e * kPage;
    cs.stride = kPage;
    cs.iterations = 2048;
    cs.with_context = context;
    test::RefNoise noise;
    noise.jitter = 3;
    noise.outlier_rate = 0.002;
    noise.seed = e;
    t.points.push_back(test::tlb_chase(t.points.size(), tlb, cs, noise));
  }
  return t;
}
}  // namespace

TEST_CASE("tlb: two levels, entries, coverage, penalties, unequal L2 sets") {
  for (double l1_penalty : {27.0, 6.0}) {  // Fermi, Kepler (a 6-cycle penalty under 3 cycles of jitter)
    const Finding f = test::analyze(page_sweep(fermi_tlb(l1_penalty, 84), 1, 80, l1_penalty > 10), "tlb");
    INFO(f.to_json().dump());
    REQUIRE(f.value == 2);
    const auto& l1 = f.details["levels"][0];
    const auto& l2 = f.details["levels"][1];
    CHECK(l1["entries"] == 16);
    CHECK(l1["coverage_bytes"] == 16 * kPage);
    CHECK(l1["sets"] == 1);
    CHECK(l1["miss_penalty_cycles"].get<double>() == doctest::Approx(l1_penalty).epsilon(0.15));
    CHECK(l2["entries"] == 65);
    CHECK(l2["coverage_bytes"] == 65 * kPage);
    CHECK(l2["sets"] == 7);
    auto sizes = l2["set_sizes"].get<std::vector<int>>();
    std::sort(sizes.begin(), sizes.end());
    CHECK(sizes == std::vector<int>{8, 8, 8, 8, 8, 8, 17});
    CHECK(l2["miss_penalty_cycles"].get<double>() == doctest::Approx(84).epsilon(0.1));
  }
}

TEST_CASE("tlb: a sweep that stays inside the first level finds no TLB level, and says so") {
  const Finding f = test::analyze(page_sweep(fermi_tlb(27, 84), 1, 12, true), "tlb");
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("every page hits") != std::string::npos);
}

namespace {
// A GPU whose TLB holds every page of the sweep (H200: no TLB miss up to 1 GiB
// with s = 2 MiB), seen through an L2 of two partitions: a page homed in the
// near partition hits at about 277 cycles, one in the far partition about 30
// cycles later. Which pages are far depends on where each point's array lands
// (a fresh allocation per point): the slow pages change from point to point, and
// their share grows from none at one page to about half (the H200 topology run
// read this as "1 TLB level: 128 entries, +31 cycles, 58 sets").
TraceSet near_far_sweep(std::uint64_t to_pages, bool placement_per_point) {
  TraceSet t;
  for (std::uint64_t e = 1; e <= to_pages; ++e) {
    test::ChaseSpec cs;
    cs.size = e * kPage;
    cs.stride = kPage;
    cs.iterations = 1024;
    test::RefNoise noise;
    noise.jitter = 3;
    noise.outlier_rate = 0.001;
    noise.seed = e;
    PointTrace p = test::make_point(t.points.size(), cs);
    const std::uint64_t salt = placement_per_point ? e * 0x9e3779b97f4a7c15ull : 0;
    test::append_chase(p, cs, [&](std::uint64_t off) {
      std::uint64_t h = (off / kPage + 1) * 0xbf58476d1ce4e5b9ull ^ salt;
      h ^= h >> 31;
      h *= 0x94d049bb133111ebull;
      h ^= h >> 29;
      const bool far = off != 0 && (h & 1);  // the first page near: no slow page at N = 1 page
      return 292.0 + (far ? 15.0 : -15.0);
    }, noise);
    t.points.push_back(std::move(p));
  }
  return t;
}
}  // namespace

TEST_CASE("tlb: L2 near/far alternation without a TLB step gives no TLB level") {
  for (bool per_point : {true, false}) {
    CAPTURE(per_point);
    const Finding f = test::analyze(near_far_sweep(256, per_point), "tlb");
    INFO(f.to_json().dump().substr(0, 4000));
    CHECK(f.value.is_null());
    CHECK(!f.details.contains("levels"));
    CHECK(test::reason(f).find("no TLB miss seen up to N = 512 MiB (256 pages of 2 MiB)") != std::string::npos);
    CHECK(test::reason(f).find("reach exceeds the sweep") != std::string::npos);
    // The far pages are a latency level, but not a staircase: rejected, and said so.
    if (per_point) CHECK(test::reason(f).find("not a staircase") != std::string::npos);
  }
}

TEST_CASE("tlb: a few pages turning slow for good past some N is no TLB level") {
  // The far-partition pages are fixed (half of them), and past 128 pages one page
  // in 32 turns slow and stays slow: the share of slow pages hardly grows. A TLB
  // out of entries would make most pages miss by 2x its reach.
  TraceSet t;
  for (std::uint64_t e = 1; e <= 384; ++e) {
    test::ChaseSpec cs;
    cs.size = e * kPage;
    cs.stride = kPage;
    cs.iterations = 1024;
    test::RefNoise noise;
    noise.jitter = 2;
    noise.seed = e;
    PointTrace p = test::make_point(t.points.size(), cs);
    test::append_chase(p, cs, [&](std::uint64_t off) {
      const std::uint64_t page = off / kPage;
      std::uint64_t h = (page + 1) * 0xbf58476d1ce4e5b9ull;
      h ^= h >> 31;
      const bool far = page != 0 && (h & 1);
      const bool turned = e > 128 && page % 32 == 5;
      return (far || turned) ? 307.0 : 277.0;
    }, noise);
    t.points.push_back(std::move(p));
  }
  const Finding f = test::analyze(t, "tlb");
  INFO(f.to_json().dump().substr(0, 3000));
  CHECK(f.value.is_null());
  CHECK(!f.details.contains("levels"));
}
