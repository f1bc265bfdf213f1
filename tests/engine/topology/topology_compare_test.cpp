// dissect compare: the committed H100 runs are stable against each other; the
// H200 differs where its hardware does, and not where the figures agree.
#include <doctest/doctest.h>

#include "engine/topology/topology_compare.hpp"

using namespace dissect;
using json = nlohmann::json;

namespace {

std::vector<TopologyFile> committed(const std::vector<std::string>& rels) {
  std::vector<std::string> paths;
  for (const auto& r : rels) paths.push_back(std::string(DISSECT_SOURCE_DIR) + "/" + r);
  const auto labels = default_labels(paths);
  std::vector<TopologyFile> files;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    files.push_back(read_topology_file(paths[i]));
    files.back().label = labels[i];
  }
  return files;
}

const CompareRow& row(const Comparison& c, const std::string& key) {
  for (const auto& r : c.rows)
    if (r.key == key) return r;
  FAIL("no row " << key);
  static CompareRow none;
  return none;
}

TopologyFile synthetic(const std::string& name, double l1_size, double l1_latency, const char* replacement) {
  TopologyFile t;
  t.path = name + ".json";
  t.label = name;
  t.topology = json{{"device", {{"name", name.substr(0, 5)}}},
                    {"caches",
                     {{"l1",
                       {{"size_bytes", l1_size},
                        {"fetch_bytes", 32},
                        {"latency_corrected_cycles", l1_latency},
                        {"replacement", replacement}}}}}};
  return t;
}

}  // namespace

TEST_CASE("compare: default labels drop the common directory, 'topology' folders and .json") {
  CHECK(default_labels({"results/h100/topology/final/run1.json", "results/h200/topology/run1.json"}) ==
        std::vector<std::string>{"h100/final/run1", "h200/run1"});
  CHECK(default_labels({"a/topology", "b/topology/"}) == std::vector<std::string>{"a/topology", "b/topology"});
  CHECK(default_labels({"x/out1/topology.json", "x/out2"}) == std::vector<std::string>{"out1", "out2"});
}

TEST_CASE("compare: three H100 runs are stable, the H200 differs in L1 and L2 but not in shared memory") {
  const Comparison c = compare_topologies(committed({"results/h100/topology/final/run1.json",
                                                     "results/h100/topology/final/run2.json",
                                                     "results/h100/topology/final/run3.json",
                                                     "results/h200/topology/run1.json"}),
                                          std::string(DISSECT_SOURCE_DIR) + "/specs");
  REQUIRE(c.devices.size() == 2);
  CHECK(c.devices[0] == "NVIDIA H100 80GB HBM3");
  CHECK(c.devices[1] == "NVIDIA H200");
  // L1 size: the H100 runs agree exactly; its search step is 128 B (0.1 % of 241 KiB,
  // at least the 32 B stride, 4 B x a power of two); the H200 (another carveout and
  // binary) reads 184 KiB.
  const CompareRow& l1 = row(c, "caches.l1.size_bytes");
  CHECK(l1.tolerance == 128);
  CHECK(l1.groups[0].stable);
  CHECK(l1.groups[0].spread.value() == 0);
  CHECK(l1.differs);
  CHECK(l1.verdict.find("3 runs of H100 80GB HBM3 stable") != std::string::npos);
  // L2 seen from one SM: a 512 KiB step (4 %); 23 MiB vs 23.25 MiB is within it.
  const CompareRow& l2 = row(c, "caches.l2.one_sm_bytes");  // these files' size_bytes: one SM
  CHECK(l2.tolerance == 512 * 1024);
  CHECK_FALSE(l2.differs);
  // The driver's L2: 50 vs 60 MiB.
  CHECK(row(c, "caches.l2.driver_size_bytes").differs);
  // Shared memory: the same banks and latency.
  CHECK_FALSE(row(c, "caches.shared.banks").differs);
  CHECK_FALSE(row(c, "caches.shared.latency_corrected_cycles").differs);
  // DRAM latency: 692 vs 672 cycles, beyond the 1 % floor and the H100 runs' spread.
  const CompareRow& dram = row(c, "caches.dram.latency_corrected_cycles");
  CHECK(dram.differs);
  CHECK(dram.groups[0].stable);
  // A figure one GPU lacks is no difference: measured on the other only.
  CHECK_FALSE(row(c, "tlb.page_bytes").differs);
  CHECK(row(c, "tlb.page_bytes").verdict.find("measured on H200 only") != std::string::npos);
  // Sizes read at a glance: 183.5 KiB, not 187904 B.
  CHECK(l1.texts[3] == std::string("183.5 KiB"));
  // Every format answers.
  CHECK(comparison_markdown(c).find("| L1 data size |") != std::string::npos);
  CHECK(comparison_text(c).find("L1 data size") != std::string::npos);
  const json j = comparison_json(c);
  CHECK(j["inputs"].size() == 4);
  CHECK(j["rows"].size() == c.rows.size());
}

TEST_CASE("compare: a search step recorded in topology.json is the size's tolerance") {
  std::vector<TopologyFile> in{synthetic("GPU-A-1", 4096, 30.0, "lru"), synthetic("GPU-B-1", 4160, 30.0, "lru")};
  in[0].topology["experiments"] = json::array({{{"id", "l1_size"}, {"search", {{"resolution_bytes", 256}}}}});
  in[1].topology["experiments"] = json::array({{{"id", "l1_size"}, {"overrides", {{"array.stride", "64 B"}}}}});
  const Comparison c = compare_topologies(in, "/nonexistent");
  const CompareRow& size = row(c, "caches.l1.size_bytes");
  CHECK(size.tolerance == 256);  // the recorded step; the other run's stride (64 B) is smaller
  CHECK(size.tolerance_source.find("recorded in topology.json") != std::string::npos);
  CHECK_FALSE(size.differs);  // 64 B apart
}

TEST_CASE("compare: the L2 from every SM is judged by the per-SM search step times the SMs") {
  auto whole = [](const std::string& name, double bytes) {
    TopologyFile t = synthetic(name, 4096, 30.0, "lru");
    t.topology["caches"]["l2"] = {{"whole_gpu_bytes", bytes}, {"whole_gpu_sms", 132}};
    t.topology["experiments"] = json::array({{{"id", "l2_whole_size"}, {"search", {{"resolution_bytes", 4096}}}}});
    return t;
  };
  // One step apart (4 KiB per SM, 528 KiB in all): the same.
  Comparison c = compare_topologies({whole("GPU-A-1", 34603008), whole("GPU-A-2", 34062336)}, "/nonexistent");
  const CompareRow& near = row(c, "caches.l2.whole_gpu_bytes");
  CHECK(near.tolerance == 132 * 4096);
  REQUIRE(near.groups.size() == 1);  // two runs of one device
  CHECK(near.groups[0].stable);
  // 4 MiB apart: more than a step.
  c = compare_topologies({whole("GPU-A-1", 34603008), whole("GPU-A-2", 30277632)}, "/nonexistent");
  const CompareRow& far = row(c, "caches.l2.whole_gpu_bytes");
  REQUIRE(far.groups.size() == 1);
  CHECK_FALSE(far.groups[0].stable);
}

TEST_CASE("compare: the L2's far lines, as text") {
  auto with = [](const std::string& name, const char* verdict) {
    TopologyFile t = synthetic(name, 4096, 30.0, "lru");
    t.topology["caches"]["l2"] = {{"partition_copies", {{"verdict", verdict}, {"summary", "..."}}}};
    return t;
  };
  const Comparison c = compare_topologies({with("GPU-A-1", "copies"), with("GPU-A-2", "copies"), with("GPU-B-1", "shared")},
                                          "/nonexistent");
  const CompareRow& far = row(c, "caches.l2.partition_copies.verdict");
  CHECK(far.groups[0].stable);
  CHECK(far.differs);
}

TEST_CASE("compare: spread beyond the tolerance is reported, text figures compared as text") {
  std::vector<TopologyFile> in{synthetic("GPU-A-1", 1024, 30.0, "lru"), synthetic("GPU-A-2", 2048, 30.1, "lru"),
                               synthetic("GPU-B-1", 1024, 40.0, "non-lru")};
  const Comparison c = compare_topologies(in, "/nonexistent");
  const CompareRow& size = row(c, "caches.l1.size_bytes");
  CHECK(size.tolerance == 32);  // no spec found: the stride
  CHECK_FALSE(size.groups[0].stable);
  CHECK(size.verdict.find("GPU-A varies by 1 KiB over 2 runs") != std::string::npos);
  CHECK_FALSE(size.differs);  // the GPU-A runs' spread covers the GPU-B figure
  CHECK(row(c, "caches.l1.latency_corrected_cycles").groups[0].stable);
  CHECK(row(c, "caches.l1.latency_corrected_cycles").differs);
  CHECK(row(c, "caches.l1.replacement").differs);
}

TEST_CASE("compare: every bandwidth figure, read and write, beside each other") {
  std::vector<TopologyFile> in{synthetic("GPU-A-1", 1024, 30.0, "lru"), synthetic("GPU-B-1", 1024, 30.0, "lru")};
  in[0].topology["bandwidth"] = {{"l2_write", {{"value", 3940.0}, {"unit", "GB/s"}, {"gbps", 3940.0}}},
                                 {"global_write", {{"value", 3080.0}, {"unit", "GB/s"}, {"gbps", 3080.0}}}};
  in[1].topology["bandwidth"] = {{"l2_write", {{"value", 4800.0}, {"unit", "GB/s"}, {"gbps", 4800.0}}},
                                 {"global_write", {{"value", 3100.0}, {"unit", "GB/s"}, {"gbps", 3100.0}}}};
  const Comparison c = compare_topologies(in, "/nonexistent");
  CHECK(row(c, "bandwidth.l2_write").label == "L2 write bandwidth");
  CHECK(row(c, "bandwidth.global_write").label == "DRAM write bandwidth");
  CHECK(row(c, "bandwidth.l2_write").unit == "GB/s");
  CHECK(row(c, "bandwidth.l2_write").differs);           // 22 % apart
  CHECK_FALSE(row(c, "bandwidth.global_write").differs);  // within 2 %
}

TEST_CASE("compare: TLB levels row by row; entries and coverage that are ranges agree when they overlap") {
  auto with = [](const std::string& name, json l2) {
    TopologyFile t = synthetic(name, 4096, 30.0, "lru");
    json l1{{"entries", 16}, {"reach_bytes", 16777216}, {"coverage_bytes", 268435456},
            {"miss_penalty_cycles", 9.8}, {"associativity", "full"}, {"sets", 1}};
    t.topology["tlb"] = {{"levels", json::array({l1, l2})}, {"page_at_most_bytes", 2097152}};
    return t;
  };
  json exact{{"entries", 2048}, {"reach_bytes", 33554432}, {"coverage_bytes", 68719476736.0},
             {"miss_penalty_cycles", 103.0}, {"associativity", "full"}};
  json range = exact;
  range.erase("entries");
  range.erase("coverage_bytes");
  range["entries_range"] = {2048, 2049};
  range["coverage_range_bytes"] = {68685987809.0, 68753096736.0};
  range["miss_penalty_cycles"] = 93.6;
  json other = exact;
  other["entries"] = 1448;
  other["coverage_bytes"] = 48586817536.0;
  const Comparison c = compare_topologies({with("GPU-A-1", exact), with("GPU-A-2", range), with("GPU-B-1", other)},
                                          "/nonexistent");
  const CompareRow& entries = row(c, "tlb.levels[1].entries");
  CHECK(entries.label == "TLB L2 entries");
  CHECK(entries.texts[1] == std::string("2048 .. 2049"));
  REQUIRE(entries.groups.size() == 2);
  CHECK(entries.groups[0].stable);  // 2048 lies in 2048 .. 2049
  CHECK(entries.differs);           // 1448 lies in neither
  CHECK(row(c, "tlb.levels[1].coverage_bytes").groups[0].stable);
  CHECK(row(c, "tlb.levels[1].coverage_bytes").texts[0] == std::string("64 GiB"));
  // Penalties: 93.6 and 103 within 10 %; the first level's the same in every run.
  CHECK(row(c, "tlb.levels[1].miss_penalty_cycles").groups[0].stable);
  CHECK_FALSE(row(c, "tlb.levels[0].entries").differs);
  CHECK(row(c, "tlb.levels[0].reach_bytes").texts[0] == std::string("16 MiB"));
  // A page bound, compared as text.
  CHECK(row(c, "tlb.page_bytes").texts[0] == std::string("at most 2 MiB"));
  CHECK_FALSE(row(c, "tlb.page_bytes").differs);
  // JSON keeps a range as [lo, hi].
  const json j = comparison_json(c);
  bool found = false;
  for (const auto& r : j["rows"])
    if (r["key"] == "tlb.levels[1].entries") found = r["values"][1] == json::array({2048.0, 2049.0});
  CHECK(found);

  // The spread of a range row is how far the runs' ranges miss a common value: none here.
  REQUIRE(entries.groups[0].spread.has_value());
  CHECK(*entries.groups[0].spread == 0);

  // Two runs whose ranges share no value are not stable; their spread is the gap.
  json apart = exact;
  apart["entries"] = 2050;
  const Comparison d = compare_topologies({with("GPU-A-1", exact), with("GPU-A-2", apart)}, "/nonexistent");
  CHECK_FALSE(row(d, "tlb.levels[1].entries").groups[0].stable);
  CHECK(*row(d, "tlb.levels[1].entries").groups[0].spread == 2);

  // A page measured within another GPU's bound is no difference; "undetermined" is no figure.
  TopologyFile paged = with("GPU-B-1", exact);
  paged.topology["tlb"].erase("page_at_most_bytes");
  paged.topology["tlb"]["page_bytes"] = 2097152;
  paged.topology["tlb"]["levels"][1]["associativity"] = "undetermined";
  const Comparison e = compare_topologies({with("GPU-A-1", exact), paged}, "/nonexistent");
  CHECK_FALSE(row(e, "tlb.page_bytes").differs);
  CHECK(row(e, "tlb.page_bytes").texts[1] == std::string("2 MiB"));
  CHECK_FALSE(row(e, "tlb.levels[1].associativity").differs);
  CHECK(row(e, "tlb.levels[1].associativity").verdict.find("measured on GPU-A only") != std::string::npos);
  // A page outside the bound differs.
  paged.topology["tlb"]["page_bytes"] = 4194304;
  CHECK(row(compare_topologies({with("GPU-A-1", exact), paged}, "/nonexistent"), "tlb.page_bytes").differs);
}

TEST_CASE("compare: the driver's allocation granularity, a row of its own beside the page") {
  std::vector<TopologyFile> in{synthetic("GPU-A-1", 1024, 30.0, "lru"), synthetic("GPU-B-1", 1024, 30.0, "lru")};
  in[0].topology["device"]["allocation_granularity_bytes"] = 2u << 20;
  in[1].topology["device"]["allocation_granularity_bytes"] = 2u << 20;
  const Comparison c = compare_topologies(in, "/nonexistent");
  const CompareRow& g = row(c, "device.allocation_granularity_bytes");
  CHECK(g.label == "allocation granularity (driver)");
  CHECK_FALSE(g.differs);
  in[1].topology["device"]["allocation_granularity_bytes"] = 64u << 10;
  CHECK(row(compare_topologies(in, "/nonexistent"), "device.allocation_granularity_bytes").differs);
}

TEST_CASE("compare: a TLB level's bounds (entries at least, reach at most) agree with figures inside them") {
  auto with = [](const std::string& name, json l3) {
    TopologyFile t = synthetic(name, 4096, 30.0, "lru");
    t.topology["tlb"] = {{"levels", json::array({l3})}};
    return t;
  };
  json bounded{{"entries", nullptr}, {"entries_at_least", 4506}, {"reach_at_most_bytes", 67108864},
               {"miss_penalty_cycles", 761.0}, {"associativity", "undetermined"}};
  json other = bounded;
  other["entries_at_least"] = 4240;
  json exact{{"entries", 8192}, {"reach_bytes", 33554432}, {"miss_penalty_cycles", 700.0}};
  const Comparison c =
      compare_topologies({with("GPU-A-1", bounded), with("GPU-A-2", other), with("GPU-B-1", exact)}, "/nonexistent");
  const CompareRow& entries = row(c, "tlb.levels[0].entries");
  CHECK(entries.texts[0] == std::string("at least 4506"));
  CHECK(entries.groups[0].stable);  // 4506 and up lies in both runs' bounds
  CHECK_FALSE(entries.differs);     // 8192 lies in them too
  const CompareRow& reach = row(c, "tlb.levels[0].reach_bytes");
  CHECK(reach.texts[0] == std::string("at most 64 MiB"));
  CHECK(reach.texts[2] == std::string("32 MiB"));
  CHECK_FALSE(reach.differs);
  // Beyond a bound: a difference, said with the bound.
  exact["entries"] = 4096;
  exact["reach_bytes"] = 134217728;
  const Comparison d = compare_topologies({with("GPU-A-1", bounded), with("GPU-B-1", exact)}, "/nonexistent");
  CHECK(row(d, "tlb.levels[0].entries").differs);
  CHECK(row(d, "tlb.levels[0].entries").verdict.find("at least 4506") != std::string::npos);
  CHECK(row(d, "tlb.levels[0].reach_bytes").differs);
  // JSON: the open end as null.
  const json j = comparison_json(c);
  bool found = false;
  for (const auto& r : j["rows"])
    if (r["key"] == "tlb.levels[0].entries") found = r["values"][0] == json::array({4506.0, nullptr});
  CHECK(found);
}
