// Calibration of `confidence` (issue 17 item 4; docs/analyzers.md): on
// simulated GPUs whose truth is known, a finding at confidence >= 0.9 must be
// right at least 95 % of the time.
//
// The GPUs are generated, not chosen: from one base layout (an L1 and an L2 on
// the `ca` path, the L2 alone on `cg`, a texture path through the L1 or a cache
// of its own, two TLB levels, shared memory), a seeded generator draws the
// L1's line, sector, sets, ways, set-index blocking and replacement policy,
// every latency, the texture cache and its copies per SM, the TLB geometry and
// page size, the shared banks and their width, and the noise: uniform or normal
// jitter from none to 0.6 x the gap between the L1 and L2 hit latencies (where
// hits and misses cannot be told apart sample by sample), plus outliers. The
// experiments are the analyzers' test specs (tests/data/analyzers/specs),
// placed around the truth as `dissect topology` places them around what
// earlier steps measured; the analyzers are not told the truth. Each finding is
// scored against the profile's ground truth (Profile::ground_truth(), the
// model itself):
//   cache_size      the knee N <= C < N + one sweep step (the sweep's resolution)
//   latency_levels  the latencies the same sweep shows without noise: each on >= 1 %
//                   of the samples found, none under 0.25 %, medians within 5 % + 2 cycles
//   line_size       the line exactly; a fetch unit or lines-per-block it names must be the truth's
//   line_capacity   the line exactly
//   sets            sets, ways, capacity and lines per set block exactly
//   replacement     "lru" for LRU and FIFO (a cyclic chase cannot tell them apart), else "non-lru"
//   tlb             the number of levels, each level's entries, and its sets where it names them
//   page_size       the page exactly
//   bank_conflicts  banks and bank width exactly
//   sharing         shared exactly when the texture path's cache is the L1
//   amount          the texture path's cache's copies per SM
// docs/analyzers.md says what each analyzer's confidence is computed from.
// Everything is seeded: the same build gives the same table.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "engine/device/sim/sim_device.hpp"
#include "engine/run/analysis.hpp"
#include "engine/spec/spec.hpp"

using nlohmann::json;
using namespace dissect;

namespace {

const std::string kSpecs = std::string(DISSECT_TEST_DATA) + "/analyzers/specs/";

// splitmix64: std:: distributions differ between standard libraries, and the
// table must be the same everywhere.
struct Rng {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
  std::uint64_t between(std::uint64_t lo, std::uint64_t hi) { return lo + below(hi - lo + 1); }
  template <class T>
  T pick(const std::vector<T>& v) {
    return v[below(v.size())];
  }
};

std::string b(std::uint64_t bytes) { return std::to_string(bytes) + " B"; }

std::string fmt(double v, int digits = 2) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// Noise settings, by level: jitter as a share of the gap between the L1 and
// L2 hit latencies (or of the L1 hit latency, where smaller). Profile i gets
// level i mod the count, so that every level is equally represented; the rest
// of the profile is drawn at random.
const std::vector<double> kJitterShare = {0, 0.02, 0.05, 0.1, 0.2, 0.3, 0.45, 0.6};

struct Generated {
  int index = 0;
  std::string yaml;
  std::string noise_label;
};

// One GPU. Outlier rates stay below latency_levels' level floor (0.5 % of the
// samples, analyzers/latency_levels.cpp min_share): above it, outliers at a
// fixed extra delay are a latency level of the trace by that analyzer's
// definition, one the noise-free truth it is scored against does not have.
Generated generate(int index) {
  Rng r{0xca11b4a7e0000000ull + static_cast<std::uint64_t>(index)};
  Generated g;
  g.index = index;
  const std::uint64_t line = r.pick<std::uint64_t>({32, 64, 128, 256});
  const std::uint64_t sector = line == 128 && r.below(3) == 0 ? 32 : line;
  const std::uint64_t block = r.below(4) == 0 ? r.pick<std::uint64_t>({2, 4}) : 1;  // lines per set block
  std::uint64_t ways = 0, sets = 0;
  // Keep C between 2 and 64 KiB and the stage sweep (sets x block lines) short.
  do {
    ways = r.pick<std::uint64_t>({2, 3, 4, 6, 8, 12, 16});
    sets = r.pick<std::uint64_t>({4, 6, 8, 12, 16, 24, 32, 48, 64});
  } while (ways % block != 0 || sets * block > 64 || sets * ways * line < 2048 || sets * ways * line > 65536);
  const std::vector<std::string> policies = {"lru", "fifo", "random", "weighted"};
  const std::string policy = policies[r.below(policies.size())];
  std::string replacement = policy;
  if (policy == "weighted") {
    replacement = "{policy: weighted_random, weights: [";
    for (std::uint64_t w = 0; w < ways; ++w) replacement += (w ? ", " : "") + std::to_string(r.between(1, 4));
    replacement += "]}";
  }
  const std::string index_fn = block == 1 ? "modulo" : "{function: blocked, lines: " + std::to_string(block) + "}";
  const std::uint64_t overhead = r.between(0, 30);
  const std::uint64_t l1_lat = r.between(20, 120), miss_cost = r.between(0, 40);
  const std::uint64_t l2_lat = l1_lat + r.between(60, 400);
  const std::uint64_t dram = l2_lat + miss_cost + r.between(150, 500);
  // The scale noise is measured against: the gap between L1 and L2 hits (beyond
  // it single samples no longer tell hits from misses), or the L1 hit latency
  // where that is smaller (a jitter beyond the hit latency itself drives
  // latencies below zero, which the simulator clamps, and smears the hit level
  // into what no latency clustering takes for a level: such GPUs only add
  // undetermined findings).
  const double gap = std::min(static_cast<double>(l2_lat + miss_cost - l1_lat), static_cast<double>(l1_lat + overhead));

  const std::uint64_t page = r.pick<std::uint64_t>({64ull << 10, 2ull << 20});
  const std::uint64_t e1 = r.pick<std::uint64_t>({8, 12, 16, 24, 32});
  const std::uint64_t w2 = r.pick<std::uint64_t>({4, 8, 16});
  const std::uint64_t s2 = r.pick<std::uint64_t>({1, 2, 4, 8});
  const std::uint64_t e2 = (2 * e1 / (w2 * s2) + 1) * (w2 * s2);  // more than twice the first level
  const std::uint64_t p1 = r.between(8, 80), p2 = r.between(40, 300);

  const std::uint32_t banks = r.pick<std::uint32_t>({16, 32, 64});
  const std::uint64_t bank_width = r.pick<std::uint64_t>({4, 8});
  const std::uint64_t shared_lat = r.between(20, 60), conflict = r.between(2, 40);

  const double share = kJitterShare[static_cast<std::size_t>(index) % kJitterShare.size()];
  const bool normal = r.below(2) == 0;
  const double jitter = std::round(share * gap * 10) / 10;
  const double outlier_rate = r.pick<double>({0, 1e-4, 1e-3, 3e-3});
  const std::uint64_t outlier_cycles = r.between(100, 1000);

  // The texture path: the L1 itself (one physical cache with `ca`), or a cache
  // of its own with 1, 2 or 4 copies per SM (warp w uses copy w mod copies).
  const bool own_tex = r.below(2) == 0;
  const std::uint64_t tex_line = r.pick<std::uint64_t>({32, 64, 128});
  const std::uint64_t tex_ways = r.pick<std::uint64_t>({4, 8});
  const std::uint64_t tex_sets = r.pick<std::uint64_t>({8, 16, 32});
  const std::uint64_t tex_copies = r.pick<std::uint64_t>({1, 2, 4});
  const std::string tex_policy = r.below(2) == 0 ? "lru" : "random";
  const std::uint64_t tex_lat = l1_lat + r.between(0, (l2_lat - l1_lat) / 2);

  std::ostringstream y;
  y << "dissect_profile: 1\nname: cal-" << index << "\ndescription: generated by the calibration test\n"
    << "source: tests/analyzers/calibration_test.cpp\narch: sm_00\n"
    << "sm: {count: 4, clock_mhz: 1000, warp_size: 32}\n"
    << "timer_overhead: " << overhead << "\nseed: " << r.between(1, 1u << 30) << "\n"
    << "address: {base: 1 GiB, translation: identity, page: " << b(page) << "}\n"
    << "caches:\n"
    << "  l1: {size: " << b(sets * ways * line) << ", line: " << b(line) << ", sector: " << b(sector)
    << ", sets: " << sets << ", ways: " << ways << ", index: " << index_fn << ", replacement: " << replacement
    << ", latency: " << l1_lat << ", miss_cost: " << miss_cost << "}\n"
    << "  l2: {scope: device, size: 4 MiB, line: 128 B, ways: 32, index: xor, replacement: lru, latency: " << l2_lat
    << "}\n"
    << (own_tex ? "  tex_l1: {per_sm: " + std::to_string(tex_copies) + ", size: " + b(tex_sets * tex_ways * tex_line) +
                      ", line: " + b(tex_line) + ", ways: " + std::to_string(tex_ways) +
                      ", replacement: " + tex_policy + ", latency: " + std::to_string(tex_lat) + "}\n"
                : "")
    << "tlb:\n"
    << "  - {name: l1_tlb, page: " << b(page) << ", entries: " << e1 << ", replacement: lru, miss_penalty: " << p1
    << "}\n"
    << "  - {name: l2_tlb, page: " << b(page) << ", entries: " << e2 << ", ways: " << w2
    << ", replacement: lru, miss_penalty: " << p2 << "}\n"
    << "paths: {ca: [l1, l2], cg: [l2], tex: [" << (own_tex ? "tex_l1" : "l1") << ", l2]}\n"
    << "dram: {latency: " << dram << "}\n"
    << "shared: {size: 48 KiB, banks: " << banks << ", bank_width: " << b(bank_width) << ", latency: " << shared_lat
    << ", conflict_cycles: " << conflict << "}\n";
  if (jitter > 0 || outlier_rate > 0) {
    y << "noise: {seed: " << r.between(1, 1u << 30) << ", jitter: " << jitter
      << ", distribution: " << (normal ? "normal" : "uniform") << ", outlier_rate: " << outlier_rate
      << ", outlier_cycles: " << outlier_cycles << "}\n";
  }
  g.yaml = y.str();
  std::ostringstream n;
  n << (jitter > 0 ? (normal ? "normal " : "uniform ") : "") << "jitter " << share << " x gap";
  if (outlier_rate > 0) n << ", outliers " << outlier_rate;
  g.noise_label = n.str();
  return g;
}

// A spec of tests/data/analyzers/specs with `--set` overrides, run point by
// point on the device, then the named analyzers.
TraceSet run_spec_points(sim::SimDevice& dev, const std::string& spec, const std::vector<std::string>& sets) {
  LoadOptions o;
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    o.overrides.push_back({s.substr(0, eq), s.substr(eq + 1)});
  }
  const Spec sp = load_spec(kSpecs + spec, o);
  TraceSet t;
  t.source = spec;
  for (const Point& p : sp.expand()) t.points.push_back(dev.run_point(p));
  return t;
}

std::vector<Finding> analyze(const TraceSet& t, const std::vector<std::string>& analyzers) {
  std::vector<AnalysisRequest> req;
  for (const auto& a : analyzers) req.push_back({a, json::object()});
  return run_analyzers(t, req);
}

std::uint64_t blocked_lines(const std::string& index) {
  std::smatch m;
  static const std::regex re(R"(blocked \((\d+) consecutive)");
  return std::regex_search(index, m, re) ? std::stoul(m[1]) : 1;
}

std::uint64_t u64(const json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<std::uint64_t>() : 0;
}

// One scored finding.
struct Scored {
  std::string analyzer;
  double confidence = 0;
  bool determined = false;  // value not null
  bool right = false;
  int profile = 0;
  std::string noise;
  std::string summary;
  std::string truth;
};

// DISSECT_CALIBRATION_LOG=1: every generated profile (its YAML: save it and run
// `dissect run <spec> --device sim:<file>` to reproduce) and every scored finding on stderr.
bool log_enabled() {
  static const bool log = std::getenv("DISSECT_CALIBRATION_LOG") != nullptr;
  return log;
}

struct Scorer {
  std::vector<Scored> all;
  void add(const Generated& g, const Finding& f, bool right, const std::string& truth) {
    if (log_enabled())
      std::fprintf(stderr, "profile %d [%s] %s conf %.3f %s: %s | %s | reason: %s\n", g.index, g.noise_label.c_str(),
                   f.analyzer.c_str(), f.confidence, f.value.is_null() ? "null" : (right ? "right" : "WRONG"),
                   f.summary.c_str(), truth.c_str(), f.details.value("reason", std::string()).c_str());
    all.push_back({f.analyzer, f.confidence, !f.value.is_null(), right && !f.value.is_null(), g.index, g.noise_label,
                   f.summary, truth});
  }
};

void score_profile(const Generated& g, Scorer& sc) {
  if (log_enabled()) std::fprintf(stderr, "=== profile %d\n%s", g.index, g.yaml.c_str());
  sim::SimDevice dev(sim::load_profile_text(g.yaml, "cal-" + std::to_string(g.index) + ".yaml"),
                     "sim:cal-" + std::to_string(g.index));
  const json truth = dev.profile().ground_truth();
  const json& l1 = truth["caches"]["l1"];
  const std::uint64_t c = u64(l1, "size_bytes"), line = u64(l1, "line_bytes"), sector = u64(l1, "sector_bytes");
  const std::uint64_t sets = u64(l1, "sets"), ways = u64(l1, "ways");
  const std::uint64_t block = blocked_lines(l1["index"].get<std::string>());
  const std::string policy = l1["replacement"].get<std::string>();
  const bool lru_like = policy == "lru" || policy == "fifo";
  const std::string geometry = std::to_string(sets) + " sets x " + std::to_string(ways) + " ways x " + b(line) +
                               " (sector " + b(sector) + ", " + std::to_string(block) + " lines per set block, " +
                               policy + ")";
  Rng r{0x5eedull * 1000003ull + static_cast<std::uint64_t>(g.index)};

  // Size sweep over C / 2 .. 3 C / 2 at a step of C / 16 .. C / 48 with a random
  // offset (no point need fall on C), the stride the fetch unit (as the
  // topology's size steps run it); latency levels on the same points, their
  // truth the latencies the same sweep gives without noise: each latency of
  // the hierarchy holding at least 1 % of those samples must be found, and
  // none holding under 0.25 % (latency_levels' floor is 0.5 %) may be.
  {
    const std::uint64_t step =
        std::max<std::uint64_t>(sector, (c / r.pick<std::uint64_t>({16, 24, 32, 48})) / sector * sector);
    const std::uint64_t from = std::max<std::uint64_t>(step, c / 2 - r.below(step / sector) * sector);
    const std::vector<std::string> sweep = {
        "array.stride=" + b(sector),
        "sweep.array.size={from: " + b(from) + ", to: " + b(c + c / 2) + ", step: " + b(step) + "}"};
    const TraceSet t = run_spec_points(dev, "size_sweep.yaml", sweep);
    sim::Profile quiet_profile = dev.profile();
    quiet_profile.noise = sim::NoiseSpec{};
    sim::SimDevice quiet(std::move(quiet_profile), "sim:quiet");
    std::map<double, std::size_t> exact;  // noise-free latency -> samples
    std::size_t total = 0;
    for (const auto& p : run_spec_points(quiet, "size_sweep.yaml", sweep).points)
      for (const Sample* smp : p.measured_samples()) ++exact[smp->latency], ++total;
    std::vector<double> required, allowed;
    std::string levels;
    for (const auto& [lat, n] : exact) {
      const double share = static_cast<double>(n) / static_cast<double>(total);
      if (share >= 0.01) required.push_back(lat);
      if (share < 0.0025) continue;
      allowed.push_back(lat);
      levels += (levels.empty() ? "" : ", ") + fmt(lat, 0) + " (" + fmt(100 * share, 1) + " %)";
    }
    auto near = [](double a, double want) { return std::fabs(a - want) <= 2 + 0.05 * want; };
    for (const Finding& f : analyze(t, {"cache_size", "latency_levels"})) {
      if (f.analyzer == "cache_size") {
        const std::uint64_t v = f.value.is_number() ? f.value.get<std::uint64_t>() : 0;
        sc.add(g, f, v <= c && c < v + step, "C = " + b(c) + ", step " + b(step));
        continue;
      }
      std::vector<double> found;
      if (f.value.is_number())
        for (const auto& l : f.details["levels"]) found.push_back(l["median"].get<double>());
      bool right = found.size() >= required.size() && found.size() <= allowed.size();
      for (double m : found)
        right = right && std::any_of(allowed.begin(), allowed.end(), [&](double w) { return near(m, w); });
      for (double w : required)
        right = right && std::any_of(found.begin(), found.end(), [&](double m) { return near(m, w); });
      sc.add(g, f, right, "levels without noise: " + levels);
    }
  }
  // Line: a 4 B chase at 2 C (dense misses), C + 4 B (one set overflowed) and C;
  // where the misses come in runs of g fetch units, a chase with stride g x fetch
  // at 2 C decides sectors from blocked lines (the analyzer says which stride).
  {
    TraceSet t = run_spec_points(dev, "line.yaml",
                                 {"sweep={zip: [{array.size: [" + b(2 * c) + ", " + b(c + 4) + ", " + b(c) +
                                  "], array.stride: [4 B, 4 B, 4 B]}]}"});
    Finding f = analyze(t, {"line_size"}).front();
    if (f.details.contains("miss_group_bytes")) {
      const TraceSet more = run_spec_points(dev, "line.yaml",
                                            {"sweep={zip: [{array.size: [" + b(2 * c) + "], array.stride: [" +
                                             b(f.details["miss_group_bytes"].get<std::uint64_t>()) + "]}]}"});
      for (auto p : more.points) {
        p.point_id = t.points.size();
        t.points.push_back(std::move(p));
      }
      f = analyze(t, {"line_size"}).front();
    }
    const bool fetch_ok = !f.details.contains("fetch_bytes") || !f.details["fetch_bytes"].is_number() ||
                          f.details["fetch_bytes"].get<std::uint64_t>() == sector;
    const bool block_ok = !f.details.contains("lines_per_block") || u64(f.details, "lines_per_block") == block;
    sc.add(g, f, f.value.is_number() && f.value.get<std::uint64_t>() == line && fetch_ok && block_ok, geometry);
  }
  // Line by occupancy, as the topology's line_blocks step runs it: chain timing,
  // one access per block of 32 B .. 1 KiB at N = 1.25 C.
  {
    const TraceSet t =
        run_spec_points(dev, "size_search.yaml",
                        {"timing.mode=chain", "timing.clock=clock64", "repeats=3", "iterations=16384",
                         "array.size=" + b((c + c / 4) / 4 * 4), "array.stride=4 B", "array.pattern=page_random",
                         "array.page=32 B", "sweep={array.page: [32 B, 64 B, 128 B, 256 B, 512 B, 1 KiB]}"});
    const Finding f = analyze(t, {"line_capacity"}).front();
    sc.add(g, f, f.value.is_number() && f.value.get<std::uint64_t>() == line, geometry);
  }
  // The stage method, s = b, N = C - 2b .. C + (sets x block + 4) b, and the
  // periodicity test on the same points.
  {
    const TraceSet t = run_spec_points(
        dev, "stages.yaml",
        {"array.stride=" + b(line), "sweep.array.size={from: " + b(c - 2 * line) +
                                        ", to: " + b(c + (sets * block + 4) * line) + ", step: " + b(line) + "}"});
    for (const Finding& f : analyze(t, {"sets", "replacement"})) {
      if (f.analyzer == "sets") {
        const bool right = f.value.is_number() && f.value.get<std::uint64_t>() == sets &&
                           u64(f.details, "ways") == ways && u64(f.details, "size_bytes") == c &&
                           u64(f.details, "lines_per_block") == block;
        sc.add(g, f, right, geometry);
      } else {
        sc.add(g, f, f.value == (lru_like ? "lru" : "non-lru"), geometry);
      }
    }
  }
  // A long run at N = C + b (seed 003's replacement experiment).
  {
    const TraceSet t =
        run_spec_points(dev, "replacement.yaml", {"array.size=" + b(c + line), "array.stride=" + b(line)});
    const Finding f = analyze(t, {"replacement"}).front();
    sc.add(g, f, f.value == (lru_like ? "lru" : "non-lru"), geometry);
  }
  // TLB levels: s = one page, N from 1 page one page at a time to past the L2
  // TLB's reach plus one page per set.
  const json& tlb = truth["tlb"];
  const std::uint64_t page = u64(tlb[0], "page_bytes");
  {
    const std::uint64_t pages = u64(tlb[1], "entries") + u64(tlb[1], "sets") + 4;
    const TraceSet t =
        run_spec_points(dev, "tlb.yaml",
                        {"array.stride=" + b(page), "sweep.array.size={from: " + b(page) + ", to: " + b(pages * page) +
                                                        ", step: " + b(page) + "}"});
    const Finding f = analyze(t, {"tlb"}).front();
    bool right = f.value.is_number() && f.value.get<std::size_t>() == tlb.size();
    std::string want;
    for (std::size_t i = 0; i < tlb.size(); ++i) {
      want += (i ? ", " : "") + std::to_string(u64(tlb[i], "entries")) + " entries in " +
              std::to_string(u64(tlb[i], "sets")) + " sets";
      if (!right) continue;
      const json& l = f.details["levels"][i];
      right = u64(l, "entries") == u64(tlb[i], "entries") &&
              (!l.contains("sets") || !l["sets"].is_number() || u64(l, "sets") == u64(tlb[i], "sets"));
    }
    sc.add(g, f, right, want);
  }
  // Page size: N = 4 x the L2 TLB's reach, the stride doubling from page / 32 to 16 pages.
  {
    const TraceSet t =
        run_spec_points(dev, "page.yaml",
                        {"array.size=" + b(4 * u64(tlb[1], "entries") * page),
                         "sweep.array.stride={from: " + b(page / 32) + ", to: " + b(16 * page) + ", factor: 2}"});
    const Finding f = analyze(t, {"page_size"}).front();
    sc.add(g, f, f.value.is_number() && f.value.get<std::uint64_t>() == page, "page " + b(page));
  }
  // Do `ca` and `tex` share a cache? Each array 3/4 of the smaller cache: alone
  // it fits, together they overflow one cache.
  std::string tex_cache;  // the path's first cache (its steps may name the TLB first)
  for (const auto& step : truth["paths"]["tex"])
    if (tex_cache.empty() && step != "tlb") tex_cache = step.get<std::string>();
  const json& tex = truth["caches"][tex_cache];
  {
    const std::uint64_t each = std::min(c, u64(tex, "size_bytes")) * 3 / 4 / 32 * 32;
    const TraceSet t = run_spec_points(dev, "sharing.yaml", {"arrays.a.size=" + b(each), "arrays.b.size=" + b(each)});
    const Finding f = analyze(t, {"sharing"}).front();
    sc.add(g, f, f.value == (tex_cache == "l1"), tex_cache == "l1" ? "one cache" : "separate caches");
  }
  // Texture caches per SM: thread 0 against a test thread in warps 1 .. 31, each
  // array 3/4 of one cache.
  {
    const std::uint64_t each = u64(tex, "size_bytes") * 3 / 4 / 32 * 32;
    const TraceSet t =
        run_spec_points(dev, "amount.yaml", {"arrays.base.size=" + b(each), "arrays.test.size=" + b(each)});
    const Finding f = analyze(t, {"amount"}).front();
    sc.add(g, f, f.value.is_number() && f.value.get<std::uint64_t>() == u64(tex, "per_sm"),
           std::to_string(u64(tex, "per_sm")) + " per SM");
  }
  // Shared-memory banks: lane t at t x stride, strides 0 .. 64 words.
  {
    const TraceSet t = run_spec_points(dev, "shared.yaml", {});
    const Finding f = analyze(t, {"bank_conflicts"}).front();
    const json& sh = truth["shared"];
    sc.add(g, f,
           f.value.is_number() && f.value.get<std::uint64_t>() == u64(sh, "banks") &&
               u64(f.details, "bank_width_bytes") == u64(sh, "bank_width_bytes"),
           std::to_string(u64(sh, "banks")) + " banks x " + b(u64(sh, "bank_width_bytes")));
  }
}

}  // namespace

TEST_CASE("calibration: findings at confidence >= 0.9 are right 95 % of the time on generated noisy GPUs") {
  const int profiles = 160;
  const auto t0 = std::chrono::steady_clock::now();
  Scorer sc;
  for (int i = 0; i < profiles; ++i) score_profile(generate(i), sc);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  // The reliability table: per analyzer and confidence bin, how many findings
  // and the share of them that are right (undetermined findings: their own row).
  const std::vector<double> edges = {0, 0.5, 0.7, 0.9, 0.95, 1.0000001};
  std::map<std::string, std::vector<std::pair<int, int>>> bins;  // analyzer -> (count, right) per bin
  std::map<std::string, int> undetermined;
  for (const auto& s : sc.all) {
    auto& v = bins[s.analyzer];
    v.resize(edges.size() - 1);
    if (!s.determined) {
      ++undetermined[s.analyzer];
      continue;
    }
    for (std::size_t k = 0; k + 1 < edges.size(); ++k)
      if (s.confidence >= edges[k] && s.confidence < edges[k + 1]) ++v[k].first, v[k].second += s.right ? 1 : 0;
  }
  std::string table = "reliability over " + std::to_string(profiles) + " generated GPUs (" + fmt(seconds, 1) +
                      " s): count (right share) per confidence bin\n";
  table += "analyzer        undet.  [0,.5)       [.5,.7)      [.7,.9)      [.9,.95)     [.95,1]\n";
  for (const auto& [a, v] : bins) {
    std::string row = a;
    row.resize(16, ' ');
    std::string u = std::to_string(undetermined[a]);
    u.resize(8, ' ');
    row += u;
    for (const auto& [n, k] : v) {
      std::string cell = n == 0 ? "-" : std::to_string(n) + " (" + fmt(static_cast<double>(k) / n) + ")";
      cell.resize(13, ' ');
      row += cell;
    }
    table += row + "\n";
  }
  MESSAGE(table);

  // The claim, per analyzer: at confidence >= 0.9, at least 95 % right.
  const std::size_t min_confident = 30;
  int pooled_n = 0, pooled_right = 0;
  for (const auto& [a, v] : bins) {
    std::vector<const Scored*> confident;
    for (const auto& s : sc.all)
      if (s.analyzer == a && s.determined && s.confidence >= 0.9) confident.push_back(&s);
    const auto right = std::count_if(confident.begin(), confident.end(), [](const Scored* s) { return s->right; });
    std::string wrong;
    for (const auto* s : confident)
      if (!s->right)
        wrong += "\n  profile " + std::to_string(s->profile) + " (" + s->noise + "), confidence " +
                 fmt(s->confidence, 3) + ": " + s->summary + " | truth: " + s->truth;
    pooled_n += static_cast<int>(confident.size());
    pooled_right += static_cast<int>(right);
    // Power as well as calibration: an analyzer that fell back to "undetermined" or to low
    // confidence everywhere would pass the share check with nothing to check.
    INFO(a << ": " << right << " of " << confident.size() << " confident findings right" << wrong);
    CHECK(confident.size() >= min_confident);
    CHECK(static_cast<double>(right) >= 0.95 * static_cast<double>(confident.size()));
  }
  INFO("pooled: " << pooled_right << " of " << pooled_n);
  CHECK(pooled_n >= static_cast<int>(min_confident));
  CHECK(static_cast<double>(pooled_right) >= 0.95 * pooled_n);
}
