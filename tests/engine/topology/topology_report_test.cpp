// The topology report: a simulated topology run written as one report, with
// the topology tables first and every step's experiment with its plots.
#include <doctest/doctest.h>

#include <atomic>
#include <filesystem>
#include <set>

#include "engine/device/device.hpp"
#include "engine/report/gnuplot_runner.hpp"
#include "engine/topology/topology_report.hpp"
#include "engine/topology/topology_runner.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
using dissect::test::read_file;
using dissect::test::TempDir;
using json = nlohmann::json;
namespace fs = std::filesystem;

TEST_CASE("a topology run becomes one report: tables, then each step with its plots") {
  REQUIRE_MESSAGE(report::find_gnuplot().found, "gnuplot is needed (scripts/install-deps.sh installs gnuplot-nox)");
  TempDir out;
  auto device = open_device("sim:fermi-gtx560ti");
  TopologyOptions o;
  o.out_dir = out.path();
  o.fast = true;
  std::atomic<bool> stop{false};
  const json r = run_topology(*device, o, stop);
  REQUIRE(r["status"] == "complete");
  CHECK(is_topology_dir(out.path()));
  CHECK_FALSE(is_topology_dir(out.file("nothing")));

  report::ReportOptions ro;
  ro.out_dir = out.file("report");
  const TopologyReport rep = write_topology_report(out.path(), ro);
  const std::string md = read_file(rep.result.report_md);
  CHECK(md.rfind("# Memory topology of fermi-gtx560ti", 0) == 0);
  const auto caches_at = md.find("## Caches and memories");
  const auto tlb_at = md.find("## TLB");
  const auto experiments_at = md.find("## Experiments");
  CHECK(caches_at != std::string::npos);
  CHECK(tlb_at > caches_at);
  CHECK(experiments_at > tlb_at);
  CHECK(md.find("| L1 data |") != std::string::npos);

  // Every step with a bundle is in the report; the unsupported one (the Fermi
  // profile has no read-only path) has a bundle without points and is noted.
  std::size_t bundles = 0;
  for (const auto& e : r["experiments"])
    if (e.contains("bundle")) {
      ++bundles;
      CHECK_MESSAGE(md.find("topology_" + e["id"].get<std::string>()) != std::string::npos, e["id"]);
    }
  CHECK(bundles >= 25);

  // Sweeps get plots, each rendered as a non-empty SVG and PNG.
  std::set<std::string> plotted;
  for (const auto& p : rep.result.plots) {
    plotted.insert(p.experiment);
    CHECK_MESSAGE(!p.svg.empty(), p.experiment);
    CHECK_MESSAGE(!p.png.empty(), p.experiment);
    if (!p.svg.empty()) CHECK(fs::file_size(p.svg) > 500);
    if (!p.png.empty()) CHECK(fs::file_size(p.png) > 2000);
  }
  for (const char* sweep : {"topology_l1_size", "topology_l1_sets", "topology_texture_size", "topology_l2_size",
                            "topology_tlb", "topology_shared_banks"})
    CHECK_MESSAGE(plotted.count(sweep) == 1, sweep);
}

TEST_CASE("a topology directory without a readable topology.json is an error that names the file") {
  TempDir out;
  out.write("topology.json", "{ not json");
  report::ReportOptions ro;
  ro.out_dir = out.file("report");
  CHECK_THROWS_WITH_AS(write_topology_report(out.path(), ro), doctest::Contains("topology.json: not valid JSON"),
                       std::runtime_error);
}
