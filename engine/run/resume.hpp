#pragma once
// dissect run --resume BUNDLE: what a bundle says about the run that wrote it, and
// whether that run may be continued here. A resumed run must measure what the
// interrupted one would have: the same spec (file, includes and --set as
// recorded), the same device, the same dissect. Anything else is refused, naming
// what differs; the committed points stay as they are.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/device/device.hpp"
#include "engine/spec/spec.hpp"

namespace dissect {

struct ResumePlan {
  std::string bundle_dir;
  nlohmann::json header;         // the bundle's bundle.json
  std::string spec_path;         // as the run was given it
  LoadOptions load;              // its --set overrides and --max-points, from the recorded argv
  std::string device_selector;   // the device it ran on ("0", "sim:h100-sxm")
  bool complete = false;         // status complete: nothing to resume
};

// Reads the bundle's header. Throws RunError when a process is still writing it,
// or when it was written by another dissect (version or git revision).
ResumePlan plan_resume(const std::string& bundle_dir);

// Throws RunError when `spec` (loaded from plan.spec_path with plan.load) is not
// the spec the bundle ran: its merged, expanded form differs from the recorded one.
void check_resume_spec(const ResumePlan& plan, const Spec& spec);

// Throws RunError when `device` is not the one the bundle ran on (engine/run/device_identity.hpp:
// model, PCI bus id, host, driver; simulated profile), naming every field that differs.
void check_resume_device(const ResumePlan& plan, const Device& device);

}  // namespace dissect
