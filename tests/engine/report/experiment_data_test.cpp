#include <doctest/doctest.h>

#include <algorithm>

#include "engine/report/experiment_data.hpp"
#include "report_test_bundles.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
using namespace dissect::report;
using dissect::test::TempDir;

TEST_CASE("spread_indices keeps all rows up to the limit, else spreads them evenly with both ends") {
  CHECK(spread_indices(3, 5) == std::vector<std::size_t>{0, 1, 2});
  CHECK(spread_indices(9, 3) == std::vector<std::size_t>{0, 4, 8});
  CHECK(spread_indices(100, 4) == std::vector<std::size_t>{0, 33, 66, 99});
  CHECK(spread_indices(0, 4).empty());
  CHECK(spread_indices(5, 1) == std::vector<std::size_t>{0});
}

TEST_CASE("load_experiment streams the trace: histogram of every sample, window of the first accesses") {
  TempDir tmp;
  const std::string dir = test::fine_size_bundle(tmp.file("fine"));
  ReportLimits limits;
  limits.window = 64;
  limits.max_rows = 4;
  const ExperimentData e = load_experiment(dir, limits);
  CHECK(e.name() == "fine_sizes");
  CHECK(e.has_findings_file);
  CHECK(e.findings.size() == 3);
  CHECK(e.expectations.size() == 1);
  REQUIRE(e.points.size() == 17);
  CHECK(e.trace_rows == 17 * 2048);
  CHECK(e.window_rows == 4);
  const PointData& p = e.points[9];  // 17 KiB: one access in eight misses
  CHECK(p.size_bytes() == 17408);
  CHECK(p.stride_bytes() == 128);
  CHECK(p.measured == 2048);
  CHECK(p.count_above(165) == 256);
  CHECK(p.count_above(1e9) == 0);
  CHECK(p.median_latency() == doctest::Approx(31));
  CHECK(p.number("accesses_per_pass") == 136);
  // Rows spread over the sweep: points 0, 5, 11, 16.
  std::vector<std::size_t> rows;
  for (const auto& q : e.points)
    if (q.in_window) rows.push_back(q.point_id);
  CHECK(rows == std::vector<std::size_t>{0, 5, 11, 16});
  CHECK(e.points[16].window.size() == 64);
  CHECK(e.points[16].window[0] == doctest::Approx(300));  // seq 0 misses at 24 KiB
  CHECK(e.points[16].window[1] == doctest::Approx(301));
  CHECK(e.points[9].window.empty());
  CHECK(e.finding("cache_size") != nullptr);
  CHECK(e.finding("nonexistent") == nullptr);
}

TEST_CASE("experiment_from_bundle gives the same data as streaming the files") {
  TempDir tmp;
  const std::string dir = test::tlb_bundle(tmp.file("tlb"));
  const ExperimentData streamed = load_experiment(dir);
  const ExperimentData in_memory = experiment_from_bundle(read_bundle(dir), nullptr);
  REQUIRE(streamed.points.size() == in_memory.points.size());
  CHECK_FALSE(in_memory.has_findings_file);
  for (std::size_t i = 0; i < streamed.points.size(); ++i) {
    CHECK(streamed.points[i].histogram == in_memory.points[i].histogram);
    CHECK(streamed.points[i].window == in_memory.points[i].window);
  }
}

TEST_CASE("discarded passes are left out of the histogram and the window") {
  TempDir tmp;
  std::vector<Experiment> pts{test::report_experiment(KernelKind::pchase, 1024, 128)};  // 8 accesses per pass
  pts[0].discard = 2;
  const std::string dir =
      test::write_report_bundle(tmp.file("d"), "discard", pts,
                                [](const Experiment&, std::uint64_t seq) { return seq < 16 ? 500.0 : 40.0; }, 64);
  // The bundle writer records discard_passes from the trace, which the helper leaves at 0: set it by hand.
  ExperimentData e = experiment_from_bundle(read_bundle(dir), nullptr);
  CHECK(e.points[0].measured == 64);
  Bundle b = read_bundle(dir);
  b.traces.points[0].discard_passes = 2;
  b.traces.points[0].params.erase("discard_passes");
  e = experiment_from_bundle(b, nullptr);
  CHECK(e.points[0].measured == 48);
  CHECK(e.points[0].count_above(100) == 0);
  CHECK(e.points[0].window.front() == doctest::Approx(40));
}

TEST_CASE("load_experiment names the file it cannot read") {
  TempDir tmp;
  CHECK_THROWS_WITH(load_experiment(tmp.file("nothing")), doctest::Contains("not a bundle directory"));
  tmp.write("b/bundle.json", "{\"x\": 1}");
  CHECK_THROWS_WITH(load_experiment(tmp.file("b")), doctest::Contains("no schema_version"));
  tmp.write("c/bundle.json", "{\"schema_version\": 1}");
  CHECK_THROWS_WITH(load_experiment(tmp.file("c")), doctest::Contains("points.csv: missing"));
  tmp.write("c/points.csv", "");
  CHECK_THROWS_WITH(load_experiment(tmp.file("c")), doctest::Contains("trace.csv: missing"));
}

TEST_CASE("load_experiment says what is damaged: malformed rows, missing samples, a killed run") {
  TempDir tmp;
  tmp.write("d/bundle.json", "{\"schema_version\": 1, \"status\": \"running\"}");
  tmp.write("d/points.csv", "point_id,status,samples\n0,ok,2\n1,ok\n2,ok,2\n3,ok,2\n3,o");  // row 3 short, torn tail
  tmp.write("d/trace.csv", "point_id,thread,seq,offset_bytes,latency,sm_id,phase\n0,0,0,0,10,0,0\n0,0,1,4,10,0,0\n"
                           "x,y\n2,0,0,0,10,0,0\n3,0,0,0,1");
  const ExperimentData e = load_experiment(tmp.file("d"));
  CHECK(e.points.size() == 3);
  const auto has = [&](const std::string& text) {
    return std::any_of(e.damage.begin(), e.damage.end(), [&](const std::string& d) { return d.find(text) != std::string::npos; });
  };
  CHECK(has("the run was killed"));
  CHECK(has("points.csv: 1 malformed rows left out"));
  CHECK(has("trace.csv: 1 malformed rows left out"));
  CHECK(has("point 2: trace.csv holds 1 measured samples, points.csv counts 2"));
  CHECK(has("point 3: trace.csv holds 0 measured samples, points.csv counts 2"));
  CHECK(e.damage.size() == 5);
}
