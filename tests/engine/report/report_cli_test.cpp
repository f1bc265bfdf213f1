// End-to-end: the `dissect report` verb on hand-made bundles.
#include <doctest/doctest.h>

#include <filesystem>

#include "report_test_bundles.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using dissect::test::run_command;
using dissect::test::run_dissect;
using dissect::test::TempDir;
namespace fs = std::filesystem;

TEST_CASE("dissect report: --help, bundle errors, default output directory") {
  const auto h = run_dissect("report --help");
  CHECK(h.status == 0);
  CHECK(h.output.find("Usage: dissect report") != std::string::npos);
  CHECK(run_dissect("report").status == 2);
  TempDir tmp;
  CHECK(run_dissect("report " + tmp.file("missing")).status == 2);
  const std::string a = dissect::test::bank_bundle(tmp.file("a"));
  const std::string b = dissect::test::fine_size_bundle(tmp.file("b"));
  const auto two = run_dissect("report " + a + " " + b);
  CHECK(two.status == 2);
  CHECK(two.output.find("several bundles need --out") != std::string::npos);

  const auto one = run_dissect("report " + a);
  CHECK(one.status == 0);
  CHECK(one.output.find(a + "/report/report.md: 1 plots") != std::string::npos);
  CHECK(fs::exists(a + "/report/bank_conflicts/latency_over_stride.gp"));
}

TEST_CASE("dissect report --out renders several bundles; without gnuplot on PATH it says so and writes scripts") {
  TempDir tmp;
  const std::string a = dissect::test::bank_bundle(tmp.file("a"));
  const std::string b = dissect::test::fine_size_bundle(tmp.file("b"));
  const auto r = run_dissect("report " + a + " " + b + " --out " + tmp.file("rep"));
  CHECK(r.status == 0);
  CHECK(r.output.find("4 plots, 4 rendered") != std::string::npos);
  CHECK(fs::file_size(tmp.file("rep/fine_sizes/trace_heatmap.png")) > 0);

  const auto bare = run_command("env PATH=/nonexistent DISSECT_GNUPLOT= '" + std::string(DISSECT_BINARY) +
                                "' report " + b + " --out " + tmp.file("bare"));
  CHECK(bare.status == 0);
  CHECK(bare.output.find("plots not rendered: gnuplot not found on PATH") != std::string::npos);
  CHECK(fs::exists(tmp.file("bare/fine_sizes/trace_heatmap.gp")));
  CHECK(fs::exists(tmp.file("bare/fine_sizes/trace_heatmap.dat")));
  CHECK_FALSE(fs::exists(tmp.file("bare/fine_sizes/trace_heatmap.svg")));
  CHECK(dissect::test::read_file(tmp.file("bare/report.md")).find("Plots not rendered") != std::string::npos);
}
