// The topology tables are built from topology.json alone: each row shows what
// the result holds and "-" where it holds nothing.
#include <doctest/doctest.h>

#include <sstream>

#include "engine/topology/topology_table.hpp"

using namespace dissect;
using json = nlohmann::json;

namespace {

json sample_result() {
  return json{{"selector", "sim:x"},
              {"mode", "fast"},
              {"device", {{"name", "Test GPU"}, {"compute_capability", "90"}, {"sm_count", 4}}},
              {"timings", {{"wall_s", 1.25}, {"kernel_ms", 300.0}, {"compile_ms", 7.0}}},
              {"caches",
               {{"l1", {{"size_bytes", 65536}, {"line_bytes", 128}, {"fetch_bytes", 32}, {"latency_cycles", 40},
                        {"latency_corrected_cycles", 36}, {"latency_ns", 20.0}, {"sets", 128}, {"ways", 4},
                        {"replacement", "lru"}, {"shared_with", {"texture", "readonly"}}, {"per_sm", 1}}},
                {"shared", {{"latency_cycles", 30}, {"banks", 32}, {"bank_width_bytes", 4},
                            {"driver_per_sm_bytes", 233472}}}}},
              {"tlb", {{"levels", {{{"entries", 16}, {"reach_bytes", 33554432}, {"pages_per_entry", 16},
                                    {"coverage_bytes", 536870912}, {"miss_penalty_cycles", 12},
                                    {"associativity", "full"}, {"sets", 1}, {"set_sizes", {16}}, {"scope", "sm"}},
                                   {{"entries", 65}, {"reach_bytes", 2097152}, {"coverage_bytes", 136314880},
                                    {"miss_penalty_cycles", 84}, {"set_sizes", {17, 8, 8}}}}},
                       {"page_bytes", 2097152}}},
              {"bandwidth",
               {{"global", {{"value", 1234.5}, {"unit", "GB/s"}, {"sms", 4}, {"device_sms", 4},
                            {"bytes_per_cycle_per_sm", 11.04}}},
                {"shared", {{"value", 12400.0}, {"unit", "GB/s"}, {"sms", 4}, {"device_sms", 4},
                            {"bytes_per_cycle_per_sm", 94.2}, {"bound_bytes_per_cycle_per_sm", 128},
                            {"share_of_bound", 0.736}}}}},
              {"experiments",
               {{{"id", "l1_size"}, {"status", "complete"}, {"points", 20}, {"wall_ms", 12}},
                {{"id", "readonly_size"}, {"status", "skipped"}, {"reason", "no load path"}},
                {{"id", "l2_size"}, {"status", "failed"}, {"error", "line one\nline two"}}}}};
}

}  // namespace

TEST_CASE("topology tables: caches, TLB, bandwidth and experiments from topology.json") {
  const json r = sample_result();
  const auto caches = topology_cache_table(r);
  REQUIRE(caches.rows.size() == 2);
  CHECK(caches.rows[0] == std::vector<std::string>{"L1 data", "64 KiB", "-", "128 B", "32 B", "40", "36", "20.0",
                                                   "128 x 4", "lru", "texture,readonly", "1"});
  CHECK(caches.rows[1][0] == "shared memory");
  CHECK(caches.rows[1][2] == "228 KiB");  // the driver's figure beside the measured ones
  CHECK(caches.rows[1][8] == "32 banks x 4 B");

  const auto tlb = topology_tlb_table(r);
  REQUIRE(tlb.rows.size() == 2);
  CHECK(tlb.rows[0] == std::vector<std::string>{"L1", "16", "32 MiB (16 pages)", "512 MiB", "12", "full", "per SM", "-"});
  CHECK(tlb.rows[1] == std::vector<std::string>{"L2", "65", "2 MiB", "130 MiB", "84", "17,8,8", "-", "-"});
  CHECK(topology_page_line(r) == "page size: 2 MiB");
  // Per SM as far as the SMs that chased at once go: fewer than the device's are named.
  json partial = r;
  partial["tlb"]["levels"][0]["scope_sms_tested"] = 2;
  CHECK(topology_tlb_table(partial).rows[0][6] == "per SM (of 2 SMs)");
  partial["tlb"]["levels"][0]["scope_sms_tested"] = 4;
  CHECK(topology_tlb_table(partial).rows[0][6] == "per SM");

  const auto bw = topology_bandwidth_table(r);
  REQUIRE(bw.rows.size() == 2);
  // The order of the levels (shared, L1, L2, DRAM), not of the keys.
  CHECK(bw.rows[0] == std::vector<std::string>{"shared", "read", "12.40 TB/s", "94.2 B/clk", "4 of 4",
                                               "128 B/clk (74% reached)"});
  CHECK(bw.rows[1] == std::vector<std::string>{"DRAM", "read", "1.23 TB/s", "11.0 B/clk", "4 of 4", "-"});

  CHECK(topology_experiment_table(r, false).rows.size() == 3);
  const auto incomplete = topology_experiment_table(r, true);
  REQUIRE(incomplete.rows.size() == 2);
  CHECK(incomplete.rows[1][4] == "line one line two");  // one line per experiment

  CHECK(topology_headline(r) == "device: Test GPU (sim:x), sm_90, 4 SMs, fast mode, wall 1.2 s (kernels 300 ms, "
                                "compile 7 ms)");
}

TEST_CASE("the L2 from every SM: beside the one-SM and the driver's figures, or why not") {
  json r = sample_result();
  CHECK(topology_l2_whole_line(r).empty());  // the step did not run
  r["caches"]["l2"] = {{"size_bytes", 25165824}, {"driver_size_bytes", 52428800}, {"whole_gpu_bytes", 34603008},
                       {"whole_gpu_sms", 132}};
  CHECK(topology_l2_whole_line(r) ==
        "L2 from every SM at once (132 SMs, lines of their own): 33 MiB; one SM: 24 MiB; driver: 50 MiB");
  CHECK(topology_table(r).find("L2 from every SM at once") != std::string::npos);
  r["caches"]["l2"].erase("whole_gpu_bytes");
  r["caches"]["l2"]["whole_gpu_note"] = "no knee";
  CHECK(topology_l2_whole_line(r) == "L2 from every SM at once (132 SMs, lines of their own): undetermined: no knee");
}

TEST_CASE("the L2's far lines: the verdict and its summary, or nothing where none was read") {
  json r = sample_result();
  CHECK(topology_l2_copies_line(r).empty());
  r["caches"]["l2"]["partition_copies"] = {{"verdict", "copies"}, {"summary", "far lines are copied: ..."}};
  CHECK(topology_l2_copies_line(r) == "L2 far lines: far lines are copied: ...");
  CHECK(topology_table(r).find("L2 far lines: far lines are copied") != std::string::npos);
  r["caches"]["l2"]["partition_copies"] = {{"verdict", "undetermined"}, {"summary", "no model fits: ..."}};
  CHECK(topology_l2_copies_line(r) == "L2 far lines: undetermined: no model fits: ...");
}

TEST_CASE("the terminal table aligns columns and lists what did not complete") {
  const std::string t = topology_table(sample_result());
  CHECK(t.find("memory        size   (driver) line  fetch lat cyc (corr) ns   sets x ways") != std::string::npos);
  CHECK(t.find("L1 data       64 KiB -        128 B 32 B  40      36     20.0 128 x 4") != std::string::npos);
  CHECK(t.find("experiments: 1 complete, 0 unsupported by the device, 1 skipped, 1 failed or interrupted") !=
        std::string::npos);
  CHECK(t.find("  readonly_size: skipped (no load path)") != std::string::npos);
  CHECK(t.find("page size: 2 MiB") != std::string::npos);
}

TEST_CASE("the page line: where the page was seen, and the reach one allocation showed beside it") {
  json r = sample_result();
  r["tlb"]["page_method"] = "scattered frames";
  r["tlb"]["page_granule_bytes"] = 16ull << 20;
  CHECK(topology_page_line(r) == "page size: 2 MiB (scattered frames); over one allocation the penalty saturates at "
                                 "16 MiB (entries that coalesce pages)");
  r["tlb"].erase("page_bytes");
  r["tlb"]["page_note"] = "no plateau";
  CHECK(topology_page_line(r) == "page size: undetermined: no plateau");
  r["tlb"]["page_at_most_bytes"] = 2u << 20;
  r["tlb"]["page_note"] = "entries span 16 MiB whatever frames back them";
  CHECK(topology_page_line(r) == "page size: at most 2 MiB: entries span 16 MiB whatever frames back them");
  // The driver's mapping unit beside the bound, as its figure (a GPU that reports one).
  r["device"]["allocation_granularity_bytes"] = 2u << 20;
  CHECK(topology_page_line(r) == "page size: at most 2 MiB: entries span 16 MiB whatever frames back them; the "
                                 "driver maps device memory in 2 MiB (its allocation granularity)");
  r.erase("tlb");
  CHECK(topology_page_line(r).empty());
}

TEST_CASE("a long list of TLB set sizes is shown as its range") {
  json r = sample_result();
  json sizes = json::array();
  for (int i = 0; i < 40; ++i) sizes.push_back(i < 30 ? 1 : 4);
  r["tlb"]["levels"][1]["set_sizes"] = sizes;
  CHECK(topology_tlb_table(r).rows[1][5] == "40 sets of 1-4");
  r["tlb"]["levels"][1]["set_sizes"] = json::array({8, 8, 8, 8});
  CHECK(topology_tlb_table(r).rows[1][5] == "4 sets of 8");
}

TEST_CASE("TLB rows: entries and coverage as ranges, a lower bound on the sets; no page size, and why") {
  json r = sample_result();
  r["tlb"] = {{"levels", {{{"entries", nullptr}, {"entries_range", {4096, 5792}}, {"reach_bytes", nullptr},
                           {"coverage_bytes", nullptr}, {"coverage_range_bytes", {8589934592, 12146704384}},
                           {"miss_penalty_cycles", 200}, {"sets_at_least", 64}, {"ways", 16}}}},
              {"page_granule_bytes", 33554432},
              {"page_note", "saturates at 32 MiB, which is no page size"}};
  const auto t = topology_tlb_table(r);
  REQUIRE(t.rows.size() == 1);
  CHECK(t.rows[0] == std::vector<std::string>{"L1", "4096-5792", "-", "8 GiB .. 11.3125 GiB", "200", ">= 64 sets x 16", "-", "-"});
  // A level whose sets are open: the entries it would have as one set; misses that grow
  // gradually past its entries: not LRU.
  json open = r;
  open["tlb"]["levels"][0].erase("entries_range");
  open["tlb"]["levels"][0]["entries_if_fully_associative"] = 2048;
  open["tlb"]["levels"][0]["replacement"] = "not LRU";
  CHECK(topology_tlb_table(open).rows[0][1] == "2048 if one set");
  CHECK(topology_tlb_table(open).rows[0][7] == "not LRU");
  CHECK(topology_table(r).find("page size: undetermined: saturates at 32 MiB") != std::string::npos);
}

TEST_CASE("a TLB without a level found shows why") {
  json r = sample_result();
  r["tlb"] = {{"levels_note", "no TLB miss seen up to N = 768 MiB"}};
  CHECK(topology_tlb_table(r).rows.empty());
  CHECK(topology_table(r).find("TLB: no level found: no TLB miss seen up to N = 768 MiB") != std::string::npos);
}

TEST_CASE("a bandwidth measured on fewer SMs than the device has says so in its own cell") {
  json r = sample_result();
  // One block on one SM (as topology.json's of an earlier version: no count of SMs in the entry itself).
  r["bandwidth"]["shared"] = {{"value", 95.1}, {"unit", "GB/s"}, {"details", {{"sms", 1}, {"peak_bytes_per_cycle_per_sm", 48.0}}}};
  const auto one = topology_bandwidth_table(r).rows[0];
  CHECK(one == std::vector<std::string>{"shared", "read", "95.1 GB/s (1 SM only)", "48.0 B/clk", "1", "-"});
  r["bandwidth"]["shared"]["device_sms"] = 132;
  r["bandwidth"]["shared"]["sms"] = 66;
  CHECK(topology_bandwidth_table(r).rows[0][2] == "95.1 GB/s (66 SMs only)");
  CHECK(topology_bandwidth_table(r).rows[0][4] == "66 of 132");
  // Nothing says how many SMs ran: the count is unknown, never assumed.
  r["bandwidth"]["shared"] = {{"value", 95.1}, {"unit", "GB/s"}};
  CHECK(topology_bandwidth_table(r).rows[0][4] == "?");
}

TEST_CASE("bandwidth table: read and write of each level, the DRAM beside the driver's peak") {
  json r = sample_result();
  r["bandwidth"]["global_write"] = {{"level", "dram"},         {"access", "write"},       {"value", 3080.0},
                                    {"unit", "GB/s"},          {"sms", 4},                {"device_sms", 4},
                                    {"bound_gbps", 3352.32},   {"share_of_bound", 0.9188}, {"bytes_per_cycle_per_sm", 10.0}};
  r["bandwidth"]["l2_write"] = {{"value", 3940.0}, {"unit", "GB/s"}, {"sms", 4}, {"device_sms", 4}};
  r["bandwidth"]["l2"] = {{"value", 7300.0}, {"unit", "GB/s"}, {"sms", 4}, {"device_sms", 4}};
  // An L1 that writes through: the same stores without the L1 are its bound.
  r["bandwidth"]["l1_write"] = {{"value", 3900.0},
                                {"unit", "GB/s"},
                                {"sms", 4},
                                {"device_sms", 4},
                                {"bound_bytes_per_cycle_per_sm", 34.2},
                                {"share_of_bound", 0.99}};
  r["bandwidth"]["something_else"] = {{"value", 1.0}, {"unit", "GB/s"}};  // a key of another version: kept, last
  const auto bw = topology_bandwidth_table(r);
  REQUIRE(bw.rows.size() == 7);
  std::vector<std::string> order;
  for (const auto& row : bw.rows) order.push_back(row[0] + " " + row[1]);
  CHECK(order == std::vector<std::string>{"shared read", "L2 read", "L1 write", "L2 write", "DRAM read", "DRAM write",
                                          "something_else -"});
  CHECK(bw.rows[5][2] == "3.08 TB/s");
  CHECK(bw.rows[5][5] == "3.35 TB/s driver peak (92% reached)");
  CHECK(bw.rows[3][5] == "-");  // no known bound for the L2
  CHECK(bw.rows[2][5] == "34 B/clk without the L1 (99% reached)");
  // Above the driver's peak: the L2 served part of the stream.
  r["bandwidth"]["global_write"]["share_of_bound"] = 1.012;
  CHECK(topology_bandwidth_table(r).rows[5][5] == "3.35 TB/s driver peak (101%: above it, L2 hits)");
  // A banks' bound met to within the clock's noise is reached, nothing more.
  r["bandwidth"]["l1_write"]["share_of_bound"] = 1.004;
  CHECK(topology_bandwidth_table(r).rows[2][5] == "34 B/clk without the L1 (100% reached)");
  // The terminal: one padded line per figure.
  std::istringstream lines(topology_table(r));
  bool l2_write = false;
  for (std::string l; std::getline(lines, l);)
    l2_write |= l.rfind("L2 ", 0) == 0 && l.find(" write ") != std::string::npos && l.find("3.94 TB/s") != std::string::npos;
  CHECK(l2_write);
}

TEST_CASE("an empty result gives empty tables, not a crash") {
  const json r = json::object();
  CHECK(topology_cache_table(r).rows.empty());
  CHECK(topology_tlb_table(r).rows.empty());
  CHECK(topology_bandwidth_table(r).rows.empty());
  CHECK(topology_table(r).find("experiments: 0 complete") != std::string::npos);
}

TEST_CASE("topology tables: the policy column says deterministic where the launches agreed") {
  json r = sample_result();
  r["caches"]["l1"]["replacement"] = "non-lru";
  r["caches"]["l1"]["replacement_deterministic"] = true;
  CHECK(topology_cache_table(r).rows[0][9] == "non-lru, deterministic");
  r["caches"]["l1"].erase("replacement_deterministic");
  CHECK(topology_cache_table(r).rows[0][9] == "non-lru");
}

TEST_CASE("stage profile lines: one per cache that has a determined one, with the table's label") {
  const json r{{"caches",
                {{"l1", {{"stage_profile", {{"determined", true}, {"summary", "clean to 1928 lines"}}}}},
                 {"l1_carveout", {{"size_bytes", 152320}, {"stage_profile", {{"determined", true}, {"summary", "clean to 1190 lines"}}}}},
                 {"texture", {{"stage_profile", {{"determined", false}, {"summary", "no point misses"}}}}}}}};
  const auto lines = topology_cache_structure_lines(r);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "L1 data past its capacity (stage sweep, s = one line): clean to 1928 lines");
  CHECK(lines[1].rfind("L1 data, other carveout past its capacity", 0) == 0);
  CHECK(topology_table(r).find("clean to 1190 lines") != std::string::npos);
  REQUIRE(topology_cache_table(r).rows.size() == 3);
  CHECK(topology_cache_table(r).rows[1].front() == "L1 data, other carveout");
}

TEST_CASE("cache structure lines: the conflict step's summary after the stage profile") {
  const json r{{"caches",
                {{"l1", {{"stage_profile", {{"determined", true}, {"summary", "clean to 1928 lines"}}},
                         {"conflict", {{"summary", "no conflict: >= 128 at 128 KiB apart all hit"}}}}}}}};
  const auto lines = topology_cache_structure_lines(r);
  REQUIRE(lines.size() == 2);
  CHECK(lines[1] == "L1 data at large strides: no conflict: >= 128 at 128 KiB apart all hit");
}

TEST_CASE("sets x ways measured but not determined: '?' in the table, the reason under it") {
  const json r{{"caches",
                {{"l1", {{"size_bytes", 246784},
                         {"sets_note", "the missed-line staircase is not a stage-method geometry"}}},
                 {"texture", {{"size_bytes", 246784}, {"sets", 4}, {"ways", 482}}}}}};
  const auto t = topology_cache_table(r);
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0][8] == "?");
  CHECK(t.rows[1][8] == "4 x 482");
  const auto lines = topology_cache_structure_lines(r);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "L1 data sets x ways: undetermined: the missed-line staircase is not a stage-method geometry");
}

TEST_CASE("a TLB level whose sets were measured but not named: '?' and the reason under the table") {
  json r = sample_result();
  r["tlb"] = {{"levels",
               {{{"entries", 16}, {"reach_bytes", 16777216}, {"coverage_bytes", 268435456}, {"miss_penalty_cycles", 9},
                 {"associativity", "full"}, {"sets_note", "one set, as the footprint sweep read it"}},
                {{"entries", nullptr}, {"coverage_range_bytes", {274877906944.0, 275146473600.0}},
                 {"miss_penalty_cycles", 761}, {"associativity", "undetermined"},
                 {"sets_note", "spread over the sets, ...: no whole number of sets fits"}}}}};
  const auto t = topology_tlb_table(r);
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0][5] == "full");
  CHECK(t.rows[1][5] == "?");
  const auto lines = topology_tlb_structure_lines(r);
  REQUIRE(lines.size() == 1);
  CHECK(lines[0] == "TLB L2 sets: undetermined: spread over the sets, ...: no whole number of sets fits");
  CHECK(topology_table(r).find("TLB L2 sets: undetermined") != std::string::npos);
  CHECK(t.rows[1][1] == "-");
  CHECK(t.rows[1][2] == "-");
  // The bounds that hold without a geometry, where the spread step gave them.
  r["tlb"]["levels"][1]["entries_at_least"] = 4506;
  r["tlb"]["levels"][1]["reach_at_most_bytes"] = 67108864;
  const auto bounded = topology_tlb_table(r);
  CHECK(bounded.rows[1][1] == ">= 4506");
  CHECK(bounded.rows[1][2] == "<= 64 MiB");
}
