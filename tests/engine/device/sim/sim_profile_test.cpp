#include "engine/device/sim/sim_profile.hpp"

#include <doctest/doctest.h>

#include <filesystem>

using namespace dissect;
using namespace dissect::sim;

namespace {

const char* kMinimal = R"(dissect_profile: 1
name: tiny
description: a small test GPU
sm: {count: 2, clock_mhz: 1000}
timer_overhead: 10
caches:
  l1:
    size: 4 KiB
    line: 128 B
    sector: 32 B
    ways: 4
    latency: 30
    miss_cost: 5
  tex:
    size: 2 KiB
    line: 32 B
    sets: 4
    index: {function: blocked, lines: 4}
    latency: 80
  l2:
    scope: device
    size: 64 KiB
    line: 32 B
    ways: 8
    index: xor
    replacement: {policy: weighted_random, weights: [1, 1, 1, 1, 2, 2, 2, 2]}
    latency: 200
    partitions: {count: 2, far_latency: 300}
tlb:
  - {name: l1_tlb, page: 2 MiB, entries: 16, miss_penalty: 20}
  - {name: l2_tlb, page: 2 MiB, set_ways: [3, 2], index: {function: table, table: [0, 1, 1]}, miss_penalty: 80}
paths:
  ca: [l1, l2]
  cg: [l2]
  tex: [tex, {cache: l2, latency: 190}]
  ldg: [tex, l2]
dram: {latency: 500}
shared: {banks: 32, bank_width: 4 B, latency: 25, conflict_cycles: 20}
noise: {seed: 3, jitter: 2, outlier_rate: 0.01, outlier_cycles: 100}
)";

// The first error's "file:line:col: message".
std::string first_error(const std::string& text) {
  try {
    load_profile_text(text, "p.yaml");
  } catch (const SpecError& e) {
    return e.diagnostics().errors().front().str();
  }
  return "";
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const auto pos = s.find(from);
  REQUIRE(pos != std::string::npos);
  return s.replace(pos, from.size(), to);
}

}  // namespace

TEST_CASE("a profile decodes into caches, TLB levels, paths and the rest") {
  const Profile p = load_profile_text(kMinimal, "tiny.yaml");
  CHECK(p.name == "tiny");
  CHECK(p.sm_count == 2);
  CHECK(p.clock_khz == 1e6);
  CHECK(p.timer_overhead == 10);
  REQUIRE(p.caches.size() == 3);
  const CacheSpec& l1 = p.caches[0];
  CHECK(l1.per_sm);
  CHECK(l1.geometry.sets() == 8);  // 4 KiB / (128 B x 4 ways)
  CHECK(l1.geometry.uniform_ways() == 4);
  CHECK(l1.geometry.sector_bytes == 32);
  CHECK(l1.miss_cost == 5);
  const CacheSpec& tex = p.caches[1];
  CHECK(tex.geometry.sets() == 4);
  CHECK(tex.geometry.uniform_ways() == 16);  // 2 KiB / 32 B / 4 sets
  CHECK(tex.geometry.index.kind == IndexFunction::Kind::blocked);
  CHECK(tex.geometry.index.block_lines == 4);
  const CacheSpec& l2 = p.caches[2];
  CHECK_FALSE(l2.per_sm);
  CHECK(l2.geometry.index.kind == IndexFunction::Kind::xor_hash);
  CHECK(l2.geometry.index.xor_masks.size() == 8);  // 256 sets: an 8-bit fold
  CHECK(l2.geometry.replacement.kind == Replacement::Kind::weighted_random);
  CHECK(l2.partitions.count == 2);
  CHECK(l2.partitions.far_latency == 300);
  REQUIRE(p.tlb.size() == 2);
  CHECK(p.tlb[0].geometry.sets() == 1);  // entries without ways: fully associative
  CHECK(p.tlb[0].geometry.uniform_ways() == 16);
  CHECK(p.tlb[1].geometry.set_ways == std::vector<std::uint32_t>{3, 2});
  CHECK(p.translation_page == 2u << 20);
  // Paths: translation first unless placed; per-path latency override; tex shared by two paths.
  const PathSpec& ca = p.path(LoadPath::ca);
  REQUIRE(ca.steps.size() == 3);
  CHECK(ca.steps[0].kind == PathStep::Kind::tlb);
  CHECK(ca.steps[1].cache == 0);
  CHECK(ca.steps[2].cache == 2);
  CHECK(p.path(LoadPath::tex).steps[2].latency == 190);
  CHECK(p.path(LoadPath::ldg).steps[1].cache == p.path(LoadPath::tex).steps[1].cache);
  CHECK_FALSE(p.path(LoadPath::constant).defined);
  CHECK(p.shared.conflict_cycles == 20);
  CHECK(p.noise.enabled());
  CHECK(p.summary() == "device profile tiny: 3 caches, 2 TLB levels, 2 SMs @ 1000 MHz");
  CHECK(p.ground_truth()["caches"]["l1"]["sets"] == 8);
}

TEST_CASE("a coalesced TLB level: an entry translates pages_per_entry consecutive pages") {
  const Profile p = load_profile_text(
      replace(kMinimal, "  - {name: l1_tlb, page: 2 MiB, entries: 16, miss_penalty: 20}",
              "  - {name: l1_tlb, page: 2 MiB, pages_per_entry: 16, entries: 16, miss_penalty: 20}"),
      "tiny.yaml");
  REQUIRE(p.tlb.size() == 2);
  CHECK(p.tlb[0].page_bytes == 2u << 20);
  CHECK(p.tlb[0].pages_per_entry == 16);
  CHECK(p.tlb[0].geometry.line_bytes == 32u << 20);  // the model's line: one entry's reach
  CHECK(p.tlb[1].pages_per_entry == 1);
  CHECK(p.tlb[1].geometry.line_bytes == 2u << 20);
  CHECK(p.translation_page == 2u << 20);  // translation stays per page
  const auto t = p.ground_truth()["tlb"];
  CHECK(t[0]["page_bytes"] == 2u << 20);
  CHECK(t[0]["pages_per_entry"] == 16);
  CHECK(t[0]["reach_bytes"] == 32u << 20);
  CHECK(t[0]["coverage_bytes"] == 512u << 20);
  CHECK(t[1]["reach_bytes"] == 2u << 20);
}

TEST_CASE("profile errors name file:line:col") {
  // Unknown key, with a suggestion.
  CHECK(first_error(replace(kMinimal, "    miss_cost: 5", "    mis_cost: 5")) ==
        "p.yaml:13:5: unknown key 'caches.l1.mis_cost'; did you mean 'caches.l1.miss_cost'?");
  // A size that is not a size.
  CHECK(first_error(replace(kMinimal, "size: 4 KiB", "size: 4 KiBB")).rfind("p.yaml:8:11: caches.l1.size:", 0) == 0);
  // Sizes are bytes, not elements.
  CHECK(first_error(replace(kMinimal, "size: 4 KiB", "size: 1024 elements")).find("not elements") != std::string::npos);
  // Associativity that does not divide the cache.
  CHECK(first_error(replace(kMinimal, "    ways: 4\n", "    ways: 3\n")) ==
        "p.yaml:11:11: caches.l1.ways (3) does not divide the 32 lines");
  // Weights per way.
  CHECK(first_error(replace(kMinimal, "weights: [1, 1, 1, 1, 2, 2, 2, 2]", "weights: [1, 3, 1, 1]")) ==
        "p.yaml:26:18: caches.l2.replacement: 4 weights for 8 ways; give one weight per way");
  // A table naming a set that does not exist.
  CHECK(first_error(replace(kMinimal, "table: [0, 1, 1]", "table: [0, 1, 2]")).find("table names set 2") !=
        std::string::npos);
  // Bits that select a different number of sets.
  CHECK(first_error(replace(kMinimal, "index: {function: blocked, lines: 4}", "index: {function: bits, bits: [7]}")) ==
        "p.yaml:18:12: caches.tex.index: 1 bit(s) select 2 sets, but the cache has 4");
  // A path naming an unknown cache.
  CHECK(first_error(replace(kMinimal, "ca: [l1, l2]", "ca: [l1, l3]")) ==
        "p.yaml:33:12: paths.ca: no cache named 'l3' under caches:; did you mean 'l1'?");
  // An unknown load path.
  CHECK(first_error(replace(kMinimal, "  cg: [l2]", "  cgg: [l2]")).find("unknown load path 'cgg'; did you mean 'cg'?") !=
        std::string::npos);
  // An unknown policy value.
  CHECK(first_error(replace(kMinimal, "policy: weighted_random", "policy: lfu")).find("unknown value 'lfu'") !=
        std::string::npos);
  // The format marker.
  CHECK(first_error(replace(kMinimal, "dissect_profile: 1", "dissect_profile: 2")).rfind("p.yaml:1:18:", 0) == 0);
  CHECK(first_error(replace(kMinimal, "dissect_profile: 1\n", "")).find("missing 'dissect_profile: 1'") !=
        std::string::npos);
  // A required field.
  CHECK(first_error(replace(kMinimal, "    latency: 30\n", "")).find("caches.l1.latency is required") !=
        std::string::npos);
  // Partitions belong to device-level caches.
  CHECK(first_error(replace(kMinimal, "    miss_cost: 5\n", "    miss_cost: 5\n    partitions: {count: 2, far_latency: 9}\n"))
            .find("only a scope device cache") != std::string::npos);
}

TEST_CASE("coalesced entries: a power of two, and contiguous frames") {
  const std::string coalesced = replace(kMinimal, "  - {name: l1_tlb, page: 2 MiB, entries: 16, miss_penalty: 20}",
                                        "  - {name: l1_tlb, page: 2 MiB, pages_per_entry: 12, entries: 16, miss_penalty: 20}");
  CHECK(first_error(coalesced).find("tlb[].pages_per_entry must be a power of two") != std::string::npos);
  const std::string scrambled =
      replace(replace(kMinimal, "  - {name: l1_tlb, page: 2 MiB, entries: 16, miss_penalty: 20}",
                      "  - {name: l1_tlb, page: 2 MiB, pages_per_entry: 16, entries: 16, miss_penalty: 20}"),
              "timer_overhead: 10\n", "timer_overhead: 10\naddress: {translation: scrambled}\n");
  CHECK(first_error(scrambled).find("needs contiguous frames: address.translation must be identity") !=
        std::string::npos);
}

TEST_CASE("every problem of a profile is reported at once") {
  std::string text = replace(kMinimal, "    ways: 4\n", "    ways: 3\n");
  text = replace(text, "ca: [l1, l2]", "ca: [l1, l3]");
  text = replace(text, "latency: 500", "latency: fast");
  try {
    load_profile_text(text, "p.yaml");
    FAIL("no error");
  } catch (const SpecError& e) {
    CHECK(e.diagnostics().size() >= 3);
  }
}

TEST_CASE("carveout picks the L1 configuration like the driver") {
  const std::string text = replace(kMinimal, "    miss_cost: 5\n", R"(    miss_cost: 5
    carveout:
      default_shared: 48 KiB
      configs:
        - {shared: 48 KiB, size: 16 KiB}
        - {shared: 16 KiB, size: 48 KiB, ways: 6}
)");
  const std::string fixed = replace(text, "size: 4 KiB", "size: 16 KiB");
  const Profile p = load_profile_text(fixed, "p.yaml");
  CHECK(p.geometry_for(0, kCarveoutMaxL1).capacity_bytes() == 48 * 1024);
  CHECK(p.geometry_for(0, kCarveoutMaxL1).uniform_ways() == 6);
  CHECK(p.geometry_for(0, kCarveoutMaxShared).capacity_bytes() == 16 * 1024);
  CHECK(p.geometry_for(0, kCarveoutDriverDefault).capacity_bytes() == 16 * 1024);
  CHECK(p.geometry_for(0, 25).capacity_bytes() == 48 * 1024);  // 25 % of 64 KiB = 16 KiB shared
  CHECK(p.geometry_for(0, 26).capacity_bytes() == 16 * 1024);  // rounded up to 48 KiB shared
  // A default that is not a configuration.
  CHECK(first_error(replace(fixed, "default_shared: 48 KiB", "default_shared: 32 KiB"))
            .find("is not the shared size of any config") != std::string::npos);
}

TEST_CASE("every profile of the library is valid and cites its sources") {
  const std::filesystem::path dir = std::filesystem::path(DISSECT_SOURCE_DIR) / "specs" / "devices";
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".yaml") continue;
    ++n;
    CAPTURE(e.path().string());
    Profile p;
    CHECK_NOTHROW(p = load_profile_file(e.path().string()));
    CHECK(p.name == e.path().stem().string());
    CHECK_FALSE(p.description.empty());
    CHECK_FALSE(p.source.empty());
    CHECK(p.path(LoadPath::ca).defined);
    CHECK(p.path(LoadPath::cg).defined);
    CHECK(p.path(LoadPath::tex).defined);
  }
  CHECK(n >= 5);
}

TEST_CASE("profile names resolve to the library; unknown names list the available ones") {
  const auto names = profile_names();
  CHECK(std::find(names.begin(), names.end(), "fermi-gtx560ti") != names.end());
  CHECK(resolve_profile_path("fermi-gtx560ti").ends_with("devices/fermi-gtx560ti.yaml"));
  try {
    resolve_profile_path("fermi-gtx560");
    FAIL("no error");
  } catch (const RunError& e) {
    const std::string m = e.what();
    CHECK(m.find("no device profile 'fermi-gtx560'") != std::string::npos);
    CHECK(m.find("did you mean 'sim:fermi-gtx560ti'?") != std::string::npos);
    CHECK(m.find("sim:tesla-c2070") != std::string::npos);
  }
}

TEST_CASE("stores: write policy by scope unless given, store bandwidths default to the load ones") {
  const Profile p = load_profile_text(kMinimal, "tiny.yaml");
  // Defaults: an SM's cache writes through, a device's writes back; stores as fast as loads.
  CHECK_FALSE(p.caches[0].write_back);
  CHECK(p.caches[2].write_back);
  CHECK(p.caches[0].store_bandwidth() == p.caches[0].bandwidth);
  CHECK(p.dram_store_bandwidth() == p.dram_bandwidth);
  CHECK(p.shared.store_bandwidth() == 32.0 * 4);  // banks x width
  const Profile q = load_profile_text(
      replace(replace(replace(kMinimal, "    miss_cost: 5\n", "    miss_cost: 5\n    write: back\n    bandwidth: 64\n"
                                                               "    write_bandwidth: 16\n"),
                      "dram: {latency: 500}", "dram: {latency: 500, bandwidth: 90, write_bandwidth: 70}"),
              "conflict_cycles: 20}", "conflict_cycles: 20, write_bandwidth: 48}"),
      "tiny.yaml");
  CHECK(q.caches[0].write_back);
  CHECK(q.caches[0].store_bandwidth() == 16);
  CHECK(q.dram_store_bandwidth() == 70);
  CHECK(q.shared.store_bandwidth() == 48);
  CHECK(q.shared.load_bandwidth() == 128);
  const auto truth = q.ground_truth();
  CHECK(truth["caches"]["l1"]["write"] == "back");
  CHECK(truth["caches"]["l1"]["write_bandwidth_bytes_per_cycle"] == 16);
  CHECK(truth["caches"]["l2"]["write"] == "back");
  CHECK(truth["dram"]["write_bandwidth_bytes_per_cycle"] == 70);
  CHECK(truth["shared"]["write_bandwidth_bytes_per_cycle"] == 48);
  // A policy that is neither.
  CHECK(first_error(replace(kMinimal, "    miss_cost: 5\n", "    miss_cost: 5\n    write: around\n"))
            .find("p.yaml:14:12: caches.l1.write: unknown value 'around'") != std::string::npos);
}
