#include <doctest/doctest.h>

#include "engine/bundle/bundle.hpp"
#include "support/analysis.hpp"
#include "support/ref_model.hpp"

using namespace dissect;
using dissect::test::RefCacheConfig;

namespace {
// A stage sweep: s = b, N = C + first*b .. C + last*b, `passes` passes per point.
TraceSet stages(const RefCacheConfig& cfg, long first, long last, std::uint64_t passes = 12) {
  TraceSet t;
  const auto C = static_cast<long>(cfg.capacity()), b = static_cast<long>(cfg.line);
  for (long k = first; k <= last; ++k) {
    test::ChaseSpec cs;
    cs.size = static_cast<std::uint64_t>(C + k * b);
    cs.stride = cfg.line;
    cs.iterations = passes * (cs.size / cfg.line);
    test::RefNoise noise;
    noise.jitter = 3;
    noise.outlier_rate = 0.001;
    noise.seed = cs.size;
    t.points.push_back(test::cache_chase(t.points.size(), cfg, cs, {}, noise));
  }
  return t;
}
}  // namespace

TEST_CASE("stage_profile: LRU with a modulo index: clean to C, periodic, inclusion holds, ways + 1 per extra line") {
  const auto cfg = RefCacheConfig::uniform(16384, 128, 4);  // 32 sets x 4 ways
  const Finding f = test::analyze(stages(cfg, -2, 24), "stage_profile");
  INFO(f.to_json().dump());
  REQUIRE(f.value.is_number());
  CHECK(f.value == 16384);
  CHECK(f.unit == "bytes");
  CHECK(f.details["clean_lines"] == 128);
  CHECK(f.details["first_miss_lines"] == 129);
  CHECK(f.details["first_miss_per_pass"].get<double>() == doctest::Approx(5).epsilon(0.05));  // one set: ways + 1
  CHECK(f.details["aperiodic_points"] == 0);
  CHECK(f.details["inclusion_pairs"].get<int>() > 20);
  CHECK(f.details["inclusion_broken"] == 0);
  CHECK(f.details["miss_block_lines"].is_null());  // sets overflow one at a time
  REQUIRE(f.details["tail"].is_object());
  CHECK(f.details["tail"]["missed_lines_per_extra_line"].get<double>() == doctest::Approx(5).epsilon(0.05));
  CHECK(f.summary.find("periodic at every point") != std::string::npos);
}

TEST_CASE("stage_profile: four consecutive lines per set: lines miss in aligned blocks of 4") {
  auto cfg = RefCacheConfig::uniform(12288, 32, 96);  // the Fermi texture L1: 4 sets x 96 ways
  cfg.map = RefCacheConfig::Map::blocked;
  cfg.block = 4;
  const Finding f = test::analyze(stages(cfg, -2, 40), "stage_profile");
  INFO(f.to_json().dump());
  REQUIRE(f.value.is_number());
  CHECK(f.value == 12288);
  CHECK(f.details["aperiodic_points"] == 0);
  CHECK(f.details["miss_block_lines"] == 4);
  CHECK(f.summary.find("aligned blocks of 4 (128 B)") != std::string::npos);
}

TEST_CASE("stage_profile: a random policy is aperiodic and breaks nothing it cannot see") {
  auto cfg = RefCacheConfig::uniform(16384, 128, 4);
  cfg.policy = RefCacheConfig::Policy::weighted;
  cfg.weights = {1, 3, 1, 1};
  const Finding f = test::analyze(stages(cfg, -2, 24), "stage_profile");
  INFO(f.to_json().dump());
  REQUIRE(f.value.is_number());
  CHECK(f.value == 16384);
  CHECK(f.details["aperiodic_points"].get<int>() > 12);
  REQUIRE(f.details["aperiodic_ranges_lines"].is_array());
  CHECK(f.details["aperiodic_ranges_lines"][0][0].get<int>() <= 130);  // at 129 lines one set misses little
  CHECK(f.summary.find("aperiodic") != std::string::npos);
}

TEST_CASE("stage_profile: a sweep that starts past C or ends below it says so") {
  const auto cfg = RefCacheConfig::uniform(16384, 128, 4);
  const Finding past = test::analyze(stages(cfg, 2, 10), "stage_profile");
  CHECK(past.value.is_null());
  CHECK(test::reason(past).find("already misses") != std::string::npos);
  const Finding below = test::analyze(stages(cfg, -10, 0), "stage_profile");
  CHECK(below.value.is_null());
  CHECK(test::reason(below).find("no point misses") != std::string::npos);
  const Finding one_pass = test::analyze(stages(cfg, -2, 6, 1), "stage_profile");
  INFO(one_pass.to_json().dump());
  CHECK(one_pass.value.is_null());
  CHECK(test::reason(one_pass).find("two passes") != std::string::npos);
}

TEST_CASE("sets and stage_profile of one bundle read its pass grids once: the findings of each alone") {
  const auto cfg = RefCacheConfig::uniform(16384, 128, 4);
  const TraceSet t = stages(cfg, -2, 24);
  const auto together = run_analyzers(t, {{"sets", nlohmann::json::object()}, {"stage_profile", nlohmann::json::object()}});
  CHECK(t.derived->size() == 1);  // one series, its grids made by the first and taken by the second
  const TraceSet fresh_a = t, fresh_b = t;  // copies: nothing derived
  std::vector<Finding> alone = test::analyze_all(fresh_a, "sets");
  for (auto& f : test::analyze_all(fresh_b, "stage_profile")) alone.push_back(std::move(f));
  REQUIRE(together.size() == alone.size());
  for (std::size_t i = 0; i < alone.size(); ++i) CHECK(together[i].to_json() == alone[i].to_json());
}
