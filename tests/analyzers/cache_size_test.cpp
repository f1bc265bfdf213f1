#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "engine/bundle/bundle.hpp"
#include "support/analysis.hpp"
#include "support/ref_model.hpp"

using namespace dissect;
using dissect::test::RefCacheConfig;

namespace {

// A size sweep of a chase with stride `stride` over a fresh reference cache per point.
TraceSet size_sweep(const RefCacheConfig& cfg, std::uint64_t from, std::uint64_t to, std::uint64_t step,
                    std::uint64_t stride, const test::RefNoise& noise = {}, bool context = true,
                    test::RefLatency lat = {}) {
  TraceSet t;
  for (std::uint64_t n = from; n <= to; n += step) {
    test::ChaseSpec cs;
    cs.size = n;
    cs.stride = stride;
    cs.iterations = std::max<std::uint64_t>(4096, 3 * n / stride);
    cs.with_context = context;
    test::RefNoise nz = noise;
    nz.seed += n;
    // A few runs cut short: every fifth point loses its last 30% of samples.
    if (noise.truncate > 0 && (n / step) % 5 != 0) nz.truncate = 0;
    t.points.push_back(test::cache_chase(t.points.size(), cfg, cs, lat, nz));
  }
  return t;
}

test::RefNoise other_tool_noise() {
  test::RefNoise n;
  n.jitter = 3;
  n.outlier_rate = 0.004;
  n.short_rate = 0.002;
  n.truncate = 0.3;
  return n;
}

}  // namespace

TEST_CASE("cache_size: recovers C of a plain LRU cache, with another tool's noise") {
  const auto cfg = RefCacheConfig::uniform(16 * 1024, 128, 4);
  for (bool context : {true, false}) {
    const Finding f = test::analyze(size_sweep(cfg, 8192, 32768, 1024, 4, other_tool_noise(), context), "cache_size");
    INFO(f.to_json().dump());
    CHECK(f.value == 16384);
    CHECK(f.details["first_miss_bytes"] == 17408);
    CHECK(f.confidence > 0.8);
    CHECK(f.evidence.contains("ks"));
    CHECK(f.evidence.contains("change_point"));
  }
}

TEST_CASE("cache_size: odd sizes, non-power-of-two sets, blocked mapping, non-LRU") {
  SUBCASE("48 sets x 4 ways of 128 B = 24 KiB, stride 32 B") {
    const auto cfg = RefCacheConfig::uniform(48 * 4 * 128, 128, 4);
    const Finding f = test::analyze(size_sweep(cfg, 12 * 1024, 40 * 1024, 512, 32, other_tool_noise()), "cache_size");
    CHECK(f.value == 24576);
  }
  SUBCASE("31 sets x 4 ways = 15.5 KiB, sweep steps 1 KiB: within one step") {
    const auto cfg = RefCacheConfig::uniform(31 * 4 * 128, 128, 4);
    const Finding f = test::analyze(size_sweep(cfg, 8192, 24576, 1024, 4, other_tool_noise()), "cache_size");
    REQUIRE(f.value.is_number());
    CHECK(f.value.get<double>() <= 15872);
    CHECK(f.value.get<double>() >= 15872 - 1024);
  }
  SUBCASE("texture L1: 12 KiB, 32 B lines, 4 lines per set block") {
    auto cfg = RefCacheConfig::uniform(12288, 32, 96);
    cfg.map = RefCacheConfig::Map::blocked;
    cfg.block = 4;
    const Finding f = test::analyze(size_sweep(cfg, 8192, 16384, 512, 4, other_tool_noise()), "cache_size");
    CHECK(f.value == 12288);
  }
  SUBCASE("Fermi L1: weighted random replacement") {
    auto cfg = RefCacheConfig::uniform(16384, 128, 4);
    cfg.policy = RefCacheConfig::Policy::weighted;
    cfg.weights = {1, 3, 1, 1};
    const Finding f = test::analyze(size_sweep(cfg, 8192, 24576, 512, 4, other_tool_noise()), "cache_size");
    CHECK(f.value == 16384);
  }
}

TEST_CASE("cache_size: a capacity that differs from point to point (SM to SM) gives the same knee run after run") {
  // Each point runs on another SM whose usable capacity lies anywhere within
  // +-2 KiB of 24 KiB (as the H100's L1 shows): inside that band some points
  // miss and some do not. Three "runs" (different draws) must agree to well
  // under the band's width, and the band is reported.
  std::vector<double> knees;
  for (std::uint64_t run = 0; run < 3; ++run) {
    TraceSet t;
    std::uint64_t state = 0x9e3779b97f4a7c15ull * (run + 1);
    for (std::uint64_t n = 16 * 1024; n <= 32 * 1024; n += 128) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      const std::uint64_t sets = (22 * 1024 + ((state >> 33) % 33) * 128) / 128;  // 22..26 KiB, 4 ways of 32 B
      const auto cfg = RefCacheConfig::uniform(sets * 128, 32, 4);
      test::ChaseSpec cs;
      cs.size = n;
      cs.stride = 32;
      cs.iterations = 3 * n / 32;
      t.points.push_back(test::cache_chase(t.points.size(), cfg, cs));
    }
    const Finding f = test::analyze(t, "cache_size");
    INFO(f.to_json().dump());
    REQUIRE(f.value.is_number());
    CHECK(f.details.contains("mixed_band_bytes"));
    knees.push_back(f.value.get<double>());
  }
  for (double k : knees) {
    CHECK(k >= 24 * 1024 - 512);
    CHECK(k <= 24 * 1024 + 512);
  }
}

TEST_CASE("cache_size: a sweep that never reaches the knee says so, never invents a value") {
  const auto cfg = RefCacheConfig::uniform(16384, 128, 4);
  Finding f = test::analyze(size_sweep(cfg, 1024, 8192, 512, 4, other_tool_noise()), "cache_size");
  CHECK(f.value.is_null());
  CHECK(f.confidence == 0);
  CHECK(test::reason(f).find("above the largest N (8 KiB)") != std::string::npos);
  CHECK(f.details["lower_bound_bytes"] == 8192);

  f = test::analyze(size_sweep(cfg, 32768, 65536, 4096, 4, other_tool_noise()), "cache_size");
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("below") != std::string::npos);
}

TEST_CASE("cache_size: levels drowned in noise lower the confidence") {
  const auto cfg = RefCacheConfig::uniform(16384, 128, 4);
  test::RefNoise n;
  n.jitter = 40;
  const Finding f =
      test::analyze(size_sweep(cfg, 8192, 32768, 1024, 4, n, true, test::RefLatency{100, 130}), "cache_size");
  CHECK((f.value.is_null() || f.confidence < 0.6));
}

TEST_CASE("cache_size: one finding per series (e.g. per stride of a Saavedra grid)") {
  const auto cfg = RefCacheConfig::uniform(16384, 128, 4);
  TraceSet t = size_sweep(cfg, 8192, 32768, 2048, 4);
  TraceSet t2 = size_sweep(cfg, 8192, 32768, 2048, 256);
  for (auto& p : t2.points) p.point_id += 100, t.points.push_back(p);
  const auto all = test::analyze_all(t, "cache_size");
  REQUIRE(all.size() == 2);
  for (const auto& f : all) CHECK(f.value == 16384);
}

TEST_CASE("cache_size: chain timing (one average per chain) over a geometric sweep") {
  const auto cfg = RefCacheConfig::uniform(24576, 64, 6);  // 64 sets x 6 ways
  TraceSet t;
  for (std::uint64_t n = 1024; n <= (1u << 20); n *= 2) {
    test::ChaseSpec cs;
    cs.size = n;
    cs.stride = 64;
    cs.iterations = 4 * n / 64;
    const PointTrace fine = test::cache_chase(0, cfg, cs, {}, {});
    double sum = 0;
    for (const auto& s : fine.samples) sum += s.latency;
    PointTrace p = test::make_point(t.points.size(), cs);
    p.params["timing_mode"] = "chain";
    p.accesses_per_pass = 0;
    for (std::uint32_t r = 0; r < 3; ++r) {
      Sample s;
      s.seq = r;
      s.latency = sum / static_cast<double>(fine.samples.size()) + 0.1 * r;
      p.samples.push_back(s);
    }
    t.points.push_back(p);
  }
  const Finding f = test::analyze(t, "cache_size");
  INFO(f.to_json().dump());
  CHECK(f.value == 16384);  // 24 KiB lies between 16 and 32 KiB: the largest N without misses
  CHECK(f.details["first_miss_bytes"] == 32768);
  CHECK(f.details.contains("latency_rise_after_knee"));
}

TEST_CASE("cache_size: a second hit level close to the first (texture fetches crossing 64 B) is not a miss") {
  // H200 texture path, s = 16 B: hits take 93 cycles, every fourth one 104
  // (a new 64 B chunk), capacity misses 337. The 104 level is as common at the
  // smallest N as at the largest clean one: it must not read as misses.
  const auto cfg = RefCacheConfig::uniform(24 * 1024, 128, 4);
  test::RefLatency lat;
  lat.hit = 93;
  lat.miss = 337;
  TraceSet t = size_sweep(cfg, 1024, 40 * 1024, 1024, 16, {}, true, lat);
  for (auto& p : t.points)
    for (auto& s : p.samples)
      if (s.latency < 200 && (s.offset_bytes / 16) % 4 == 3) s.latency = 104;
  const Finding f = test::analyze(t, "cache_size");
  INFO(f.to_json().dump());
  CHECK(f.value == 24576);
}

TEST_CASE("cache_size: min_miss_share puts a gradual knee where the misses matter") {
  // Fine-grained points from 16 to 32 MiB: no misses up to 20 MiB, then 1 % more
  // of the accesses miss every MiB (a hashed L2 seen from one SM).
  TraceSet t;
  for (std::uint64_t mib = 16; mib <= 32; ++mib) {
    PointTrace p;
    p.point_id = t.points.size();
    p.params = {{"kernel", "pchase"}, {"size_bytes", std::to_string(mib << 20)}, {"stride_bytes", "64"},
                {"timing_mode", "per_access"}};
    const double share = mib <= 20 ? 0.0 : 0.01 * static_cast<double>(mib - 20);
    for (std::uint64_t i = 0; i < 8192; ++i) {
      const bool m = std::floor(static_cast<double>(i + 1) * share) > std::floor(static_cast<double>(i) * share);
      p.samples.push_back({0, i, 64 * i, m ? 700.0 : 287.0 + static_cast<double>(i % 3), 3, 0});
    }
    t.points.push_back(std::move(p));
  }
  const Finding first = test::analyze(t, "cache_size");
  INFO(first.to_json().dump());
  CHECK(first.value == 20 << 20);
  const Finding two = test::analyze(t, "cache_size", {{"min_miss_share", 0.015}});
  INFO(two.to_json().dump());
  CHECK(two.value == 21 << 20);  // 22 MiB is the first with 1.5 % of misses or more
}

TEST_CASE("cache_size: points below the knee with misses under min_miss_share are no sign of a knee below the sweep") {
  // The H100's L2 seen from one SM, as the adaptive search samples it (min_miss_share 0.1):
  // doubling from 256 KiB without a miss, then most points between 16 and 32 MiB, where a
  // few percent of the accesses miss well before the cliff at 23.5 MiB. The points before
  // the cliff are clean by the 10 % rule, but most of them miss more than 1 %: their median
  // is no noise floor that puts the knee below the smallest N (which misses 0.0 %).
  TraceSet t;
  auto add = [&](std::uint64_t bytes, double share) {
    PointTrace p;
    p.point_id = t.points.size();
    p.params = {{"kernel", "pchase"}, {"size_bytes", std::to_string(bytes)}, {"stride_bytes", "64"},
                {"timing_mode", "per_access"}};
    for (std::uint64_t i = 0; i < 16384; ++i) {
      const bool m = std::floor(static_cast<double>(i + 1) * share) > std::floor(static_cast<double>(i) * share);
      p.samples.push_back({0, i, 64 * i, m ? 700.0 : 281.0 + 31.0 * static_cast<double>(i % 2), 3, 0});
    }
    t.points.push_back(std::move(p));
  };
  const std::uint64_t mib = 1u << 20, half = mib / 2;
  for (std::uint64_t k = 256 << 10; k <= 32 * mib; k *= 2) add(k, k <= 16 * mib ? 0 : 0.6);
  // Bisection, then copies of the two sizes around the cliff (the search confirms them).
  add(24 * mib, 0.3);
  add(20 * mib, 0.02);
  add(22 * mib, 0.05);
  add(23 * mib, 0.07);
  add(23 * mib + half, 0.08);
  for (int copy = 0; copy < 7; ++copy) {
    add(23 * mib + half, 0.06 + 0.005 * copy);
    add(24 * mib, 0.25 + 0.02 * copy);
  }
  const Finding f = test::analyze(t, "cache_size", {{"min_miss_share", 0.1}});
  INFO(f.to_json().dump());
  REQUIRE(f.value.is_number());
  CHECK(f.value == (23u << 20) + half);
}

namespace {

// Chain timing: a point whose three samples are all `latency` (the average of a chain).
PointTrace chain_point(std::size_t id, std::uint64_t size, std::uint64_t stride, double latency) {
  test::ChaseSpec cs;
  cs.size = size;
  cs.stride = stride;
  PointTrace p = test::make_point(id, cs);
  p.params["timing_mode"] = "chain";
  p.accesses_per_pass = 0;
  for (std::uint32_t r = 0; r < 3; ++r) {
    Sample s;
    s.seq = r;
    s.latency = latency + 0.001 * r;
    p.samples.push_back(s);
  }
  return p;
}

// A chain-timed point from the reference cache: the average latency of a warm chase.
PointTrace chain_point_of(std::size_t id, const RefCacheConfig& cfg, std::uint64_t size, std::uint64_t stride) {
  test::ChaseSpec cs;
  cs.size = size;
  cs.stride = stride;
  cs.iterations = std::max<std::uint64_t>(256, 4 * size / stride);
  const PointTrace fine = test::cache_chase(0, cfg, cs, {}, {});
  double sum = 0;
  for (const auto& s : fine.samples) sum += s.latency;
  return chain_point(id, size, stride, sum / static_cast<double>(fine.samples.size()));
}

}  // namespace

TEST_CASE("cache_size: a chain average that rises by a few percent and stays there is no capacity") {
  // .cg chains inside a partitioned L2: from some N on the lines spread over near and far
  // partitions in a new proportion and the average settles a few percent higher, however
  // large N grows. No cache misses that cheaply: undetermined, with the bound that says so.
  TraceSet t;
  for (std::uint64_t n = 1024; n <= (16u << 20); n *= 2)
    t.points.push_back(chain_point(t.points.size(), n, 4, n <= 4096 ? 280.0 : 285.0));
  const Finding f = test::analyze(t, "cache_size");
  INFO(f.to_json().dump());
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("too little for a cache's capacity") != std::string::npos);
  REQUIRE(f.evidence.contains("miss_penalty_bound"));
  CHECK(f.evidence["miss_penalty_bound"]["relative"].get<double>() < 0.25);
  // The same shape with a miss that costs what a cache level's miss does is a knee.
  for (auto& p : t.points)
    for (auto& s : p.samples)
      if (s.latency > 284) s.latency = 560;
  const Finding g = test::analyze(t, "cache_size");
  INFO(g.to_json().dump());
  CHECK(g.value == 4096);
  CHECK(g.details["bracket_bytes"] == nlohmann::json::array({4096, 8192}));
}

TEST_CASE("cache_size: strides above the line count lines, not bytes (Saavedra's family of curves)") {
  // Fully associative, 128 lines of 128 B: at s = 32 B the knee is the size (16 KiB); at s = 512 B
  // every access holds a line of its own and N overflows at 128 x 512 B = 64 KiB.
  const auto cfg = RefCacheConfig::uniform(16384, 128, 128);
  TraceSet t;
  for (std::uint64_t s : {32u, 512u})
    for (std::uint64_t n = 2048; n <= (1u << 20); n *= 2) t.points.push_back(chain_point_of(t.points.size(), cfg, n, s));
  const auto all = test::analyze_all(t, "cache_size");
  REQUIRE(all.size() == 2);
  const Finding* small = nullptr;
  const Finding* large = nullptr;
  for (const auto& f : all) (f.details["series"]["stride_bytes"] == "32" ? small : large) = &f;
  REQUIRE(small != nullptr);
  REQUIRE(large != nullptr);
  INFO(small->to_json().dump());
  INFO(large->to_json().dump());
  CHECK(small->unit == "B");
  CHECK(small->value == 16384);
  CHECK(large->unit == "lines");
  CHECK(large->value == 128);
  CHECK(large->details["capacity_lines_bracket"] == nlohmann::json::array({128, 256}));
  CHECK(large->details["size_from_stride_bytes"] == 32);
}

namespace {

std::vector<Finding> real_trace_findings(const std::string& dir) {
  const Bundle b = read_bundle(std::string(DISSECT_TEST_DATA "/analyzers/gpu_traces/") + dir);
  return test::analyze_all(b.traces, "cache_size");
}

}  // namespace

TEST_CASE("cache_size: Meltzer's .cg sweep on an H100 and an H200 (real traces) finds no cache") {
  // L1 off and the L2 far larger than the sweep's 16 MiB: the rises are the near/far mix.
  for (const char* dir : {"h100_meltzer_saavedra_cg", "h200_meltzer_saavedra_cg"}) {
    CAPTURE(dir);
    const auto all = real_trace_findings(dir);
    CHECK(all.size() > 10);
    for (const auto& f : all) {
      INFO(f.summary);
      CHECK(f.value.is_null());
    }
  }
}

TEST_CASE("cache_size: Meltzer's .ca sweep on an H100 and an H200 (real traces): bracket at small strides, lines above") {
  for (const char* dir : {"h100_meltzer_saavedra_ca", "h200_meltzer_saavedra_ca"}) {
    CAPTURE(dir);
    std::size_t sizes = 0, lines = 0;
    for (const auto& f : real_trace_findings(dir)) {
      INFO(f.summary);
      if (f.value.is_null()) continue;
      const auto stride = std::stoull(f.details["series"]["stride_bytes"].get<std::string>());
      if (f.unit == "B") {
        // The L1 of these GPUs holds 200-240 KiB under the default carveout: the 2x grid
        // brackets it between 128 and 256 KiB, and the value never claims more than the grid.
        ++sizes;
        CHECK(stride <= 128);
        CHECK(f.details["bracket_bytes"] == nlohmann::json::array({131072, 262144}));
        CHECK(f.summary.find("128 KiB to 256 KiB") == 0);
      } else {
        ++lines;
        CHECK(f.unit == "lines");
        CHECK(stride > 128);
        CHECK(f.details["capacity_lines_bracket"] == nlohmann::json::array({1024, 2048}));
      }
    }
    CHECK(sizes == 6);
    CHECK(lines >= 4);
  }
}

TEST_CASE("cache_size: one SM's chain over a partitioned L2 (H100 and H200, real traces): knee, further capacity, lines") {
  // s = 128 B: near hits, then every access a near miss served by the far partition, then DRAM;
  // s = 512 B reaches part of the sets only and reads as lines.
  for (const char* dir : {"h100_mt4g_l2_size", "h200_mt4g_l2_size"}) {
    CAPTURE(dir);
    const auto all = real_trace_findings(dir);
    REQUIRE(all.size() == 2);
    for (const auto& f : all) {
      INFO(f.summary);
      const auto stride = f.details["series"]["stride_bytes"].get<std::string>();
      if (stride == "128") {
        CHECK(f.unit == "B");
        // The one-SM figure of these GPUs' topologies (23 and 28 MiB) lies at or just past the
        // bracket's end: misses begin below the point where a tenth of the accesses miss.
        CHECK(f.details["bracket_bytes"] == nlohmann::json::array({20u << 20, 24u << 20}));
        REQUIRE(f.details["further_knees"].size() == 1);
        const auto& k = f.details["further_knees"][0];
        // The whole L2 (50 / 60 MiB by the driver) fills before DRAM takes over.
        CHECK(k["bracket_bytes"][0].get<std::uint64_t>() >= (40u << 20));
        CHECK(k["bracket_bytes"][1].get<std::uint64_t>() <= (60u << 20));
        CHECK(k["latency_after_cycles"].get<double>() > 1.25 * k["latency_before_cycles"].get<double>());
      } else {
        CHECK(stride == "512");
        CHECK(f.unit == "lines");
      }
    }
  }
}

TEST_CASE("cache_size: a chain that climbs two plateaus reports the second capacity beside the first") {
  // Two capacities, 16 KiB (hits 100 -> 300 cycles) and 64 KiB (300 -> 600), on a 4 KiB grid.
  TraceSet t;
  for (std::uint64_t n = 4096; n <= 256 * 1024; n += 4096)
    t.points.push_back(chain_point(t.points.size(), n, 64, n <= 16384 ? 100.0 : n <= 65536 ? 300.0 : 600.0));
  const Finding f = test::analyze(t, "cache_size");
  INFO(f.to_json().dump());
  CHECK(f.value == 16384);
  REQUIRE(f.details["further_knees"].size() == 1);
  CHECK(f.details["further_knees"][0]["bracket_bytes"] == nlohmann::json::array({65536, 69632}));
  // A drift of a few percent between plateaus is no capacity.
  for (auto& p : t.points)
    for (auto& s : p.samples)
      if (s.latency > 500) s.latency = 310;
  const Finding g = test::analyze(t, "cache_size");
  INFO(g.to_json().dump());
  CHECK(g.value == 16384);
  CHECK_FALSE(g.details.contains("further_knees"));
}
