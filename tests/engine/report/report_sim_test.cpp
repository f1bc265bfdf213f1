// End to end on the simulated GPU: `dissect run` of library specs on
// sim:kepler-gtx780, then `dissect report`: every plot kind appears, each a
// valid, non-empty SVG and PNG.
#include <doctest/doctest.h>

#include <filesystem>
#include <map>

#include "engine/report/gnuplot_runner.hpp"
#include "support/process.hpp"
#include "support/temp_dir.hpp"

using dissect::test::read_file;
using dissect::test::run_dissect;
using dissect::test::TempDir;
namespace fs = std::filesystem;

TEST_CASE("a report of a simulated run holds every expected plot, rendered") {
  REQUIRE_MESSAGE(dissect::report::find_gnuplot().found, "gnuplot is needed (scripts/install-deps.sh)");
  TempDir tmp;
  // spec -> the plots its report must hold
  const std::map<std::string, std::vector<std::string>> expected{
      {"mei/texture_l1_stage2_2", {"latency_over_size", "miss_staircase", "trace_heatmap"}},
      {"mei/tlb_levels", {"tlb_staircase", "trace_heatmap"}},
      {"mei/shared_latency_stride", {"latency_over_stride"}},
      {"mei/global_throughput", {"bandwidth_grid"}},
      {"meltzer/saavedra_ca", {"saavedra_grid"}},
  };
  std::string bundles;
  for (const auto& [spec, plots] : expected) {
    const auto r = run_dissect("run " + std::string(DISSECT_SOURCE_DIR) + "/specs/" + spec +
                               ".yaml --device sim:kepler-gtx780 -q --out " + tmp.file("runs"));
    CAPTURE(spec);
    CAPTURE(r.output);
    REQUIRE(r.status == 0);
  }
  for (const auto& e : fs::directory_iterator(tmp.file("runs"))) bundles += " " + e.path().string();
  const auto rep = run_dissect("report" + bundles + " --out " + tmp.file("report"));
  CAPTURE(rep.output);
  REQUIRE(rep.status == 0);
  CHECK(rep.output.find("rendered") != std::string::npos);

  const std::string md = read_file(tmp.file("report/report.md"));
  for (const auto& [spec, plots] : expected) {
    const std::string name = spec.substr(0, spec.find('/')) + "_" + spec.substr(spec.find('/') + 1);
    for (const auto& plot : plots) {
      const std::string stem = tmp.file("report/" + name + "/" + plot);
      CAPTURE(stem);
      const std::string svg = read_file(stem + ".svg"), png = read_file(stem + ".png");
      CHECK(svg.size() > 1000);
      CHECK((svg.rfind("<?xml", 0) == 0 || svg.rfind("<svg", 0) == 0));
      CHECK(svg.find("</svg>") != std::string::npos);
      CHECK(png.size() > 5000);
      CHECK(png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
      CHECK(md.find("](" + name + "/" + plot + ".svg)") != std::string::npos);
    }
  }
  // The analyzers' findings are in the report and mark the plots.
  CHECK(md.find("| `tlb` | 2 levels |") != std::string::npos);
  CHECK(read_file(tmp.file("report/mei_tlb_levels/tlb_staircase.gp")).find("TLB level 1 covers 32 MiB") !=
        std::string::npos);
  CHECK(md.find("| `bank_conflicts` | 32 banks |") != std::string::npos);
}
