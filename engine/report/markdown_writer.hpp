#pragma once
// report.md: a header (title, tool, how the plots were rendered), optional
// extra tables and findings (the topology verb's), an overview of the
// experiments, then per experiment its run (device, spec, tool version, wall
// time, status), its findings and expectations, and its plots with captions,
// links to the data files and scripts, and what was downsampled.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/report/experiment_data.hpp"
#include "engine/report/plot.hpp"

namespace dissect::report {

struct ReportTable {
  std::string title;
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;
  std::string note;  // Markdown under the table
};

struct PlotSection {
  PlotOutput plot;        // stem, title, caption, notes, data file names
  std::string reason;     // why this plot fits the experiment
  std::string rel_dir;    // directory of its files, relative to report.md
  bool svg = false;       // rendered and non-empty
  bool png = false;
  std::string error;      // gnuplot's complaint, when rendering failed
};

struct ExperimentSection {
  const ExperimentData* data = nullptr;
  std::string rel_dir;            // its plot directory, relative to report.md
  std::string threshold_source;   // how misses were told from hits
  std::vector<PlotSection> plots;
  std::vector<std::string> skipped;  // plots that fit but had nothing to draw: "title: why"
  std::string why_none;              // no plot kind fits
};

struct ReportDocument {
  std::string title = "dissect report";
  std::string generated;   // "dissect 0.1.0 (git abc), 2026-...Z"
  std::string rendering;   // how (or why not) the plots were rendered
  bool rendered = false;   // gnuplot ran
  std::string intro;       // Markdown
  std::vector<ReportTable> tables;
  nlohmann::json findings = nlohmann::json::array();  // findings not stored in a bundle
  std::vector<ExperimentSection> experiments;
};

std::string render_markdown(const ReportDocument& doc);

// The pieces (tested on their own).
std::string markdown_table(const std::vector<std::string>& columns, const std::vector<std::vector<std::string>>& rows);
std::string finding_value_text(const nlohmann::json& finding);   // "16 KiB", "412.5 cycles", "undetermined"
std::string findings_table(const nlohmann::json& findings);      // analyzer | value | confidence | summary
std::string expectations_table(const nlohmann::json& expectations);  // expectation | outcome | measured | message
std::string run_table(const ExperimentData& data);               // device, spec, tool, times, status
std::string markdown_anchor(const std::string& heading);         // GitHub's heading anchors

}  // namespace dissect::report
