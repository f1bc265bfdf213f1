#include <doctest/doctest.h>

#include "support/analysis.hpp"
#include "support/ref_model.hpp"

using namespace dissect;
using dissect::test::RefCacheConfig;

namespace {
// N fixed, stride doubling: each access pays the TLB penalty when it lands on
// a page that the 16-entry TLB does not hold.
TraceSet stride_sweep(std::uint64_t page, std::uint64_t n, bool context, std::uint64_t max_stride = 0) {
  test::RefTlb tlb;
  RefCacheConfig l1;
  l1.line = page;
  l1.set_ways = {16};
  tlb.levels = {l1};
  tlb.penalty = {120};
  tlb.base = 500;
  TraceSet t;
  for (std::uint64_t s = 4096; s <= (max_stride ? max_stride : n / 64); s *= 2) {
    test::ChaseSpec cs;
    cs.size = n;
    cs.stride = s;
    cs.iterations = 4096;
    cs.with_context = context;
    test::RefNoise noise;
    noise.jitter = 4;
    noise.outlier_rate = 0.002;
    noise.seed = s;
    t.points.push_back(test::tlb_chase(t.points.size(), tlb, cs, noise));
  }
  return t;
}
}  // namespace

TEST_CASE("page_size: the stride where the page-miss penalty saturates") {
  for (std::uint64_t page : {2ull << 20, 64ull << 10}) {
    const Finding f = test::analyze(stride_sweep(page, 1ull << 30, page == (2ull << 20)), "page_size");
    INFO(f.to_json().dump());
    CHECK(f.value == page);
    CHECK(f.confidence > 0.9);
    CHECK(f.details["penalty_cycles"].get<double>() == doctest::Approx(120).epsilon(0.1));
  }
}

TEST_CASE("page_size: a sweep that ends on the ramp gives no value") {
  // 64 MiB pages, 4 GiB: 64 pages for 16 entries; the sweep stops at 16 MiB, mid-ramp.
  TraceSet t = stride_sweep(64ull << 20, 4ull << 30, true, 16ull << 20);
  const Finding f = test::analyze(t, "page_size");
  CHECK(f.value.is_null());
  INFO(f.to_json().dump());
  CHECK(test::reason(f).find("still rises") != std::string::npos);
}

TEST_CASE("page_size: a small bump over L2 near/far hits is no page size") {
  // H200 (N = 4 GiB, s = 64 KiB .. 512 MiB): L2 hits at about 277 or 307 cycles
  // (near/far partition), the mean about 10 cycles higher at 8..128 MiB, then back.
  TraceSet t;
  for (std::uint64_t s = 64ull << 10; s <= 512ull << 20; s *= 2) {
    test::ChaseSpec cs;
    cs.size = 4ull << 30;
    cs.stride = s;
    cs.iterations = 4096;
    test::RefNoise noise;
    noise.jitter = 3;
    noise.outlier_rate = 0.001;
    noise.seed = s;
    PointTrace p = test::make_point(t.points.size(), cs);
    const double bump = s >= (16ull << 20) && s <= (128ull << 20) ? 10 : s == (8ull << 20) ? 5 : 0;
    test::append_chase(p, cs, [&](std::uint64_t off) {
      std::uint64_t h = (off / 4096 + 1) * 0xbf58476d1ce4e5b9ull;
      h ^= h >> 31;
      return 292.0 + bump + ((h & 1) ? 15.0 : -15.0);
    }, noise);
    t.points.push_back(std::move(p));
  }
  const Finding f = test::analyze(t, "page_size");
  INFO(f.to_json().dump().substr(0, 3000));
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("within the spread of one latency level") != std::string::npos);
}
