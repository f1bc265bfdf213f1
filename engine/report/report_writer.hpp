#pragma once
// The report API: bundles in, report.md and plots out.
//
//   dissect::report::ReportOptions opt;
//   opt.out_dir = "results/h200";
//   dissect::report::ReportExtras extra;           // optional
//   extra.title = "Memory topology of NVIDIA H200";
//   extra.tables.push_back({"Topology", {"structure", "size", "line", "latency"}, rows, ""});
//   extra.findings = topology_findings;           // std::vector<Finding>, shown first
//   auto r = dissect::report::write_report(bundle_dirs, opt, extra);
//   // r.report_md, r.plots (each with its files and whether it rendered), r.gnuplot_message
//
// Layout of out_dir: report.md, and one directory per experiment (the spec
// name, made unique) holding for each plot STEM.dat (data), STEM.gp (script),
// STEM.svg and STEM.png. Without gnuplot the data and scripts are still
// written and report.md says so. out_dir is created; files of an earlier
// report there are replaced.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "engine/findings/finding.hpp"
#include "engine/report/experiment_data.hpp"
#include "engine/report/gnuplot_runner.hpp"
#include "engine/report/markdown_writer.hpp"
#include "engine/report/plot_selection.hpp"

namespace dissect::report {

struct ReportOptions {
  std::string out_dir;                                   // required
  std::string gnuplot;                                   // path or name; "" = $DISSECT_GNUPLOT, else gnuplot on PATH
  bool render = true;                                    // false: data files and scripts only
  std::chrono::milliseconds timeout{60000};              // per gnuplot script
  ReportLimits limits;                                   // downsampling
  // find_gnuplot(gnuplot)'s answer where it is known already (a topology probes gnuplot while
  // it measures); else the report probes it.
  std::optional<Gnuplot> probed_gnuplot;
};

struct ReportExtras {
  std::string title = "dissect report";
  std::string intro;                  // Markdown after the header
  std::vector<ReportTable> tables;    // before the experiments (e.g. the topology table)
  std::vector<Finding> findings;      // findings stored in no bundle, shown before the experiments
};

struct ReportPlot {
  std::string experiment;   // spec name
  PlotKind kind = PlotKind::latency_over_size;
  std::string dir;          // its files' directory
  std::string script;       // paths of the files
  std::vector<std::string> data;
  std::string svg, png;     // "" when not rendered
  std::string error;        // gnuplot's complaint
};

struct ReportResult {
  std::string report_md;         // path of report.md
  bool gnuplot_found = false;
  std::string gnuplot_message;   // what rendered the plots, or why nothing did
  std::vector<ReportPlot> plots;
  std::vector<std::string> warnings;  // plots that failed to render, experiments without plots
  [[nodiscard]] std::size_t rendered() const;  // plots with an SVG or PNG
};

// One experiment's part of a report: its plots' data files, scripts and pictures under
// out_dir/slug, and its section of report.md. write_report makes one per experiment; a part
// made ahead (while a topology still measures) is handed to it instead.
struct ExperimentPart {
  std::string slug;                   // the directory under out_dir
  ExperimentSection section;          // section.data: the experiment it was made from
  std::vector<ReportPlot> plots;
  std::vector<std::string> warnings;  // plots that failed to render, no plot at all
};

// What renders the plots under `options`: the gnuplot found (options.probed_gnuplot where
// given), or why none does.
Gnuplot report_gnuplot(const ReportOptions& options);

// Writes `data`'s part under options.out_dir/slug (created), rendered with `gp` where found.
ExperimentPart write_experiment_part(const ExperimentData& data, const Gnuplot& gp, const ReportOptions& options,
                                     const std::string& slug);

// Loads each bundle (streaming, within options.limits) and writes the report.
// Throws std::runtime_error naming the bundle when one cannot be read.
ReportResult write_report(const std::vector<std::string>& bundle_dirs, const ReportOptions& options,
                          const ReportExtras& extras = {});
// The same for experiments already loaded (load_experiment / experiment_from_bundle).
// ahead[i], where set, is experiments[i]'s part made already with these options and the
// report's gnuplot: taken where this report gives the experiment the same directory.
ReportResult write_report(const std::vector<ExperimentData>& experiments, const ReportOptions& options,
                          const ReportExtras& extras = {}, std::vector<std::optional<ExperimentPart>> ahead = {});

}  // namespace dissect::report
