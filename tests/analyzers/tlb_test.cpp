#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "engine/bundle/bundle.hpp"
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

namespace {

// A chase over `pages` pages `stride` apart through TLB levels whose penalties
// add up (an access missing level k pays every level's penalty up to k), each
// page served by the data path at its own latency: 30 cycles more for pages
// homed in the far L2 partition (a fixed placement: the same page is near or
// far at every N).
PointTrace additive_point(std::size_t id, const std::vector<RefCacheConfig>& levels,
                          const std::vector<double>& penalty, std::uint64_t pages, std::uint64_t stride,
                          std::uint64_t iterations, std::uint64_t seed) {
  test::ChaseSpec cs;
  cs.size = pages * stride;
  cs.stride = stride;
  cs.iterations = iterations;
  test::RefNoise noise;
  noise.jitter = 2;
  noise.outlier_rate = 0.001;
  noise.seed = seed;
  PointTrace p = test::make_point(id, cs);
  std::vector<test::RefCache> caches;
  for (const auto& c : levels) caches.emplace_back(c);
  test::append_chase(p, cs, [&](std::uint64_t off) {
    std::uint64_t h = (off / kPage + 1) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
    double v = 280 + ((h & 1) ? 30.0 : 0.0);
    for (std::size_t k = 0; k < caches.size(); ++k) {
      if (caches[k].access(off)) break;
      v += penalty[k];
    }
    return v;
  }, noise);
  return p;
}

RefCacheConfig tlb_level(std::uint64_t reach, std::uint32_t sets, std::uint32_t ways) {
  RefCacheConfig c;
  c.line = reach;
  c.set_ways.assign(sets, ways);
  return c;
}

}  // namespace

TEST_CASE("tlb: penalties that add up along three levels, over near and far pages, come apart") {
  // 16 entries fully associative (+20), 64 fully associative (+40), 256 in 32
  // sets of 8 (+150): a level of +40 sits 10 cycles above a far page that missed
  // the first level, the clusters of absolute latencies interleave.
  const std::vector<RefCacheConfig> levels{tlb_level(kPage, 1, 16), tlb_level(kPage, 1, 64), tlb_level(kPage, 32, 8)};
  const std::vector<double> penalty{20, 40, 150};
  TraceSet t;
  for (std::uint64_t n = 1; n <= 300; ++n)
    t.points.push_back(additive_point(t.points.size(), levels, penalty, n, kPage, 2048, n));
  const Finding f = test::analyze(t, "tlb");
  INFO(f.to_json().dump().substr(0, 6000));
  REQUIRE(f.value == 3);
  const std::vector<std::uint64_t> entries{16, 64, 256};
  for (std::size_t i = 0; i < 3; ++i) {
    CAPTURE(i);
    const auto& L = f.details["levels"][i];
    CHECK(L["entries"] == entries[i]);
    CHECK(L["miss_penalty_cycles"].get<double>() == doctest::Approx(penalty[i]).epsilon(0.1));
  }
  // Fully associative is one set, however many entries; the third level's sets
  // are whole (32 of 8).
  CHECK(f.details["levels"][0]["associativity"] == "full");
  CHECK(f.details["levels"][1]["associativity"] == "full");
  CHECK(f.details["levels"][1]["sets"] == 1);
  CHECK(f.details["levels"][2]["sets"] == 32);
  CHECK(f.details["levels"][2]["set_sizes"] == std::vector<int>(32, 8));
}

TEST_CASE("tlb: entries of several pages show as staircase steps every few slots (reach = pages x page)") {
  // 8 sets of 4 entries, each entry 4 consecutive 2 MiB pages (8 MiB), swept
  // at 4 MiB one slot at a time: two slots share an entry, and a set overflows
  // every 2 slots. Which of an entry's slots miss depends on the order (the
  // first one, in a sequential chase): the sets are not read, the steps' spacing is.
  const std::vector<RefCacheConfig> levels{tlb_level(4 * kPage, 8, 4)};
  TraceSet t;
  for (std::uint64_t n = 56; n <= 90; ++n)
    t.points.push_back(additive_point(t.points.size(), levels, {60}, n, 2 * kPage, 1024, n));
  const Finding f = test::analyze(t, "tlb", {{"page_bytes", std::to_string(2 * kPage)}});
  INFO(f.to_json().dump().substr(0, 4000));
  REQUIRE(f.value == 1);
  const auto& L = f.details["levels"][0];
  CHECK(L["knee_slots"] == 64);
  CHECK(L["slots_per_entry"] == 2);
  CHECK(L["entries"] == 32);
  CHECK(L["reach_bytes"] == 4 * kPage);
  CHECK(L["coverage_bytes"] == 128 * kPage);
  CHECK(L["sets"].is_null());
}

TEST_CASE("tlb: a footprint sweep over strides gives each level's coverage and span") {
  // A fully associative level of 16 entries of 32 MiB (16 coalesced pages) and a
  // level of 1024 entries of 2 MiB in 32 sets of 32. Slots on a sqrt-2 grid at
  // strides 1 MiB .. 512 MiB (plus 32 B). Below its span a level runs out at its
  // coverage (512 MiB, 2 GiB); the first's span is its reach (32 MiB), the
  // second's its sets x reach (64 MiB), the slots past it entries (16) and ways (32).
  const std::vector<RefCacheConfig> levels{tlb_level(16 * kPage, 1, 16), tlb_level(kPage, 32, 32)};
  TraceSet t;
  std::vector<std::uint64_t> grid;
  for (int j = 2; j < 30; ++j) {
    const auto n = static_cast<std::uint64_t>(std::llround(std::pow(2.0, j / 2.0)));
    if (grid.empty() || grid.back() != n) grid.push_back(n);
  }
  for (std::uint64_t s = 1ull << 20; s <= 512ull << 20; s *= 2)
    for (auto n : grid) {
      if (n > 4096 || n * s > (64ull << 30)) break;
      t.points.push_back(additive_point(t.points.size(), levels, {15, 60}, n, s + 32, 4 * n + 512, n * 7 + s));
    }
  const Finding f = test::analyze(t, "tlb");
  INFO(f.to_json().dump().substr(0, 6000));
  REQUIRE(f.value == 2);
  const std::uint64_t coverage[] = {512ull << 20, 2048ull << 20}, span[] = {16 * kPage, 32 * kPage},
                      slots[] = {16, 32};
  const double pen[] = {15, 60};
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& L = f.details["levels"][i];
    CAPTURE(i);
    CHECK(L["coverage_range_bytes"][0].get<std::uint64_t>() <= coverage[i]);
    CHECK(L["coverage_range_bytes"][1].get<std::uint64_t>() >= coverage[i]);
    CHECK(L["miss_penalty_cycles"].get<double>() == doctest::Approx(pen[i]).epsilon(0.15));
    CHECK(L["span_bytes"] == span[i]);
    CHECK(L["span_slots_range"][0].get<std::uint64_t>() <= slots[i]);
    CHECK(L["span_slots_range"][1].get<std::uint64_t>() >= slots[i]);
    CHECK(L["entries"].is_null());  // a span alone does not tell entries from reach
  }
}

TEST_CASE("tlb: an H100's and an H200's footprint sweep (real traces), pages wobbling by a penalty, read from the points' means") {
  // Strides 8, 16 and 32 MiB of the topology's tlb step on an H100 and an H200: each page's
  // latency moves by about the +8-cycle penalty from point to point, so no page
  // keeps a staircase, but the means rise past 256 MiB at 8 and 16 MiB and past
  // 16 slots at 32 MiB; at 8 MiB half the accesses miss up to twice the coverage
  // (slots share entries): one fully associative level of 16 MiB entries.
  for (const char* dir : {"h100_topology_tlb", "h200_topology_tlb"}) {
    CAPTURE(dir);
    const Bundle b = read_bundle(std::string(DISSECT_TEST_DATA "/analyzers/gpu_traces/") + dir);
    const Finding f = test::analyze(b.traces, "tlb");
    INFO(f.to_json().dump().substr(0, 4000));
    REQUIRE(f.value == 1);
    CHECK(f.confidence >= 0.8);
    const auto& L = f.details["levels"][0];
    CHECK(L["associativity"] == "full");
    CHECK(L["span_bytes"] == 16u << 20);
    CHECK(L["reach_bytes"] == 16u << 20);
    const auto lo = L["coverage_range_bytes"][0].get<std::uint64_t>(), hi = L["coverage_range_bytes"][1].get<std::uint64_t>();
    CHECK(lo <= (256ull << 20));
    CHECK(hi >= (256ull << 20));
    CHECK(L["span_slots_range"][0] == 16);
    CHECK(L["miss_penalty_cycles"].get<double>() > 4);
    CHECK(L["miss_penalty_cycles"].get<double>() < 16);
  }
}
