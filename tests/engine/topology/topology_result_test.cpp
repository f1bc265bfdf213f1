// The typed topology result and the one function that writes its keys of
// topology.json: a figure not measured writes no key, the driver figures are
// always written (null where the device reports none), and an earlier step's
// figure counts as measured only when positive.
#include <doctest/doctest.h>

#include <set>

#include "engine/topology/topology_result.hpp"

using namespace dissect;
using json = nlohmann::json;

TEST_CASE("topology result: only measured figures are written, under the keys of topology.json") {
  TopologyResult r;
  CacheResult& l1 = r.cache("l1");
  l1.size_bytes = 65536;
  l1.line_bytes = 128;
  l1.ways = 4;
  l1.shared_with = std::vector<std::string>{"texture"};
  r.cache("l2").ways = 13.5;
  r.sharing["l1/texture"] = {true, 0.9};
  r.tlb_row().page_bytes = 2097152;
  const json j = topology_result_json(r);
  CHECK(j["caches"]["l1"] == json{{"size_bytes", 65536}, {"line_bytes", 128}, {"ways", 4},
                                  {"shared_with", {"texture"}}});
  CHECK(j["caches"]["l1"]["ways"].is_number_integer());
  CHECK(j["caches"]["l2"]["ways"] == 13.5);
  CHECK(j["caches"]["l2"]["driver_size_bytes"].is_null());
  CHECK(j["caches"]["shared"]["driver_per_sm_bytes"].is_null());
  CHECK(j["sharing"]["l1/texture"] == json{{"shared", true}, {"confidence", 0.9}});
  CHECK(j["tlb"] == json{{"page_bytes", 2097152}});
  CHECK_FALSE(j.contains("bandwidth"));
}

TEST_CASE("topology result: device facts and driver figures from the keys a device describes") {
  const json d{{"sm_count", 132}, {"sm_clock_khz", 1980000}, {"memory_bytes", 85899345920ULL},
               {"l2_bytes", 52428800}, {"shared_per_sm_bytes", 233472}, {"shared_per_block_bytes", 49152}};
  const DeviceFacts f = DeviceFacts::from_description(d);
  CHECK(f.sm_count == 132u);
  CHECK(f.memory_bytes == 85899345920ULL);
  CHECK(f.clock_ghz == doctest::Approx(1.98));
  const DriverFigures g = DriverFigures::from_description(d);
  CHECK(g.l2_bytes == 52428800u);
  CHECK(g.shared_per_sm_bytes == 233472u);
  CHECK(g.shared_per_block_bytes == 49152u);
  CHECK_FALSE(f.on_chip_samples);  // no shared-memory configurations described
  // Hopper's configurations: the smallest above 0 (8 KiB) less the 1 KiB per-block
  // reservation and the chase's scratch word.
  const DeviceFacts h = DeviceFacts::from_description(
      json{{"shared_configs_kib", {0, 8, 16, 32, 64, 100, 132, 164, 196, 228}}, {"shared_reserved_per_block_bytes", 1024}});
  CHECK(h.on_chip_samples == 8192u - 1024u - 64u);
  const DeviceFacts none = DeviceFacts::from_description(json{{"name", "sim"}});
  CHECK_FALSE(none.on_chip_samples);
  CHECK_FALSE(none.sm_count);
  CHECK(none.clock_ghz == 0);
}

TEST_CASE("topology result: earlier figures, unsupported caches and nanoseconds") {
  TopologyResult r;
  CHECK_FALSE(r.size_of("l1"));
  r.cache("l1").size_bytes = 0;  // a zero is no measurement
  CHECK_FALSE(r.size_of("l1"));
  r.cache("l1").size_bytes = 4096;
  r.cache("l1").fetch_bytes = 32;
  CHECK(r.size_of("l1") == 4096u);
  CHECK(r.fetch_of("l1") == 32u);
  CHECK_FALSE(r.line_of("l1"));
  CHECK_FALSE(r.unsupported("readonly"));
  CHECK(r.find("readonly") == nullptr);  // asking creates no row
  r.cache("readonly").unsupported = "no ld.global.nc";
  CHECK(r.unsupported("readonly"));

  r.cache("l1").latency_cycles = 40;
  r.cache("l1").latency_corrected_cycles = 30;
  r.add_nanoseconds();  // clock unknown: no ns
  CHECK_FALSE(r.cache("l1").latency_ns);
  r.device.clock_ghz = 2;
  r.add_nanoseconds();
  CHECK(r.cache("l1").latency_ns == 20.0);
  CHECK(r.cache("l1").latency_corrected_ns == 15.0);
}

TEST_CASE("topology result: the DRAM peak the driver's memory clock and bus width give") {
  // An H100 SXM reports 2619 MHz and 5120 bits: 2 x 2.619 GHz x 640 B = 3352 GB/s.
  const DriverFigures g = DriverFigures::from_description(
      json{{"memory_clock_khz", 2619000}, {"memory_bus_width_bits", 5120}, {"l2_bytes", 52428800}});
  REQUIRE(g.dram_peak_gbps());
  CHECK(*g.dram_peak_gbps() == doctest::Approx(3352.32));
  // A device that reports no clock (a simulated GPU), or a zero, gives none.
  CHECK_FALSE(DriverFigures::from_description(json{{"memory_bus_width_bits", 5120}}).dram_peak_gbps());
  CHECK_FALSE(
      DriverFigures::from_description(json{{"memory_clock_khz", 0}, {"memory_bus_width_bits", 5120}}).dram_peak_gbps());
}

TEST_CASE("topology result: bandwidth records carry their level, access and bound") {
  TopologyResult r;
  BandwidthResult b;
  b.level = "dram";
  b.access = "write";
  b.value = 3000;
  b.unit = "GB/s";
  b.gbps = 3000;
  b.bound_gbps = 3352.32;
  b.bound_source = "driver";
  b.share_of_bound = 3000 / 3352.32;
  r.bandwidth["global_write"] = b;
  const json j = topology_result_json(r)["bandwidth"]["global_write"];
  CHECK(j["level"] == "dram");
  CHECK(j["access"] == "write");
  CHECK(j["bound_gbps"] == 3352.32);
  CHECK_FALSE(j.contains("bound_bytes_per_cycle_per_sm"));
  // Every figure has a measure: one per level and direction, keys unique.
  std::set<std::string> keys, pairs;
  for (const auto& m : bandwidth_measures()) {
    CHECK(keys.insert(m.key).second);
    CHECK(pairs.insert(std::string(m.level) + "/" + m.access).second);
    CHECK(bandwidth_measure(m.key) == &m);
  }
  CHECK(pairs.count("dram/read") == 1);
  CHECK(pairs.count("dram/write") == 1);
  CHECK(pairs.count("l2/write") == 1);
  CHECK(bandwidth_measure("nonsense") == nullptr);
}
