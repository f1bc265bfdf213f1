#include <doctest/doctest.h>

#include "engine/report/plot.hpp"
#include "report_test_bundles.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
using namespace dissect::report;
using dissect::test::TempDir;

namespace {

std::string data_of(const ExperimentData& e) {
  const MissThreshold t = miss_threshold(e);
  const PlotOutput p = plot_bandwidth_grid({e, t, "pngcairo"});
  REQUIRE(p.skipped.empty());
  REQUIRE(p.data.size() == 1);
  return p.data.front().text() + p.script + p.caption;
}

}  // namespace

TEST_CASE("bandwidth: bytes loaded over kernel time, one line per ILP over warps") {
  TempDir tmp;
  const std::string text = data_of(load_experiment(test::throughput_bundle(tmp.file("a"))));
  // ILP 1, 1 warp: 32 x 256 x 1 x 4 B = 32768 B in 0.05 ms = 0.65536 GB/s.
  CHECK(text.find("\n1 1 0.65536 0.65536 ") != std::string::npos);
  CHECK(text.find("set logscale x 2") != std::string::npos);
  CHECK(text.find("title 'ILP 8'") != std::string::npos);
  CHECK(text.find("set ylabel 'bandwidth (GB/s)'") != std::string::npos);
  CHECK(text.find("peak 167.8 GB/s (ILP 8, 32 warps)") != std::string::npos);
}

TEST_CASE("bandwidth: without a kernel time, bytes per cycle from the slowest warp") {
  TempDir tmp;
  const std::string text = data_of(load_experiment(test::throughput_bundle(tmp.file("a"), false)));
  CHECK(text.find("set ylabel 'bandwidth (bytes per cycle)'") != std::string::npos);
  // ILP 1, 1 warp: 32768 B over 410 cycles.
  CHECK(text.find("\n1 1 79.92") != std::string::npos);
}

TEST_CASE("bandwidth: the bandwidth finding's table wins over the trace") {
  TempDir tmp;
  ExperimentData e = load_experiment(test::throughput_bundle(tmp.file("a")));
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& p : e.points) rows.push_back({{"point_id", p.point_id}, {"gbps", 100.0 + static_cast<double>(p.point_id)}});
  e.findings.push_back({{"analyzer", "bandwidth"}, {"value", 123}, {"unit", "GB/s"}, {"evidence", {{"points", rows}}}});
  const std::string text = data_of(e);
  CHECK(text.find("\n1 1 100 100 ") != std::string::npos);
  CHECK(text.find("the bandwidth finding's per-point table") != std::string::npos);
}
