#include <doctest/doctest.h>

#include <algorithm>
#include <random>

#include "engine/bundle/bundle.hpp"

#include "support/analysis.hpp"
#include "support/ref_model.hpp"

using namespace dissect;
using dissect::test::RefCacheConfig;

namespace {
TraceSet long_run(const RefCacheConfig& cfg, std::uint64_t iterations, bool context = true) {
  TraceSet t;
  test::ChaseSpec cs;
  cs.size = cfg.capacity() + cfg.line;  // N = C + b, s = b
  cs.stride = cfg.line;
  cs.iterations = iterations;
  cs.with_context = context;
  test::RefNoise noise;
  noise.jitter = 3;
  noise.outlier_rate = 0.001;
  t.points.push_back(test::cache_chase(0, cfg, cs, {}, noise));
  return t;
}
}  // namespace

TEST_CASE("replacement: LRU and FIFO are periodic") {
  auto cfg = RefCacheConfig::uniform(16384, 128, 4);
  for (auto policy : {RefCacheConfig::Policy::lru, RefCacheConfig::Policy::fifo}) {
    cfg.policy = policy;
    const Finding f = test::analyze(long_run(cfg, 65536, false), "replacement");
    INFO(f.to_json().dump());
    CHECK(f.value == "lru");
    CHECK(f.confidence > 0.5);
    REQUIRE(f.details["way_probabilities"].is_array());
    for (const auto& p : f.details["way_probabilities"]) CHECK(p.get<double>() == doctest::Approx(0.25).epsilon(0.05));
  }
}

TEST_CASE("replacement: Fermi's weighted policy: non-LRU, way probabilities 1/2, 1/6, 1/6, 1/6") {
  auto cfg = RefCacheConfig::uniform(16384, 128, 4);
  cfg.policy = RefCacheConfig::Policy::weighted;
  cfg.weights = {1, 3, 1, 1};
  const Finding f = test::analyze(long_run(cfg, 129 * 500), "replacement");
  INFO(f.to_json().dump());
  CHECK(f.value == "non-lru");
  CHECK(f.confidence > 0.99);
  REQUIRE(f.details["way_probabilities_sorted"].is_array());
  const auto p = f.details["way_probabilities_sorted"].get<std::vector<double>>();
  REQUIRE(p.size() == 4);
  CHECK(p[0] == doctest::Approx(0.5).epsilon(0.1));
  for (int i = 1; i < 4; ++i) CHECK(p[static_cast<std::size_t>(i)] == doctest::Approx(1.0 / 6).epsilon(0.2));
}

TEST_CASE("replacement: a chase without a second round cannot be tested") {
  const auto cfg = RefCacheConfig::uniform(16384, 128, 4);
  const Finding f = test::analyze(long_run(cfg, 100), "replacement");
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("two rounds") != std::string::npos);
}

TEST_CASE("replacement: an H100 L1 chase timed on chip (real trace) is non-LRU and the same in every launch") {
  // Past the capacity a few different lines miss in each round: no single line is
  // significant over 3-4 rounds, the count of such lines is. The two launches of each
  // point agree at every sample, which measures the misclassification rate as well.
  const Bundle b = read_bundle(DISSECT_TEST_DATA "/analyzers/gpu_traces/h100_l1_stage_on_chip");
  const Finding f = test::analyze(b.traces, "replacement");
  INFO(f.to_json().dump());
  CHECK(f.value == "non-lru");
  CHECK(f.details["launches_identical"] == true);
  CHECK(f.details["launch_samples_differing"] == 0);
  CHECK(f.details["launch_samples_compared"].get<std::uint64_t>() > 10000);
  CHECK(f.details["noise_rate"].get<double>() < 1e-3);
  // Way shares need one overflowing set followed over many misses; this is not that.
  CHECK(f.details["way_probabilities"].is_null());
}

namespace {

// Mei & Chu's N = C + b beside a control at 8 KiB, on `cfg`; `disturb` of the samples turned
// into misses at random (what per-access sample stores do to an L1 on Hopper).
TraceSet with_control(const RefCacheConfig& cfg, double disturb) {
  TraceSet t;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  const test::RefLatency lat;
  for (std::uint64_t n : {std::uint64_t{8192}, std::uint64_t{16512}}) {
    test::ChaseSpec cs;
    cs.size = n;
    cs.stride = 128;
    cs.iterations = 65536;
    PointTrace p = test::cache_chase(t.points.size(), cfg, cs, lat, {});
    for (auto& s : p.samples)
      if (u(rng) < disturb) s.latency = lat.miss;
    t.points.push_back(std::move(p));
  }
  return t;
}

}  // namespace

TEST_CASE("replacement: misses that a control at half the N shows as often are not the policy's") {
  // A 64 KiB L1 holds both points: every miss is a disturbance, and an aperiodic one.
  const Finding f = test::analyze(with_control(RefCacheConfig::uniform(65536, 128, 4), 0.03), "replacement");
  INFO(f.to_json().dump());
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("control") != std::string::npos);
  REQUIRE(f.evidence["points_within_control"].is_array());
  CHECK(f.evidence["points_within_control"].size() == 1);
  // Fermi's 16 KiB L1 with its weighted policy: the control fits and stays clean, so the
  // overflowing point is read as before.
  auto fermi = RefCacheConfig::uniform(16384, 128, 4);
  fermi.policy = RefCacheConfig::Policy::weighted;
  fermi.weights = {1, 3, 1, 1};
  const Finding g = test::analyze(with_control(fermi, 0), "replacement");
  INFO(g.to_json().dump());
  CHECK(g.value == "non-lru");
}
