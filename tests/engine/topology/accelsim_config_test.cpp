// dissect export accelsim: the configuration of a measured topology. On simulated
// GPUs the exported geometry must be the profile's; on the committed H100 / H200
// topologies the export must pass the format check and invent nothing.
#include <doctest/doctest.h>

#include <atomic>
#include <cmath>

#include "engine/device/device.hpp"
#include "engine/device/sim/sim_profile.hpp"
#include "engine/topology/accelsim_check.hpp"
#include "engine/topology/accelsim_config.hpp"
#include "engine/topology/topology_runner.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
using dissect::test::TempDir;
using json = nlohmann::json;

namespace {

TopologyFile committed(const std::string& rel) { return read_topology_file(std::string(DISSECT_SOURCE_DIR) + "/" + rel); }

const AccelSimOption* find_option(const AccelSimConfig& c, const std::string& name) {
  for (const auto* sections : {&c.gpgpusim, &c.trace})
    for (const auto& s : *sections)
      for (const auto& o : s.options)
        if (o.option == name) return &o;
  return nullptr;
}

std::string comments_of(const AccelSimOption* o) {
  std::string all;
  if (o != nullptr)
    for (const auto& c : o->comments) all += c + "\n";
  return all;
}

// The profile's cache behind the first cache of a load path.
std::size_t first_cache(const sim::Profile& p, LoadPath path) {
  for (const auto& step : p.path(path).steps)
    if (step.kind == sim::PathStep::Kind::cache) return step.cache;
  return p.caches.size();
}

void check_sim_export(const std::string& profile) {
  CAPTURE(profile);
  const sim::Profile truth = sim::load_profile_file(sim::resolve_profile_path(profile));
  auto device = open_device("sim:" + profile);
  TempDir out;
  TopologyOptions o;
  o.out_dir = out.path();
  o.fast = true;
  o.only = {"l1_latency", "l1_fetch", "l1_size", "l1_line", "l1_line_blocks", "l1_sets", "l1_replacement",
            "l2_latency", "l2_fetch", "l2_size", "l2_line_blocks", "l2_partitions", "dram_latency", "shared_latency",
            "shared_banks"};
  std::atomic<bool> stop{false};
  run_topology(*device, o, stop);
  const TopologyFile t = read_topology_file(out.path());
  const AccelSimConfig c = accelsim_config(t);
  const std::string text = render_gpgpusim_config(c, t);
  CAPTURE(text);
  CHECK(check_accelsim_config(text).empty());
  CHECK(check_accelsim_config(render_trace_config(c, t)).empty());

  // L1: the line and size of the profile (size within one fetch unit, the search's
  // step); sets and ways exactly where the topology measured them.
  const std::size_t l1 = first_cache(truth, LoadPath::ca);
  REQUIRE(l1 < truth.caches.size());
  const sim::CacheGeometry g1 = truth.geometry_for(l1, kCarveoutMaxL1);
  CHECK(c.l1.line == g1.line_bytes);
  CHECK(c.l1.line_measured);
  CHECK(std::fabs(static_cast<double>(c.l1.bytes()) - static_cast<double>(g1.capacity_bytes())) <=
        static_cast<double>(g1.sector_bytes));
  // An LRU L1 gets its sets and ways measured, and exported as the profile's where the
  // format can hold them (a power-of-two set count: the linear index); an L1 of another
  // policy (the Fermi profile's weighted random) may leave them undetermined. Otherwise
  // the export marks them a default.
  const bool expressible = g1.sets() > 0 && (g1.sets() & (g1.sets() - 1)) == 0;
  if (g1.replacement.kind == sim::Replacement::Kind::lru && expressible) CHECK(c.l1.sets_measured);
  if (c.l1.sets_measured) {
    CHECK(c.l1.sets == g1.sets());
    CHECK(static_cast<double>(c.l1.ways) == g1.uniform_ways());
  } else {
    CHECK(text.find("[default") != std::string::npos);
  }
  CHECK(c.l1.sector == (g1.line_bytes == 128 && g1.sector_bytes == 32));
  // L2: the whole L2 (one SM's share times the partitions it sees), within the
  // size search's 4 % resolution, and its line.
  const std::size_t l2 = first_cache(truth, LoadPath::cg);
  REQUIRE(l2 < truth.caches.size());
  const sim::CacheGeometry g2 = truth.geometry_for(l2, kCarveoutMaxL1);
  CHECK(c.l2.line == g2.line_bytes);
  CHECK(static_cast<double>(c.l2.bytes() * c.l2_sub_partitions) ==
        doctest::Approx(static_cast<double>(g2.capacity_bytes())).epsilon(0.05));
  if (c.l2.ways_measured) CHECK(static_cast<double>(c.l2.ways) == g2.uniform_ways());
  // Shared-memory banks as measured.
  const auto* banks = find_option(c, "-gpgpu_shmem_num_banks");
  REQUIRE(banks != nullptr);
  CHECK(banks->value == std::to_string(truth.shared.banks));
}

}  // namespace

TEST_CASE("export accelsim: the simulated Fermi GTX 560 Ti's geometry comes back") { check_sim_export("fermi-gtx560ti"); }
TEST_CASE("export accelsim: the simulated Kepler GTX 780's geometry comes back") { check_sim_export("kepler-gtx780"); }
TEST_CASE("export accelsim: the simulated H100's geometry comes back") { check_sim_export("h100-sxm"); }

TEST_CASE("export accelsim: the committed H100 topology, nothing invented") {
  const TopologyFile t = committed("results/h100/topology/final/run2.json");
  const AccelSimConfig c = accelsim_config(t);
  const std::string text = render_gpgpusim_config(c, t);
  CAPTURE(text);
  CHECK(check_accelsim_config(text).empty());
  CHECK(check_accelsim_config(render_trace_config(c, t)).empty());
  // The L1's size and line are measured (246784 B, 128 B lines of 32 B sectors);
  // its sets and ways are not claimed: a stated default split keeps the size.
  CHECK(c.l1.line == 128);
  CHECK(c.l1.sector);
  CHECK(c.l1.bytes() == 246784);
  CHECK_FALSE(c.l1.sets_measured);
  CHECK_FALSE(c.l1.ways_measured);
  const std::string l1 = comments_of(find_option(c, "-gpgpu_cache:dl1"));
  CHECK(l1.find("[default: not measured") != std::string::npos);
  CHECK(l1.find("sets and ways not claimed by the topology: low confidence") != std::string::npos);
  CHECK(find_option(c, "-gpgpu_cache:dl1")->value.rfind("S:4:128:482,", 0) == 0);
  // L2: the driver's 50 MiB in all, 128 B lines; 64 B fetches are not the format's sectors.
  CHECK(c.l2.bytes() * c.l2_sub_partitions == 52428800);
  CHECK_FALSE(c.l2.sector);
  CHECK_FALSE(c.l2.ways_measured);
  // Latencies from the measurement: L1 39, L2 282 - 39, DRAM 692.5 - 282.1.
  CHECK(find_option(c, "-gpgpu_l1_latency")->value == "39");
  CHECK(find_option(c, "-gpgpu_l2_rop_latency")->value == "243");
  CHECK(find_option(c, "-dram_latency")->value == "410");
  CHECK(find_option(c, "-gpgpu_n_chiplet_partition")->value == "2");
  CHECK(find_option(c, "-trace_opcode_latency_initiation_spec_op_2")->value == "88,4");
  // The DRAM clock from the measured bandwidth.
  CHECK(comments_of(find_option(c, "-gpgpu_clock_domains")).find("derived from the measured global bandwidth") !=
        std::string::npos);
}

TEST_CASE("export accelsim: the early-schema H200 topology; an undetermined size stays undetermined") {
  const TopologyFile t = committed("results/h200/topology/run1.json");
  const AccelSimConfig c = accelsim_config(t);
  const std::string text = render_gpgpusim_config(c, t);
  CAPTURE(text);
  CHECK(check_accelsim_config(text).empty());
  CHECK(c.l1.bytes() == 187904);
  CHECK(c.l1.line == 32);
  CHECK_FALSE(c.l1.sector);
  // The texture size is undetermined in that run: a stated default, with the reason.
  CHECK_FALSE(c.texture.size_measured);
  const std::string tex = comments_of(find_option(c, "-gpgpu_tex_cache:l1"));
  CHECK(tex.find("undetermined: the smallest N (1 KiB) already misses") != std::string::npos);
  CHECK(c.l2.bytes() * c.l2_sub_partitions == 62914560);
  // Replacement measured non-LRU: the format cannot say so; LRU is the stated default.
  CHECK(comments_of(find_option(c, "-gpgpu_cache:dl1")).find("measured 'non-lru'") != std::string::npos);
}

TEST_CASE("export accelsim: a topology without measurements is all defaults, each marked") {
  TopologyFile t;
  t.path = "empty.json";
  t.topology = json{{"caches", json::object()}};
  const AccelSimConfig c = accelsim_config(t);
  const std::string text = render_gpgpusim_config(c, t);
  CAPTURE(text);
  CHECK(check_accelsim_config(text).empty());
  for (const auto& s : c.gpgpusim)
    for (const auto& o : s.options) {
      CAPTURE(o.option);
      CHECK_FALSE(o.measured);
      CHECK(comments_of(&o).find("measured (") == std::string::npos);
    }
}
