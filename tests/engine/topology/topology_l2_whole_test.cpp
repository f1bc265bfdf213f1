// End-to-end: the L2 that every SM fills at once (the l2_whole_size step) and the map of its
// partitions (l2_partition_map) on simulated GPUs whose L2 is one cache, two partitions, or
// two partitions that copy far lines into the SM's near one (the H100 profile): each must
// come out as its profile implies.
#include <doctest/doctest.h>

#include <atomic>

#include "engine/device/device.hpp"
#include "engine/device/sim/sim_profile.hpp"
#include "engine/topology/topology_runner.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
using json = nlohmann::json;

namespace {

json l2_topology(const std::string& profile) {
  auto device = open_device("sim:" + profile);
  test::TempDir out;
  TopologyOptions o;
  o.out_dir = out.path();
  o.only = {"l2_latency", "l2_fetch", "l2_size", "l2_whole_size", "l2_partition_map"};
  std::atomic<bool> stop{false};
  json r = run_topology(*device, o, stop);
  REQUIRE(r["status"] == "complete");
  return r;
}

const sim::CacheSpec& l2_of(const sim::Profile& p) {
  for (const auto& c : p.caches)
    if (c.name == "l2") return c;
  FAIL("the profile has no l2");
  return p.caches.front();
}

}  // namespace

TEST_CASE("topology L2 from every SM: the whole cache where no line is held twice") {
  for (const char* name : {"tlb-three", "fermi-gtx560ti"}) {
    CAPTURE(name);
    const json r = l2_topology(name);
    const json& l2 = r["caches"]["l2"];
    INFO(l2.dump());
    const auto truth = sim::load_profile_file(sim::resolve_profile_path(name));
    const double size = static_cast<double>(l2_of(truth).geometry.capacity_bytes());
    REQUIRE(l2.contains("whole_gpu_bytes"));
    CHECK(l2["whole_gpu_sms"] == truth.sm_count);
    CHECK(l2["whole_gpu_bytes"].get<double>() == doctest::Approx(size).epsilon(0.06));
    CHECK(l2["size_bytes"] == l2["whole_gpu_bytes"]);
    // tlb-three's two partitions hold each line at home only; fermi's L2 is one cache.
    if (l2_of(truth).partitions.count > 1) {
      REQUIRE(l2.contains("partition_copies"));
      CHECK(l2["partition_copies"]["verdict"] == "shared");
    } else {
      CHECK_FALSE(l2.contains("partition_copies"));
    }
  }
}

TEST_CASE("topology L2 from every SM: far lines copied into the near partition hold two thirds") {
  // Two partitions; each SM's lines lie half in its far partition, and each of those is
  // held twice (at home and in the near partition): the SMs fill 1.5 x their lines. (The
  // simulated LRU drops a home copy that its reader keeps hitting near, so a chase that
  // found its lines laid out by an address-order warm-up would see more room in its first
  // pass: the step warms up in the chase's own order.)
  const json r = l2_topology("h100-sxm");
  const json& l2 = r["caches"]["l2"];
  INFO(l2.dump());
  const auto truth = sim::load_profile_file(sim::resolve_profile_path("h100-sxm"));
  REQUIRE(l2_of(truth).partitions.replicate);
  const double size = static_cast<double>(l2_of(truth).geometry.capacity_bytes());
  REQUIRE(l2.contains("whole_gpu_bytes"));
  CHECK(l2["whole_gpu_bytes"].get<double>() == doctest::Approx(size / 1.5).epsilon(0.06));
  // One SM fills its near partition: half the L2. The L2's size is the whole GPU's.
  CHECK(l2["one_sm_bytes"].get<double>() == doctest::Approx(size / 2).epsilon(0.06));
  CHECK(l2["size_bytes"] == l2["whole_gpu_bytes"]);
  // The two sizes and the partitions say so (a simulated GPU reports no L2 size of the
  // driver's: the ratio of the two decides).
  REQUIRE(l2.contains("partition_copies"));
  CHECK(l2["partition_copies"]["verdict"] == "copies");
  CHECK(l2["partition_copies"]["partitions"] == 2);
}

TEST_CASE("topology L2 partitions: SM groups and the address bits that pick a partition") {
  // h100-sxm: two partitions picked by the XOR of address bits 12, 17, 22, 27 and 32 (the
  // array of 2 MiB, one page, sees 12 and 17), the first half of the SMs near partition 0.
  const json r = l2_topology("h100-sxm");
  const json& l2 = r["caches"]["l2"];
  INFO(l2.dump().substr(0, 3000));
  REQUIRE(l2.contains("partition_map"));
  const json& m = l2["partition_map"];
  const auto truth = sim::load_profile_file(sim::resolve_profile_path("h100-sxm"));
  CHECK(m["groups"] == 2);
  REQUIRE(m["sm_groups"].size() == 2);
  for (std::size_t g = 0; g < 2; ++g)
    for (const auto& sm : m["sm_groups"][g]) {
      // sm_groups[0] holds SM 0; the profile puts SM s in partition s * 2 / sm_count.
      const auto part = sm.get<std::uint32_t>() * 2 / truth.sm_count;
      CHECK(part == g);
    }
  CHECK(m["function"] == "xor");
  CHECK(m["xor_bits"] == json::array({12, 17}));
  CHECK(m["granularity_bytes"] == 4096);
  CHECK(m["share_of_lines_near_group_0"].get<double>() == doctest::Approx(0.5).epsilon(0.05));
  // One L2 without partitions: no groups to find, and it says so.
  const json fermi = l2_topology("fermi-gtx560ti");
  CHECK_FALSE(fermi["caches"]["l2"].contains("partition_map"));
  CHECK(fermi["caches"]["l2"]["partition_map_note"].get<std::string>().find("no near and far lines") !=
        std::string::npos);
}
