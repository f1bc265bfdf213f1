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
