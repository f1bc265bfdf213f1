#pragma once
// One plot of one experiment: its data files, its gnuplot script, and the
// words report.md puts around it. Each plot kind is one file
// (plot_<kind>.cpp) with one generator; make_plot dispatches.
#include <string>
#include <vector>

#include "engine/report/data_file.hpp"
#include "engine/report/experiment_data.hpp"
#include "engine/report/miss_threshold.hpp"
#include "engine/report/plot_selection.hpp"

namespace dissect::report {

struct PlotContext {
  const ExperimentData& data;
  const MissThreshold& threshold;
  std::string png_terminal = "pngcairo";
};

struct PlotOutput {
  PlotKind kind = PlotKind::latency_over_size;
  std::string stem;                 // files: STEM.gp, STEM.svg, STEM.png, data files
  std::string title;                // heading in report.md
  std::string caption;              // what is shown and how to read it
  std::vector<std::string> notes;   // downsampling and other caveats
  std::vector<DataFile> data;
  std::string script;
  std::string skipped;              // non-empty: nothing to draw, and why
};

PlotOutput make_plot(PlotKind kind, const PlotContext& ctx);

// Shared by the generators: the comment lines at the top of a script, and the
// `set title` line (spec name and plot title).
std::vector<std::string> plot_about(const PlotContext& ctx, PlotKind kind, const std::vector<DataFile>& data);
std::string title_setting(const PlotContext& ctx, PlotKind kind, const std::string& detail = "");

PlotOutput plot_latency_over_size(const PlotContext& ctx);
PlotOutput plot_trace_heatmap(const PlotContext& ctx);
PlotOutput plot_miss_staircase(const PlotContext& ctx);
PlotOutput plot_tlb_staircase(const PlotContext& ctx);
PlotOutput plot_latency_over_stride(const PlotContext& ctx);
PlotOutput plot_bandwidth_grid(const PlotContext& ctx);
PlotOutput plot_saavedra_grid(const PlotContext& ctx);
PlotOutput plot_latency_over_block(const PlotContext& ctx);

}  // namespace dissect::report
