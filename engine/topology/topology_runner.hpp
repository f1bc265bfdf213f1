#pragma once
// Runs the topology plan on one device: one bundle per step under the output
// directory, each step sized from what the earlier steps measured. A failing
// step is recorded and the suite goes on; Ctrl-C stops after the step in hand.
#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/core/directory_lock.hpp"
#include "engine/device/device.hpp"
#include "engine/run/runner.hpp"

namespace dissect {

struct TopologyOptions {
  std::string out_dir = "topology";  // bundles go to <out_dir>/<step id>
  bool fast = false;                 // skip the slow steps (bandwidth); CI uses this on sim
  bool progress = false;             // a line per step on stderr (topology_progress.hpp)
  bool status_line = false;          // with progress: also the step being measured, rewritten in place (a terminal)
  std::vector<std::string> argv;
  std::vector<std::string> only;     // run only these step ids (empty: all)
  // Continue the topology recorded in out_dir/topology.json (its mode and steps;
  // fast and only are ignored): completed steps are kept, the rest measured.
  // Throws RunError when it was written by another dissect or on another device.
  bool resume = false;
  // With resume: run again the steps a kernel fault failed (kept as failed otherwise: they
  // would fault again, and a fault can cost the process its GPU).
  bool retry_failed = false;
  // Called on the calling thread when a step's bundle is complete (analysed, findings.json
  // written), with its directory name under out_dir and, where the step was measured and
  // analysed in this process, the bundle as its analyzers had it (null for a step kept from an
  // earlier run, resumed, or with no analyzers or points): e.g. to make the report's data of it
  // while later steps measure.
  std::function<void(const std::string& bundle, std::shared_ptr<AnalysedBundle> analysed)> bundle_complete;
};

// Returns the topology result (the content of topology.json). topology.json is
// written with status "running" when it starts and after each step, and with
// "complete" or "interrupted" at the end, or "device lost" when a kernel fault left the
// device unable to run anything more in this process (the steps after it: "not run (device
// lost)"; `dissect topology --resume` continues with them in a fresh process). The caller holds lock_topology_dir.
nlohmann::json run_topology(Device& device, const TopologyOptions& options, const std::atomic<bool>& stop);

// Creates `out_dir` when missing and locks it for the caller's life (one topology
// per directory: two would overwrite each other's topology.json). Throws RunError
// at once, naming the process that holds it, when another one does.
DirectoryLock lock_topology_dir(const std::string& out_dir);

}  // namespace dissect
