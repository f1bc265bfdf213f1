#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>

#include "engine/report/gnuplot_runner.hpp"
#include "engine/report/report_writer.hpp"
#include "report_test_bundles.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
using namespace dissect::report;
using dissect::test::read_file;
using dissect::test::TempDir;
namespace fs = std::filesystem;

namespace {

bool valid_svg(const std::string& path) {
  const std::string s = read_file(path);
  return s.size() > 500 && (s.rfind("<?xml", 0) == 0 || s.rfind("<svg", 0) == 0) &&
         s.find("</svg>") != std::string::npos;
}

bool valid_png(const std::string& path) {
  const std::string s = read_file(path);
  return s.size() > 2000 && s.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0;
}

struct Bundles {
  std::string fine, tlb, bank, throughput, saavedra, stage1, blocks;
};

Bundles write_all(const std::string& root) {
  return {test::fine_size_bundle(root + "/fine"), test::tlb_bundle(root + "/tlb"), test::bank_bundle(root + "/bank"),
          test::throughput_bundle(root + "/tp"), test::saavedra_bundle(root + "/sv"),
          test::stage1_bundle(root + "/s1"), test::line_blocks_bundle(root + "/lb")};
}

}  // namespace

TEST_CASE("a report of every kind of experiment holds every plot, rendered as valid SVG and PNG") {
  REQUIRE_MESSAGE(find_gnuplot().found, "gnuplot is needed for this test (scripts/install-deps.sh installs gnuplot-nox)");
  TempDir tmp;
  // DISSECT_TEST_KEEP_REPORT=DIR keeps the bundles and the report there for a look.
  const char* keep = std::getenv("DISSECT_TEST_KEEP_REPORT");
  const std::string root = keep != nullptr ? keep : tmp.path();
  if (keep != nullptr) fs::remove_all(root);
  const Bundles b = write_all(root + "/bundles");
  ReportOptions opt;
  opt.out_dir = root + "/report";
  const ReportResult r =
      write_report({b.fine, b.tlb, b.bank, b.throughput, b.saavedra, b.stage1, b.blocks}, opt);

  CHECK(r.gnuplot_found);
  CHECK(r.warnings.empty());
  std::map<std::string, std::vector<PlotKind>> kinds;
  for (const auto& p : r.plots) kinds[p.experiment].push_back(p.kind);
  CHECK(kinds["fine_sizes"] ==
        std::vector<PlotKind>{PlotKind::latency_over_size, PlotKind::miss_staircase, PlotKind::trace_heatmap});
  CHECK(kinds["tlb_pages"] == std::vector<PlotKind>{PlotKind::tlb_staircase, PlotKind::trace_heatmap});
  CHECK(kinds["bank_conflicts"] == std::vector<PlotKind>{PlotKind::latency_over_stride});
  CHECK(kinds["throughput_grid"] == std::vector<PlotKind>{PlotKind::bandwidth_grid});
  CHECK(kinds["saavedra_grid"] == std::vector<PlotKind>{PlotKind::saavedra_grid});
  CHECK(kinds["stage1_single"] == std::vector<PlotKind>{PlotKind::trace_heatmap});
  CHECK(kinds["line_blocks"] == std::vector<PlotKind>{PlotKind::latency_over_block});
  REQUIRE(r.plots.size() == 10);
  CHECK(r.rendered() == 10);

  const std::string md = read_file(r.report_md);
  for (const auto& p : r.plots) {
    CAPTURE(p.script);
    CHECK(valid_svg(p.svg));
    CHECK(valid_png(p.png));
    CHECK(fs::exists(p.script));
    for (const auto& d : p.data) CHECK(fs::file_size(d) > 0);
    // report.md shows the picture and links its script and data.
    const std::string rel = fs::relative(p.svg, opt.out_dir).string();
    CHECK(md.find("](" + rel + ")") != std::string::npos);
    CHECK(md.find(fs::path(p.script).filename().string()) != std::string::npos);
  }
  for (const auto kind : all_plot_kinds()) CHECK(md.find(plot_title(kind)) != std::string::npos);
  // Header, findings, expectations.
  CHECK(md.find("test device (fake)") != std::string::npos);
  CHECK(md.find("dissect 0.1.0 (git test)") != std::string::npos);
  CHECK(md.find("| wall time | 1.23 s (kernels 100 ms, compile 50 ms) |") != std::string::npos);
  CHECK(md.find("| `cache_size` | 16 KiB (16384 B) | 0.93 | latency steps up past 16 KiB |") != std::string::npos);
  CHECK(md.find("| `sets` | undetermined | 0.00 | not enough points |") != std::string::npos);
  CHECK(md.find("| `cache_size == 16 KiB` | pass |") != std::string::npos);
  CHECK(md.find("No findings.json in the bundle") != std::string::npos);  // the other bundles
  // The knee is drawn where the finding says.
  const std::string los = read_file(opt.out_dir + "/fine_sizes/latency_over_size.gp");
  CHECK(los.find("set arrow 1 from first 16384") != std::string::npos);
  CHECK(los.find("cache_size = 16 KiB") != std::string::npos);
  // The miss staircase counts the known pattern: k of 8 accesses miss at 16 + k KiB.
  const std::string stairs = read_file(opt.out_dir + "/fine_sizes/miss_staircase.dat");
  CHECK(stairs.find("\n17408 17 12.5 256 2048 136 9\n") != std::string::npos);  // 1 in 8 at 17 KiB
  CHECK(stairs.find("\n16384 0 0 0 2048 128 8\n") != std::string::npos);
  CHECK(md.find("latency_levels finding (levels 30, 300 cycles") != std::string::npos);
}

TEST_CASE("downsampling: the heatmap keeps the window and row limits, and the report says so") {
  REQUIRE(find_gnuplot().found);
  TempDir tmp;
  const std::string bundle = test::fine_size_bundle(tmp.file("fine"));
  ReportOptions opt;
  opt.out_dir = tmp.file("report");
  opt.limits.window = 100;
  opt.limits.max_rows = 5;
  const ReportResult r = write_report({bundle}, opt);
  const std::string heat = read_file(opt.out_dir + "/fine_sizes/trace_heatmap.dat");
  std::size_t rows = 0;
  for (std::size_t pos = 0; (pos = heat.find('\n', pos)) != std::string::npos; ++pos) ++rows;
  CHECK(rows == 1 + 5);  // one comment line, five rows
  const std::string md = read_file(r.report_md);
  CHECK(md.find("Downsampled: shows the first 100 measured accesses") != std::string::npos);
  CHECK(md.find("Downsampled: shows 5 of 17 points") != std::string::npos);
}

TEST_CASE("without gnuplot the report still writes data files and scripts, and says so") {
  TempDir tmp;
  const std::string bundle = test::fine_size_bundle(tmp.file("fine"));
  ReportOptions opt;
  opt.out_dir = tmp.file("report");
  opt.gnuplot = tmp.file("no/such/gnuplot");
  const ReportResult r = write_report({bundle}, opt);
  CHECK_FALSE(r.gnuplot_found);
  CHECK(r.gnuplot_message.find("gnuplot not found") != std::string::npos);
  REQUIRE(r.plots.size() == 3);
  CHECK(r.rendered() == 0);
  for (const auto& p : r.plots) {
    CHECK(fs::file_size(p.script) > 0);
    CHECK_FALSE(p.data.empty());
    CHECK(p.svg.empty());
    CHECK_FALSE(fs::exists(fs::path(p.script).replace_extension(".svg")));
  }
  const std::string md = read_file(r.report_md);
  CHECK(md.find("**Plots not rendered:** gnuplot not found") != std::string::npos);
  CHECK(md.find("*Not rendered*: run `gnuplot latency_over_size.gp` in `fine_sizes/`") != std::string::npos);

  // The scripts it wrote render later, as they are.
  const Gnuplot gp = find_gnuplot();
  if (gp.found) {
    const auto run = run_gnuplot(gp, "latency_over_size.gp", opt.out_dir + "/fine_sizes", std::chrono::seconds(60));
    CHECK(run.status == 0);
    CHECK(fs::file_size(opt.out_dir + "/fine_sizes/latency_over_size.png") > 0);
  }
}

TEST_CASE("a bundle without plottable points still gets a section; extras come first") {
  TempDir tmp;
  std::vector<Experiment> one{test::report_experiment(KernelKind::pchase, 4096, 64, TimingMode::chain)};
  const std::string bundle = test::write_report_bundle(
      tmp.file("single"), "single_chain", one, [](const Experiment&, std::uint64_t) { return 42.0; }, 3);
  ReportOptions opt;
  opt.out_dir = tmp.file("report");
  opt.render = false;
  ReportExtras extras;
  extras.title = "Memory topology of a test GPU";
  extras.tables.push_back({"Topology", {"structure", "size"}, {{"L1", "16 KiB"}}, "measured by tests"});
  Finding f;
  f.analyzer = "l1_size";
  f.value = 16384;
  f.unit = "B";
  f.confidence = 0.9;
  f.summary = "from the topology suite";
  extras.findings.push_back(f);
  const ReportResult r = write_report({bundle}, opt, extras);
  CHECK(r.plots.empty());
  const std::string md = read_file(r.report_md);
  CHECK(md.rfind("# Memory topology of a test GPU\n", 0) == 0);
  CHECK(md.find("## Topology\n\n| structure | size |") != std::string::npos);
  CHECK(md.find("| `l1_size` | 16 KiB (16384 B) | 0.90 | from the topology suite |") != std::string::npos);
  CHECK(md.find("No plot: no plot kind fits a pchase experiment with 1 point(s)") != std::string::npos);
  CHECK(md.find("rendering was switched off") != std::string::npos);
  CHECK(md.find("## Topology") < md.find("## single_chain"));
}

TEST_CASE("two bundles with the same spec name get separate plot directories") {
  REQUIRE(find_gnuplot().found);
  TempDir tmp;
  const std::string a = test::bank_bundle(tmp.file("a"));
  const std::string b = test::bank_bundle(tmp.file("b"));
  ReportOptions opt;
  opt.out_dir = tmp.file("report");
  const ReportResult r = write_report({a, b}, opt);
  REQUIRE(r.plots.size() == 2);
  CHECK(fs::path(r.plots[0].dir).filename() == "bank_conflicts");
  CHECK(fs::path(r.plots[1].dir).filename() == "bank_conflicts-2");
  const std::string md = read_file(r.report_md);
  CHECK(md.find("## Experiments") != std::string::npos);
}
