#pragma once
// Runs one spec on one device into a fresh bundle, then analyses it.
#include <atomic>
#include <functional>
#include <string>
#include <vector>

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
};

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
  double wall_ms = 0;      // the run: points measured and stored (analysis not included)
  double analysis_ms = 0;  // the analyzers, after the run
  std::vector<Finding> findings;
  std::vector<ExpectationResult> expectations;
};

RunOutcome run_spec(const Spec& spec, Device& device, const RunOptions& options, const std::atomic<bool>& stop);

// bundle.json header for a run (exposed for tests).
nlohmann::json bundle_header(const Spec& spec, const Device& device, const RunOptions& options);

}  // namespace dissect
