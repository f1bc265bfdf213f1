// The Saavedra grid: one line per stride, also where a sweep sets each point's iterations
// (the topology's TLB footprint sweep: latency over the footprint per stride).
#include <doctest/doctest.h>

#include "engine/report/plot.hpp"
#include "report_test_bundles.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
using namespace dissect::report;
using dissect::test::TempDir;

TEST_CASE("saavedra grid: one line per stride, iterations that differ per point name no series") {
  TempDir tmp;
  // A footprint sweep: slots of 2 and 4 MiB, each point's iterations four times its slots
  // (as tlb_sweeps.cpp sets them), 30 cycles while 64 MiB fit, 130 beyond.
  std::vector<Experiment> pts;
  for (std::uint64_t s : {2u << 20, 4u << 20})
    for (std::uint64_t slots = 8; slots <= 128; slots *= 2) {
      Experiment e = test::report_experiment(KernelKind::pchase, slots * s, s);
      e.target = Target::tlb;
      e.iterations = 4 * slots;
      pts.push_back(e);
    }
  const test::LatencyFn lat = [](const Experiment& e, std::uint64_t) {
    return e.array.size_bytes <= (64u << 20) ? 30.0 : 130.0;
  };
  const ExperimentData data = load_experiment(test::write_report_bundle(tmp.file("fp"), "footprint", pts, lat, 64));
  PlotOutput p = make_plot(PlotKind::saavedra_grid, {data, miss_threshold(data), "pngcairo"});
  CAPTURE(p.skipped);
  REQUIRE(p.skipped.empty());
  REQUIRE(p.data.size() == 1);
  REQUIRE(p.data[0].blocks.size() == 2);  // one per stride
  CHECK(p.data[0].blocks[0].rows.size() == 5);
  CHECK(p.data[0].blocks[1].rows.size() == 5);
  CHECK(p.script.find("index 1") != std::string::npos);
}
