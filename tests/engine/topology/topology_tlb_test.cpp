// End-to-end: the topology's TLB and page steps on simulated GPUs whose TLBs are
// unlike the seed profiles' (written for these tests: specs/devices/tlb-*.yaml):
// entries that coalesce 16 pages, 64 KiB pages, three levels whose penalties add
// up over an L2 of near and far halves, a large fully associative level. Each
// must come out as its profile describes it (tests/support/tlb_truth.hpp); so must a level of
// two sets that replaces at random (specs/devices/tlb-random.yaml).
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
  o.only = {"tlb", "page_size", "page_size_scattered", "tlb_entries", "tlb_sets", "tlb_spread", "tlb_scope"};
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
