// End-to-end: the topology's TLB and page steps on simulated GPUs whose TLBs are
// unlike the seed profiles' (written for these tests: specs/devices/tlb-*.yaml):
// entries that coalesce 16 pages, 64 KiB pages, three levels whose penalties add
// up over an L2 of near and far halves, a large fully associative level. Each
// must come out as its profile describes it (tests/support/tlb_truth.hpp); so must a level of
// two sets that replaces at random (specs/devices/tlb-random.yaml). A level whose set index
// takes one address bit as it is and hashes the others (specs/devices/tlb-setbit.yaml)
// comes out as bounds that hold the truth, never as figures it lacks.
#include <doctest/doctest.h>

#include <atomic>

#include "engine/device/device.hpp"
#include "engine/device/sim/sim_profile.hpp"
#include "engine/topology/topology_runner.hpp"
#include "support/temp_dir.hpp"
#include "support/tlb_truth.hpp"

using namespace dissect;
using json = nlohmann::json;

namespace {

json tlb_topology(const std::string& profile) {
  auto device = open_device("sim:" + profile);
  test::TempDir out;
  TopologyOptions o;
  o.out_dir = out.path();
  o.only = {"tlb", "page_size", "page_size_scattered", "tlb_entries", "tlb_sets", "tlb_spread", "tlb_reach", "tlb_scope"};
  std::atomic<bool> stop{false};
  json r = run_topology(*device, o, stop);
  REQUIRE(r["status"] == "complete");
  for (const auto& e : r["experiments"]) {
    CAPTURE(e.dump().substr(0, 2000));
    CHECK(e["status"] != "failed");
  }
  return r;
}

sim::Profile truth(const std::string& profile) { return sim::load_profile_file(sim::resolve_profile_path(profile)); }

}  // namespace

TEST_CASE("topology TLB: entries of 16 coalesced 2 MiB pages; one allocation shows their reach, scattered frames the page") {
  const json r = tlb_topology("tlb-coalesced");
  test::check_tlb_truth(r, truth("tlb-coalesced"));
  CHECK(r["tlb"]["page_granule_bytes"] == 32ull << 20);
  CHECK(r["tlb"]["page_method"] == "scattered frames");
}

TEST_CASE("topology TLB: 64 KiB pages, found from strides below them") {
  const json r = tlb_topology("tlb-64k");
  test::check_tlb_truth(r, truth("tlb-64k"));
}

TEST_CASE("topology TLB: three levels with additive penalties over near and far L2 halves, one fully associative of 512") {
  const json r = tlb_topology("tlb-three");
  test::check_tlb_truth(r, truth("tlb-three"));
  // The large level's coverage was bracketed widely by the footprint sweep and
  // narrowed before the stage method: the narrowing step ran.
  bool narrowed = false;
  for (const auto& e : r["experiments"]) narrowed = narrowed || (e["id"] == "tlb_entries" && e["status"] == "complete");
  CHECK(narrowed);
}

TEST_CASE("topology TLB: a second level of two sets that replaces at random is read as two sets, not one") {
  const json r = tlb_topology("tlb-random");
  test::check_tlb_truth(r, truth("tlb-random"));
  // The footprint sweep alone cannot tell it from one set of 4 MiB entries: the slots
  // spread over its sets (the tlb_spread step) do.
  const json& l2 = r["tlb"]["levels"][1];
  CHECK(l2["sets"] == 2);
  CHECK(l2["reach_bytes"] == 2ull << 20);
  CHECK(l2["spread_note"].get<std::string>().find("misses at") != std::string::npos);
}

TEST_CASE("topology TLB: a level whose set index takes the reach's bit as it is: bounds that hold the truth") {
  const json r = tlb_topology("tlb-setbit");
  const sim::Profile want = truth("tlb-setbit");
  REQUIRE(r["tlb"]["levels"].size() == 2);
  const json& l = r["tlb"]["levels"][1];
  INFO(l.dump().substr(0, 4000));
  const auto& t = want.tlb[1].geometry;
  // Strides of 8 MiB and more fill half the sets: 4096 slots at the span the footprint
  // sweep reads (8 MiB), every set at 8.5 MiB (more fit than one set of the span holds, no
  // whole number of sets), and at half the span (4 MiB) a first miss past 8192 slots, fewer
  // than entries of 8 MiB would need twice the bound: an entry reaches 4 MiB at most.
  CHECK(l["span_bytes"] == 2 * t.line_bytes);
  CHECK(l["entries"].is_null());
  CHECK_FALSE(l.contains("reach_bytes"));
  CHECK(l["reach_at_most_bytes"] == t.line_bytes);
  const auto at_least = l["entries_at_least"].get<std::uint64_t>();
  CHECK(at_least <= t.lines());
  CHECK(at_least >= t.lines() - t.lines() / 64);
  CHECK(l["reach_strides_note"].get<std::string>().find("an entry reaches 4 MiB at most") != std::string::npos);
  // The coverage holds the truth; the sets are not claimed, nor a policy the misses do not show.
  CHECK(l["coverage_range_bytes"][0].get<std::uint64_t>() <= t.capacity_bytes());
  CHECK(l["coverage_range_bytes"][1].get<std::uint64_t>() >= t.capacity_bytes());
  CHECK(l["sets"].is_null());
  CHECK(l.value("replacement", "") != "not LRU");
  CHECK(l["miss_penalty_cycles"].get<double>() == doctest::Approx(want.tlb[1].miss_penalty).epsilon(0.1));
  CHECK(r["tlb"]["page_bytes"] == want.tlb[0].page_bytes);
}
