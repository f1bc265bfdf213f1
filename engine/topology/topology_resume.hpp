#pragma once
// dissect topology --resume DIR: what an interrupted or killed topology left in
// DIR/topology.json, and whether it may be continued here (the same dissect, the
// same device). Steps it completed are kept and their findings folded in again
// from their bundles (so later steps are sized exactly as before); a step it was
// running continues its bundle (dissect run --resume); the rest run.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/device/device.hpp"
#include "engine/findings/finding.hpp"

namespace dissect {

struct TopologyResumeState {
  nlohmann::json previous;  // the recorded topology.json
  bool complete = false;    // status complete: nothing to resume
  bool fast = false;        // the recorded mode
  std::vector<std::string> only;

  // The recorded experiment of step `id`, or nullptr.
  [[nodiscard]] const nlohmann::json* step(const std::string& id) const;
};

// Reads <out_dir>/topology.json. Throws RunError when there is none, or when it
// was written by another dissect (version, git revision) or on another device
// (engine/run/device_identity.hpp: model, PCI bus id, host, driver; simulated profile).
TopologyResumeState read_resumable_topology(const std::string& out_dir, const Device& device);

// The findings a completed step's bundle holds (findings.json), or nullopt when
// they cannot be read (the topology was killed while analysing it).
std::optional<std::vector<Finding>> recorded_findings(const std::string& out_dir, const nlohmann::json& step);
// The bundle directory a recorded step names, under out_dir; "" when it names none or a
// name that is not one path component (nothing outside out_dir is ever touched).
std::string recorded_bundle_dir(const std::string& out_dir, const nlohmann::json& step);

}  // namespace dissect
