#include <doctest/doctest.h>

#include "engine/device/chase_order.hpp"
#include "support/analysis.hpp"
#include "support/ref_model.hpp"

using namespace dissect;
using dissect::test::RefCacheConfig;

namespace {

// One fine-grained point per block size: the engine's own page_random order
// (one access per block of b bytes) through a fresh reference cache.
TraceSet block_sweep(const RefCacheConfig& cfg, std::uint64_t n, const std::vector<std::uint64_t>& blocks,
                     const test::RefNoise& noise = {}) {
  TraceSet t;
  for (std::uint64_t b : blocks) {
    ArraySpec a;
    a.size_bytes = n;
    a.stride_bytes = 4;
    a.page_bytes = b;
    a.pattern = Pattern::page_random;
    const ChaseOrder order(a, 4);
    const auto pass = order.pass();
    PointTrace p;
    p.point_id = t.points.size();
    p.params = {{"kernel", "pchase"},           {"pattern", "page_random"},      {"size_bytes", std::to_string(n)},
                {"stride_bytes", "4"},          {"page_bytes", std::to_string(b)}, {"timing_mode", "per_access"}};
    p.accesses_per_pass = pass.size();
    test::RefCache cache(cfg);
    for (auto off : pass) (void)cache.access(off);  // warm-up pass
    std::mt19937_64 rng(noise.seed + b);
    for (std::uint64_t k = 0; k < 4 * pass.size(); ++k) {
      const std::uint64_t off = pass[k % pass.size()];
      Sample s;
      s.seq = k;
      s.offset_bytes = off;
      s.latency = test::noisy(cache.access(off) ? 30 : 300, rng, noise);
      p.samples.push_back(s);
    }
    t.points.push_back(std::move(p));
  }
  return t;
}

const std::vector<std::uint64_t> kBlocks{32, 64, 128, 256, 512, 1024};

}  // namespace

TEST_CASE("line_capacity: 128 B lines of 32 B sectors (what a small-stride chase cannot tell from 32 B lines)") {
  auto cfg = RefCacheConfig::uniform(16 * 1024, 128, 4);  // 32 sets x 4 ways, modulo mapping
  cfg.sector = 32;
  test::RefNoise noise;
  noise.jitter = 2;
  noise.outlier_rate = 0.002;
  const Finding f = test::analyze(block_sweep(cfg, 20 * 1024, kBlocks, noise), "line_capacity");
  INFO(f.to_json().dump());
  CHECK(f.value == 128);
  CHECK(f.details["fetch_bytes"] == 32);
  CHECK(f.details["fits_from_block_bytes"] == 256);
  CHECK(f.confidence > 0.7);
}

TEST_CASE("line_capacity: unsectored lines of 32 B and of 128 B, LRU and weighted random replacement") {
  SUBCASE("32 B lines") {
    const auto cfg = RefCacheConfig::uniform(12 * 1024, 32, 4);
    const Finding f = test::analyze(block_sweep(cfg, 15 * 1024, kBlocks), "line_capacity");
    INFO(f.to_json().dump());
    CHECK(f.value == 32);
  }
  SUBCASE("128 B lines, Fermi's weighted random replacement") {
    auto cfg = RefCacheConfig::uniform(16 * 1024, 128, 4);
    cfg.policy = RefCacheConfig::Policy::weighted;
    cfg.weights = {1, 3, 1, 1};
    const Finding f = test::analyze(block_sweep(cfg, 20 * 1024, kBlocks), "line_capacity");
    INFO(f.to_json().dump());
    CHECK(f.value == 128);
  }
}

TEST_CASE("line_capacity: an array that fits, or a line beyond the largest block, gives no value") {
  auto cfg = RefCacheConfig::uniform(16 * 1024, 128, 4);
  Finding f = test::analyze(block_sweep(cfg, 12 * 1024, kBlocks), "line_capacity");
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("N must exceed the cache") != std::string::npos);

  f = test::analyze(block_sweep(cfg, 20 * 1024, {32, 64}), "line_capacity");
  CHECK(f.value.is_null());
  CHECK(f.details["lower_bound_bytes"] == 64);

  f = test::analyze(TraceSet{}, "line_capacity");
  CHECK(f.value.is_null());
}

TEST_CASE("line_capacity: chain averages of a sectored L2 whose blocks under the line overflow more (H100)") {
  // The H100's L2 from one SM at N = 26240 KiB (session 4): 64 B blocks average
  // 42.7 % above the fastest block size, 128 B blocks 29.6 %, 256 B and up fit.
  TraceSet t;
  const std::vector<std::pair<std::uint64_t, double>> averages{
      {64, 1.427 * 290}, {128, 1.296 * 290}, {256, 290.0}, {512, 290.2}, {1024, 290.1}, {2048, 290.0}};
  for (const auto& [b, avg] : averages) {
    PointTrace p;
    p.point_id = t.points.size();
    p.params = {{"kernel", "pchase"},         {"pattern", "page_random"},         {"size_bytes", "26869760"},
                {"stride_bytes", "64"},       {"page_bytes", std::to_string(b)}, {"timing_mode", "chain"}};
    for (std::uint64_t k = 0; k < 3; ++k) p.samples.push_back({0, k, 0, avg + 0.1 * static_cast<double>(k), 3, 0});
    t.points.push_back(std::move(p));
  }
  const Finding f = test::analyze(t, "line_capacity");
  INFO(f.to_json().dump());
  CHECK(f.value == 128);
  CHECK(f.details["fetch_bytes"] == 64);
  CHECK(f.confidence > 0.9);  // 128 B overflows, 256 B fits: nothing against 128 B lines
}
