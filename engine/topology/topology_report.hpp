#pragma once
// The topology as one report: the topology tables first, then every step's
// experiment with its plots (the report API, engine/report/report_writer.hpp).
// `dissect topology` writes it to <out>/report at the end of a run, and
// `dissect report DIR` writes it again for a topology directory (DIR holds
// topology.json), e.g. to render the plots on a machine that has gnuplot.
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
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

// Step bundles made into their parts of the report ahead, by bundle name (topology.json's
// experiments[].bundle): while a topology still measures, each complete step's report data
// is made on the worker pool (from the points its analyzers had in memory, else from its
// files), and then its part of the report (plot data, scripts, pictures) is written into
// the report's directory, a few parts at a time beside the analyses, so that after the table
// the report has little left to do.
class TopologyReportPreload {
 public:
  // The report's options (its directory, gnuplot, limits); gnuplot is looked for at once
  // where the report renders (find_gnuplot runs it a few times).
  TopologyReportPreload(std::string topology_dir, report::ReportOptions options);
  // Parts and readings not begun are called off; the parts being made are waited for.
  ~TopologyReportPreload();
  TopologyReportPreload(const TopologyReportPreload&) = delete;
  TopologyReportPreload& operator=(const TopologyReportPreload&) = delete;

  // A bundle's data and its part: part.section.data points at `data` where it was made, and
  // must be pointed at wherever `data` is moved to (write_report does). No part where it
  // could not be written (the report makes it again and says why).
  struct Made {
    report::ExperimentData data;
    std::optional<report::ExperimentPart> part;
  };
  // Starts making the bundle's data, then its part: from `analysed` (the bundle as its files
  // hold it) where given, else by reading its files (which must be complete); a name started
  // already is left.
  void start(const std::string& bundle, std::shared_ptr<AnalysedBundle> analysed = nullptr);
  // What was started for that bundle (its get() waits, or does what no worker has begun), or
  // nullptr where nothing was. Without `with_part` its part is called off where it has not
  // begun (a report to another directory or with other options: the data alone).
  [[nodiscard]] std::shared_ptr<workers::Job<Made>> take(const std::string& bundle, bool with_part = true);
  // The measurements are over: every part still waiting for its turn goes to the pool now.
  void hurry();
  // What renders the parts (report::report_gnuplot of the options; waits for the probe).
  [[nodiscard]] report::Gnuplot gnuplot();
  [[nodiscard]] const std::string& dir() const { return dir_; }
  [[nodiscard]] const report::ReportOptions& options() const { return options_; }

 private:
  using PartJob = workers::Job<Made>;
  // Parts waiting for their turn and the lanes in use: shared with the lanes' tasks, which
  // may still be on their way out when the preload is gone.
  struct Lanes {
    std::mutex mutex;
    std::condition_variable idle;  // busy came to 0
    std::deque<std::shared_ptr<PartJob>> waiting;
    std::size_t busy = 0;
    bool hurry = false;
  };
  // Queues `jobs` (a lane freed by the caller, where lane_freed) and starts what may start.
  static void launch(const std::shared_ptr<Lanes>& lanes, std::vector<std::shared_ptr<PartJob>> jobs, bool lane_freed);

  // Claims a part's directory under the report: false where another part has it (two
  // bundles of one name, or names file_slug makes alike: the report names the second apart).
  bool claim_slug(const std::string& slug);

  struct Started {
    std::shared_ptr<workers::Job<report::ExperimentData>> data;
    std::shared_ptr<PartJob> part;  // takes the data (a Job's result is taken once)
  };
  std::string dir_;
  report::ReportOptions options_;
  std::map<std::string, Started> jobs_;
  std::mutex slugs_mutex_;
  std::set<std::string> slugs_;
  std::shared_ptr<workers::Job<report::Gnuplot>> probe_;
  std::optional<report::Gnuplot> gnuplot_;
  std::mutex gnuplot_mutex_;
  std::shared_ptr<Lanes> lanes_ = std::make_shared<Lanes>();
};

// Writes the report of the topology run in topology_dir (its topology.json and
// step bundles) to options.out_dir. Steps whose bundle is missing or unreadable
// (failed, interrupted) are listed in the experiment table and left out of the
// plots. Bundles `preloaded` read already (same directory and limits) are taken
// from it, and the parts it made where it was given these options. Throws
// std::runtime_error when topology.json cannot be read.
TopologyReport write_topology_report(const std::string& topology_dir, const report::ReportOptions& options,
                                     TopologyReportPreload* preloaded = nullptr);

}  // namespace dissect
