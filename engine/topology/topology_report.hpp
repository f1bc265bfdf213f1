#pragma once
// The topology as one report: the topology tables first, then every step's
// experiment with its plots (the report API, engine/report/report_writer.hpp).
// `dissect topology` writes it to <out>/report at the end of a run, and
// `dissect report DIR` writes it again for a topology directory (DIR holds
// topology.json), e.g. to render the plots on a machine that has gnuplot.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/core/worker_pool.hpp"
#include "engine/report/experiment_data.hpp"
#include "engine/report/report_writer.hpp"
#include "engine/run/runner.hpp"

namespace dissect {

// True when dir is the output directory of `dissect topology` (holds topology.json).
bool is_topology_dir(const std::string& dir);

struct TopologyReport {
  report::ReportResult result;
  std::vector<std::string> skipped;  // step bundles that could not be read, with why
};

// Step bundles read ahead, by bundle name (topology.json's experiments[].bundle): while a
// topology still measures, each complete step's report data is made on the worker pool,
// from the points its analyzers had in memory or else from its files, so that the report
// after the last step only renders.
class TopologyReportPreload {
 public:
  TopologyReportPreload(std::string topology_dir, report::ReportLimits limits)
      : dir_(std::move(topology_dir)), limits_(limits) {}
  // Starts making the bundle's data: from `analysed` (the bundle as its files hold it) where
  // given, else by reading its files (which must be complete); a name started already is left.
  void start(const std::string& bundle, std::shared_ptr<AnalysedBundle> analysed = nullptr);
  // The reading of that bundle, or nullptr where none was started.
  [[nodiscard]] std::shared_ptr<workers::Job<report::ExperimentData>> take(const std::string& bundle);
  // What the readings were started with.
  [[nodiscard]] const std::string& dir() const { return dir_; }
  [[nodiscard]] const report::ReportLimits& limits() const { return limits_; }

 private:
  std::string dir_;
  report::ReportLimits limits_;
  std::map<std::string, std::shared_ptr<workers::Job<report::ExperimentData>>> jobs_;
};

// Writes the report of the topology run in topology_dir (its topology.json and
// step bundles) to options.out_dir. Steps whose bundle is missing or unreadable
// (failed, interrupted) are listed in the experiment table and left out of the
// plots. Bundles `preloaded` read already (same directory and limits) are taken
// from it. Throws std::runtime_error when topology.json cannot be read.
TopologyReport write_topology_report(const std::string& topology_dir, const report::ReportOptions& options,
                                     TopologyReportPreload* preloaded = nullptr);

}  // namespace dissect
