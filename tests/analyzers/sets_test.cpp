#include <doctest/doctest.h>

#include "engine/bundle/bundle.hpp"
#include "support/analysis.hpp"
#include "support/ref_model.hpp"

using namespace dissect;
using dissect::test::RefCacheConfig;

namespace {
// The stage method: s = b, N = C - 2b .. C + extra*b.
TraceSet stages(const RefCacheConfig& cfg, std::uint64_t extra, bool context = true, double outliers = 0.003) {
  TraceSet t;
  const std::uint64_t C = cfg.capacity(), b = cfg.line;
  for (std::uint64_t n = C - 2 * b; n <= C + extra * b; n += b) {
    test::ChaseSpec cs;
    cs.size = n;
    cs.stride = b;
    cs.iterations = 40 * (n / b);
    cs.with_context = context;
    test::RefNoise noise;
    noise.jitter = 3;
    noise.outlier_rate = outliers;
    noise.seed = n;
    t.points.push_back(test::cache_chase(t.points.size(), cfg, cs, {}, noise));
  }
  return t;
}
}  // namespace

TEST_CASE("sets: Fermi-like L1, 32 sets x 4 ways, modulo, LRU and weighted random") {
  auto cfg = RefCacheConfig::uniform(16384, 128, 4);
  for (auto policy : {RefCacheConfig::Policy::lru, RefCacheConfig::Policy::weighted}) {
    cfg.policy = policy;
    cfg.weights = {1, 3, 1, 1};
    const Finding f = test::analyze(stages(cfg, 36), "sets");
    INFO(f.to_json().dump());
    CHECK(f.value == 32);
    CHECK(f.details["ways"] == 4);
    CHECK(f.details["line_bytes"] == 128);
    CHECK(f.details["size_bytes"] == 16384);
    CHECK(f.details["lines_per_block"] == 1);
    CHECK(f.details["bit_defined"] == true);
    CHECK(f.confidence > 0.8);
  }
}

TEST_CASE("sets: texture L1 (4 lines per set block), non-power-of-two sets, hashed mapping") {
  auto tex = RefCacheConfig::uniform(12288, 32, 96);
  tex.map = RefCacheConfig::Map::blocked;
  tex.block = 4;
  Finding f = test::analyze(stages(tex, 16, false), "sets");
  INFO(f.to_json().dump());
  CHECK(f.value == 4);
  CHECK(f.details["ways"] == 96);
  CHECK(f.details["lines_per_block"] == 4);
  CHECK(f.details["bit_defined"] == true);

  const auto odd = RefCacheConfig::uniform(48 * 4 * 64, 64, 4);
  f = test::analyze(stages(odd, 50), "sets");
  CHECK(f.value == 48);
  CHECK(f.details["ways"] == 4);

  // Hashed: set membership is no function of (line mod sets); each set still
  // holds two of the first 32 lines.
  auto hashed = RefCacheConfig::uniform(16 * 2 * 128, 128, 2);
  hashed.map = RefCacheConfig::Map::table;
  hashed.table = {5, 12, 0, 9, 3, 14, 7, 1, 10, 15, 2, 8, 13, 4, 11, 6,
                  9, 2, 14, 5, 0, 11, 6, 13, 1, 8, 15, 3, 12, 7, 10, 4};
  f = test::analyze(stages(hashed, 20), "sets");
  CHECK(f.value == 16);
  CHECK(f.details["ways"] == 2);
  CHECK(f.details["bit_defined"] == false);
}

TEST_CASE("sets: a sweep that stops before every set overflows gives a lower bound, no value") {
  const auto cfg = RefCacheConfig::uniform(16384, 128, 4);
  const Finding f = test::analyze(stages(cfg, 10), "sets");
  CHECK(f.value.is_null());
  CHECK(f.confidence == 0);
  CHECK(f.details["sets_at_least"] == 10);
  CHECK(test::reason(f).find("at least 10 sets") != std::string::npos);
}

TEST_CASE("sets: steps of unequal sizes are no stage-method geometry: undetermined, no sets named") {
  // Half the sets hold 3 ways, half 5: the staircase adds 4 and 6 lines per set, so no
  // "sets x ways" describes it (a real cache whose policy is not LRU or whose index is
  // hashed gives such steps: the H100's L1 gave "39 sets x 49.4 ways").
  // The index gives each set as many of every 128 consecutive lines as it has ways, so
  // N = C fits and each line past it overflows one more set.
  auto cfg = RefCacheConfig::uniform(16384, 128, 4);
  cfg.map = RefCacheConfig::Map::table;
  for (std::uint32_t s = 0; s < cfg.set_ways.size(); ++s) {
    cfg.set_ways[s] = s % 2 == 0 ? 3 : 5;
    for (std::uint32_t w = 0; w < cfg.set_ways[s]; ++w) cfg.table.push_back(s);
  }
  const Finding f = test::analyze(stages(cfg, 140), "sets");
  INFO(f.to_json().dump());
  CHECK(f.value.is_null());
  CHECK(f.summary.find("unequal numbers of lines") != std::string::npos);
  CHECK(f.details["staircase_sets"] == 32);
}

TEST_CASE("sets: a series whose smallest N already misses often names no staircase (not 'every N fits')") {
  // N from C + 8 b: every point misses on a quarter of the lines or more, so the
  // misclassification rate read at the smallest N is high and no line misses
  // significantly more.
  const auto cfg = RefCacheConfig::uniform(16384, 128, 4);
  TraceSet t;
  for (std::uint64_t k = 8; k <= 16; ++k) {
    test::ChaseSpec cs;
    cs.size = cfg.capacity() + k * cfg.line;
    cs.stride = cfg.line;
    cs.iterations = 20 * (cs.size / cfg.line);
    t.points.push_back(test::cache_chase(t.points.size(), cfg, cs, {}, {}));
  }
  const Finding f = test::analyze(t, "sets");
  INFO(f.to_json().dump());
  CHECK(f.value.is_null());
  CHECK(f.summary.find("already misses on") != std::string::npos);
  CHECK(f.summary.find("fits") == std::string::npos);
}

TEST_CASE("sets: Mei & Chu's stage sweep timed per access on an H100 (real trace) claims no geometry") {
  // Per-access timing flushed samples to global memory, and those stores evicted L1 lines:
  // the smallest N already missed 6.6 % of its accesses, and an earlier analyzer read the
  // noise as "6 sets x 27 ways". It must say why it cannot tell.
  const Bundle b = read_bundle(DISSECT_TEST_DATA "/analyzers/gpu_traces/h100_mei_l1_data_stages_per_access");
  const Finding f = test::analyze(b.traces, "sets");
  INFO(f.to_json().dump());
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("already misses") != std::string::npos);
  CHECK(test::analyze(b.traces, "cache_size").value.is_null());
}
