// The topology report: a simulated topology run written as one report, with
// the topology tables first and every step's experiment with its plots.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <atomic>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

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

namespace {
// A --fast topology into `dir`, of the steps named (every step where none is).
TopologyOptions fast_topology(const std::string& dir, std::vector<std::string> only = {}) {
  TopologyOptions o;
  o.out_dir = dir;
  o.fast = true;
  o.only = std::move(only);
  return o;
}
}  // namespace

TEST_CASE("a topology run becomes one report: tables, then each step with its plots") {
  REQUIRE_MESSAGE(report::find_gnuplot().found, "gnuplot is needed (scripts/install-deps.sh installs gnuplot-nox)");
  TempDir out;
  auto device = open_device("sim:fermi-gtx560ti");
  TopologyOptions o = fast_topology(out.path());
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

// Report data made while the topology measured (each step's as it completes, from the points
// its analyzers had in memory) gives the report the bundles read at the end would: the same
// report.md, the same plots.
TEST_CASE("a topology report from bundles read while the steps measured equals one read afterwards") {
  TempDir out;
  auto device = open_device("sim:fermi-gtx560ti");
  TopologyOptions o = fast_topology(out.path(), {"l1_latency", "l1_size", "l1_line", "l2_size", "tlb", "shared_banks"});
  report::ReportOptions ro;
  ro.render = false;  // the data files and scripts; what gnuplot makes of them is not the question
  ro.out_dir = out.file("report_ahead");
  TopologyReportPreload preload(out.path(), ro);
  std::vector<std::string> completed;
  o.bundle_complete = [&](const std::string& bundle, std::shared_ptr<AnalysedBundle> analysed) {
    // Complete when announced: its findings are written; measured here, so in memory too.
    CHECK(fs::is_regular_file(fs::path(out.path()) / bundle / "findings.json"));
    REQUIRE(analysed != nullptr);
    CHECK(fs::path(analysed->bundle.dir).filename() == bundle);
    CHECK(analysed->bundle.header.value("status", std::string()) == "complete");
    CHECK_FALSE(analysed->bundle.traces.points.empty());
    completed.push_back(bundle);
    preload.start(bundle, std::move(analysed));
  };
  std::atomic<bool> stop{false};
  const json r = run_topology(*device, o, stop);
  REQUIRE(r["status"] == "complete");
  std::set<std::string> bundles;
  for (const auto& e : r["experiments"])
    if (e.contains("bundle")) bundles.insert(e["bundle"].get<std::string>());
  CHECK(std::set<std::string>(completed.begin(), completed.end()) == bundles);
  CHECK(completed.size() == bundles.size());  // each once

  // The parts are made while the steps measure (a few at a time): each step's plot
  // directory is there, or on its way, before the report is asked for.
  for (const auto& b : bundles) {
    auto job = preload.take(b);
    REQUIRE(job != nullptr);
    TopologyReportPreload::Made made = job->get();
    REQUIRE(made.part.has_value());
    CHECK(fs::is_directory(fs::path(ro.out_dir) / made.part->slug));
    preload.start(b);  // again, from its files, for the report below
  }
  const TopologyReport ahead = write_topology_report(out.path(), ro, &preload);
  ro.out_dir = out.file("report_after");
  const TopologyReport after = write_topology_report(out.path(), ro);
  CHECK(ahead.skipped.empty());
  std::string md_ahead = read_file(ahead.result.report_md), md_after = read_file(after.result.report_md);
  for (auto* md : {&md_ahead, &md_after})  // the two reports' own directories aside
    for (const char* dir : {"report_ahead", "report_after"})
      for (auto at = md->find(dir); at != std::string::npos; at = md->find(dir)) md->replace(at, 12, "report");
  for (auto* md : {&md_ahead, &md_after})  // the time each was generated at aside
    if (const auto at = md->find("Generated by"); at != std::string::npos) md->erase(at, md->find('\n', at) - at);
  CHECK(md_ahead == md_after);
  REQUIRE(ahead.result.plots.size() == after.result.plots.size());
  for (std::size_t i = 0; i < ahead.result.plots.size(); ++i)
    for (std::size_t k = 0; k < ahead.result.plots[i].data.size() && k < after.result.plots[i].data.size(); ++k)
      CHECK(read_file(ahead.result.plots[i].data[k]) == read_file(after.result.plots[i].data[k]));
  // Read-ahead for another directory is not taken.
  TopologyReportPreload elsewhere(out.file("other"), ro);
  ro.out_dir = out.file("report_other");
  CHECK(write_topology_report(out.path(), ro, &elsewhere).skipped.empty());
}

TEST_CASE("a topology directory without a readable topology.json is an error that names the file") {
  TempDir out;
  out.write("topology.json", "{ not json");
  report::ReportOptions ro;
  ro.out_dir = out.file("report");
  CHECK_THROWS_WITH_AS(write_topology_report(out.path(), ro), doctest::Contains("topology.json: not valid JSON"),
                       std::runtime_error);
}

TEST_CASE("a part made ahead for another report directory is not taken: the report makes its own") {
  TempDir out;
  auto device = open_device("sim:fermi-gtx560ti");
  TopologyOptions o = fast_topology(out.path(), {"l1_latency", "l1_size"});
  report::ReportOptions ro;
  // A stand-in gnuplot that says what it is and draws nothing: what the report writes of it
  // shows which probe's answer it used.
  const std::string fake = out.write("fake-gnuplot",
                                     "#!/bin/sh\n"
                                     "case \"$1\" in --version) echo 'gnuplot 9.9 fake'; exit 0;; -e) exit 0;; esac\n"
                                     "exit 5\n");
  ::chmod(fake.c_str(), 0755);
  ro.gnuplot = fake;
  ro.out_dir = out.file("report_first");
  TopologyReportPreload preload(out.path(), ro);
  CHECK(preload.gnuplot().version == "gnuplot 9.9 fake");
  o.bundle_complete = [&](const std::string& bundle, std::shared_ptr<AnalysedBundle> analysed) {
    preload.start(bundle, std::move(analysed));
  };
  std::atomic<bool> stop{false};
  REQUIRE(run_topology(*device, o, stop)["status"] == "complete");
  ro.out_dir = out.file("report_second");
  const TopologyReport rep = write_topology_report(out.path(), ro, &preload);
  CHECK(rep.skipped.empty());
  REQUIRE_FALSE(rep.result.plots.empty());
  for (const auto& p : rep.result.plots) {
    CHECK_MESSAGE(p.dir.find("report_second") != std::string::npos, p.dir);
    CHECK(p.error.find("status 5") != std::string::npos);  // rendered (and failed) here, by the fake
  }
  CHECK(rep.result.gnuplot_message.find("9.9") != std::string::npos);
}

TEST_CASE("two bundles of one name get one part made ahead between them; the report names the second apart") {
  TempDir out;
  auto device = open_device("sim:fermi-gtx560ti");
  TopologyOptions o = fast_topology(out.path(), {"l1_size"});
  std::atomic<bool> stop{false};
  const json r = run_topology(*device, o, stop);
  REQUIRE(r["status"] == "complete");
  const std::string bundle = r["experiments"][0]["bundle"].get<std::string>();
  fs::copy(fs::path(out.path()) / bundle, fs::path(out.path()) / (bundle + "_again"), fs::copy_options::recursive);
  report::ReportOptions ro;
  ro.render = false;
  ro.out_dir = out.file("report");
  TopologyReportPreload preload(out.path(), ro);
  preload.start(bundle);
  preload.start(bundle + "_again");
  TopologyReportPreload::Made a = preload.take(bundle)->get(), b = preload.take(bundle + "_again")->get();
  CHECK(a.data.name() == b.data.name());
  CHECK(a.part.has_value() + b.part.has_value() == 1);  // one directory, one part
  // Without its part: the data alone.
  preload.start(bundle + "_third");  // no such bundle: its reading fails, and says so
  CHECK_THROWS(preload.take(bundle + "_third", false)->get());
}
