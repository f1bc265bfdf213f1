#include <doctest/doctest.h>

#include <sstream>

#include "engine/report/plot.hpp"
#include "report_test_bundles.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
using namespace dissect::report;
using dissect::test::TempDir;

namespace {

PlotOutput block_plot(const ExperimentData& e) {
  const MissThreshold t = miss_threshold(e);
  PlotOutput p = make_plot(PlotKind::latency_over_block, {e, t, "pngcairo"});
  REQUIRE(p.skipped.empty());
  REQUIRE(p.data.size() == 1);
  return p;
}

// The data rows of a data file (comments and blank lines left out), split into cells.
std::vector<std::vector<std::string>> data_rows(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream cells(line);
    std::vector<std::string> row;
    for (std::string c; cells >> c;) row.push_back(c);
    rows.push_back(row);
  }
  return rows;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const nlohmann::json kLineFinding = {
    {"analyzer", "line_capacity"}, {"value", 128}, {"unit", "B"}, {"confidence", 0.93},
    {"details", {{"line_bytes", 128}, {"fetch_bytes", 32}, {"fits_from_block_bytes", 256}}},
    {"evidence", nlohmann::json::object()},
    {"summary", "128 B: one access per 128 B block still overflows the cache"}};

}  // namespace

TEST_CASE("plot latency_over_block: chosen for a page_random sweep of the block size at a fixed N") {
  TempDir tmp;
  std::string why;
  const auto choices = select_plots(load_experiment(test::line_blocks_bundle(tmp.file("lb"))), &why);
  REQUIRE(choices.size() == 1);
  CHECK(choices.front().kind == PlotKind::latency_over_block);
  CHECK(has(choices.front().reason, "page_bytes"));
  const SweepShape s = sweep_shape(load_experiment(tmp.file("lb")));
  CHECK(s.page_random);
  CHECK(s.blocks == 6);
  CHECK(s.varying == std::vector<std::string>{"page_bytes"});
}

TEST_CASE("plot latency_over_block: one row per block size, ascending; the script draws the named columns") {
  TempDir tmp;
  const PlotOutput p = block_plot(load_experiment(test::line_blocks_bundle(tmp.file("lb"), kLineFinding)));
  const DataFile& f = p.data.front();
  REQUIRE(f.columns == std::vector<std::string>{"block_bytes", "size_bytes", "mean", "median", "p5", "p95",
                                                "samples", "point_id"});
  const auto rows = data_rows(f.text());
  REQUIRE(rows.size() == 6);
  const std::vector<std::string> blocks{"32", "64", "128", "256", "512", "1024"};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    CAPTURE(i);
    REQUIRE(rows[i].size() == f.columns.size());
    CHECK(rows[i][0] == blocks[i]);       // block_bytes, ascending although written out of order
    CHECK(rows[i][1] == "245760");        // N = 240 KiB at every block
    CHECK(rows[i][6] == "3");             // three chains
  }
  // Chains at base, base, base + 30: mean base + 10, median base.
  CHECK(rows[2][2] == "310");
  CHECK(rows[2][3] == "300");
  CHECK(rows[3][2] == "50");
  CHECK(rows[3][3] == "40");

  // Column 1 (block_bytes) on x; mean 3, median 4, band p5 5 to p95 6.
  CHECK(has(p.script, "using 1:3 with linespoints ls 1 title 'mean'"));
  CHECK(has(p.script, "using 1:4 with lines"));
  CHECK(has(p.script, "using 1:5:6 with filledcurves"));
  CHECK(has(p.script, "data: latency_over_block.dat (columns: block_bytes size_bytes mean median p5 p95 samples "
                      "point_id)"));
  CHECK(has(p.script, "set logscale x 2"));
  CHECK(has(p.script, "block size b"));
  // The reported line is marked.
  CHECK(has(p.script, "set arrow 1 from first 128"));
  CHECK(has(p.script, "line_capacity: line = 128 B, fits from 256 B"));
  CHECK(has(p.caption, "The largest block that still overflows is the allocation line"));
  CHECK(has(p.caption, "over a fixed N = 240 KiB"));
  CHECK(has(p.caption, "chain timing"));
  CHECK(has(p.caption, "marks the line reported by the line_capacity finding (line = 128 B, fits from 256 B)."));
}

TEST_CASE("plot latency_over_block: without a line, the caption says why nothing is marked") {
  TempDir tmp;
  {
    const PlotOutput p = block_plot(load_experiment(test::line_blocks_bundle(tmp.file("none"))));
    CHECK_FALSE(has(p.script, "set arrow"));
    CHECK(has(p.caption, "No line_capacity finding to mark."));
  }
  nlohmann::json undetermined = kLineFinding;
  undetermined["value"] = nullptr;
  undetermined["summary"] = "every block size up to 1 KiB still fills the cache";
  const PlotOutput p = block_plot(load_experiment(test::line_blocks_bundle(tmp.file("und"), undetermined)));
  CHECK_FALSE(has(p.script, "set arrow"));
  CHECK(has(p.caption,
            "The line_capacity finding is undetermined: every block size up to 1 KiB still fills the cache."));
}
