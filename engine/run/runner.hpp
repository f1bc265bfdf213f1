#pragma once
// Runs one spec on one device into a fresh bundle, then analyses it.
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/bundle/bundle.hpp"
#include "engine/device/device.hpp"
#include "engine/run/analysis.hpp"
#include "engine/spec/spec.hpp"

namespace dissect {

struct RunOptions {
  std::string out_parent = "runs";     // bundles go to out_parent/<spec name>[-N]
  std::vector<std::string> argv;       // recorded in bundle.json
  bool analyze = true;                 // run the spec's analyzers afterwards
  bool progress = false;               // progress line on stderr
  // Continue this bundle (dissect run --resume) instead of claiming a fresh one:
  // its committed points are kept, the spec's other points are measured.
  // check_resumable() says whether the spec, device and tool allow it.
  std::string resume_dir;
  // Called with the bundle's directory once it is claimed (or reopened), before
  // any point runs: a topology records it, so that a step killed mid-run is resumed.
  std::function<void(const std::string&)> bundle_opened;
  // Leave the analysis to the caller (RunOutcome::analysis): run_spec returns once the
  // points are measured, so that a topology measures its next step while this one is
  // analysed. A complete run's last points may still be on their way to the disk: the
  // analysis waits for them (a failed store fails it: finish_analysis throws) before it
  // reads them, and seals the bundle. The bundle stays locked until the analysis is finished.
  bool defer_analysis = false;
  // With defer_analysis: finish_analysis hands the bundle as the analyzers read it to the
  // caller (RunOutcome::analysed), so that a report is made from memory, not from its files
  // (not for a resumed run, whose points the analysis read back from them).
  bool keep_analysed = false;
};

// A finished analysis's bundle, as its files now hold it (RunOptions::keep_analysed).
struct AnalysedBundle {
  Bundle bundle;                 // its directory, bundle.json, committed points
  nlohmann::json findings_file;  // findings.json: {findings, expectations}
};

// The analysis of one run that run_spec left (RunOptions::defer_analysis): the spec's
// analyzers over the run's points, each a job of its own that may run on any thread,
// side by side with the others; then finish_analysis.
class RunAnalysis;

struct RunOutcome {
  std::string bundle_dir;
  std::string status;  // complete | interrupted | failed | unsupported (the device cannot run it)
  std::string error;   // for failed
  // For a run the device's fault ended (DeviceFault): what it was and whether the device
  // recovered (bundle.json "fault"); null otherwise.
  nlohmann::json fault;
  // What the GPU's SM clock and other processes did meanwhile (bundle.json "conditions",
  // engine/device/run_conditions.hpp), and the lines to warn of on the terminal.
  nlohmann::json conditions;
  std::vector<std::string> condition_warnings;
  std::size_t points_total = 0;
  std::size_t points_done = 0;
  RunTimings timings;
  double wall_ms = 0;      // the run: points measured and stored (with defer_analysis, a complete
                           // run's last stores may still run: the analysis waits for them)
  double analysis_ms = 0;  // the analyzers, after the run
  std::vector<Finding> findings;
  std::vector<ExpectationResult> expectations;
  // With defer_analysis: what is left to analyse (null when nothing is: no analyzers, no
  // points, or the run threw before its bundle was finished).
  std::shared_ptr<RunAnalysis> analysis;
  // Filled by finish_analysis where RunOptions::keep_analysed asked for it.
  std::shared_ptr<AnalysedBundle> analysed;
};

RunOutcome run_spec(const Spec& spec, Device& device, const RunOptions& options, const std::atomic<bool>& stop);

// The analyzer jobs of a deferred analysis (one per analyzer the spec names, in its order).
std::size_t analysis_jobs(const RunAnalysis& analysis);
// Runs job i (i < analysis_jobs); distinct jobs may run at the same time on different threads.
void run_analysis_job(RunAnalysis& analysis, std::size_t i);
// Once every job has run: the findings and expectations into `out` (as run_spec gives them
// without defer_analysis), findings.json written, the bundle released; analysis_ms is the
// analyzers' time, summed over the jobs. Throws what writing findings.json throws, and a RunError
// when storing the run's points failed (then out.status is "failed" and the bundle says why).
void finish_analysis(RunOutcome& out);

// bundle.json header for a run (exposed for tests).
nlohmann::json bundle_header(const Spec& spec, const Device& device, const RunOptions& options);

}  // namespace dissect
