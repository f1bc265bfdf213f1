#include <doctest/doctest.h>

#include "engine/report/plot_selection.hpp"
#include "report_test_bundles.hpp"
#include "support/temp_dir.hpp"

using namespace dissect;
using namespace dissect::report;
using dissect::test::TempDir;

namespace {

std::vector<PlotKind> kinds_of(const std::string& dir, std::string* why = nullptr) {
  std::vector<PlotKind> out;
  for (const auto& c : select_plots(load_experiment(dir), why)) out.push_back(c.kind);
  return out;
}

}  // namespace

TEST_CASE("plot selection follows the sweep: what varies, the kernel, the timing mode") {
  TempDir tmp;
  CHECK(kinds_of(test::fine_size_bundle(tmp.file("fine"))) ==
        std::vector<PlotKind>{PlotKind::latency_over_size, PlotKind::miss_staircase, PlotKind::trace_heatmap});
  CHECK(kinds_of(test::tlb_bundle(tmp.file("tlb"))) ==
        std::vector<PlotKind>{PlotKind::tlb_staircase, PlotKind::trace_heatmap});
  CHECK(kinds_of(test::bank_bundle(tmp.file("bank"))) == std::vector<PlotKind>{PlotKind::latency_over_stride});
  CHECK(kinds_of(test::throughput_bundle(tmp.file("tp"))) == std::vector<PlotKind>{PlotKind::bandwidth_grid});
  CHECK(kinds_of(test::saavedra_bundle(tmp.file("sv"))) == std::vector<PlotKind>{PlotKind::saavedra_grid});
  CHECK(kinds_of(test::line_blocks_bundle(tmp.file("lb"))) == std::vector<PlotKind>{PlotKind::latency_over_block});
}

TEST_CASE("sweep_shape counts distinct values and tells a grid from a zip") {
  TempDir tmp;
  const SweepShape grid = sweep_shape(load_experiment(test::saavedra_bundle(tmp.file("sv"))));
  CHECK(grid.points == 44);
  CHECK(grid.sizes == 11);
  CHECK(grid.strides == 4);
  CHECK(grid.grid);
  CHECK_FALSE(grid.fine_grained);
  CHECK(grid.varying == std::vector<std::string>{"size_bytes", "stride_bytes"});

  // Zipped N and s (Mei & Chu's stages): every size has one stride, not a grid.
  std::vector<Experiment> zip{test::report_experiment(KernelKind::pchase, 12292, 4),
                              test::report_experiment(KernelKind::pchase, 12320, 32),
                              test::report_experiment(KernelKind::pchase, 12448, 32)};
  const std::string dir = test::write_report_bundle(
      tmp.file("zip"), "zip", zip, [](const Experiment&, std::uint64_t s) { return s % 8 ? 30.0 : 300.0; }, 64);
  const SweepShape z = sweep_shape(load_experiment(dir));
  CHECK_FALSE(z.grid);
  CHECK(kinds_of(dir) ==
        std::vector<PlotKind>{PlotKind::latency_over_size, PlotKind::miss_staircase, PlotKind::trace_heatmap});
}

TEST_CASE("a single fine-grained point gets its trace; a single chain point gets nothing, with a reason") {
  TempDir tmp;
  std::vector<Experiment> one{test::report_experiment(KernelKind::pchase, 12292, 4)};
  CHECK(kinds_of(test::write_report_bundle(tmp.file("a"), "stage1", one,
                                           [](const Experiment&, std::uint64_t) { return 30.0; }, 64)) ==
        std::vector<PlotKind>{PlotKind::trace_heatmap});
  one[0].timing.mode = TimingMode::chain;
  std::string why;
  CHECK(kinds_of(test::write_report_bundle(tmp.file("b"), "chain1", one,
                                           [](const Experiment&, std::uint64_t) { return 30.0; }, 4),
                 &why)
            .empty());
  CHECK(why.find("no plot kind fits a pchase experiment with 1 point(s)") == 0);
}

TEST_CASE("plot kinds have stable file stems and titles") {
  CHECK(all_plot_kinds().size() == 8);
  CHECK(std::string(to_string(PlotKind::latency_over_block)) == "latency_over_block");
  CHECK(std::string(to_string(PlotKind::saavedra_grid)) == "saavedra_grid");
  CHECK(std::string(to_string(PlotKind::trace_heatmap)) == "trace_heatmap");
  for (auto k : all_plot_kinds()) CHECK(std::string(plot_title(k)).size() > 5);
}
