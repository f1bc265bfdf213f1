#include "engine/run/resume.hpp"

#include <filesystem>

#include "dissect_git_revision.hpp"
#include "engine/core/directory_lock.hpp"
#include "engine/core/files.hpp"
#include "engine/run/device_identity.hpp"

namespace dissect {

namespace {

// The value of `option` in a recorded argv ("--set k=v" or "--set=k=v"), every occurrence.
std::vector<std::string> option_values(const std::vector<std::string>& argv, const std::string& option) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < argv.size(); ++i) {
    if (argv[i] == option && i + 1 < argv.size()) out.push_back(argv[++i]);
    else if (argv[i].rfind(option + "=", 0) == 0) out.push_back(argv[i].substr(option.size() + 1));
  }
  return out;
}

}  // namespace

ResumePlan plan_resume(const std::string& bundle_dir) {
  ResumePlan plan;
  plan.bundle_dir = bundle_dir;
  const std::string header_path = (std::filesystem::path(bundle_dir) / "bundle.json").string();
  try {
    plan.header = nlohmann::json::parse(read_text_file(header_path));
  } catch (const std::exception& e) {
    throw RunError(bundle_dir + ": not a resumable bundle: " + e.what());
  }
  const nlohmann::json& h = plan.header;
  const std::string status = h.value("status", std::string());
  plan.complete = status == "complete";
  if (status == "running" && directory_locked(bundle_dir))
    throw RunError(bundle_dir + ": a process is still writing this bundle");
  const nlohmann::json tool = h.value("tool", nlohmann::json::object());
  const std::string version = tool.value("version", std::string("?"));
  const std::string revision = tool.value("git_revision", std::string("?"));
  if (version != DISSECT_VERSION || revision != DISSECT_GIT_REVISION)
    throw RunError(bundle_dir + ": written by dissect " + version + " (git " + revision + "), this is " +
                   DISSECT_VERSION + " (git " + DISSECT_GIT_REVISION +
                   "): a resumed run must measure as the interrupted one did; run the spec again instead");
  const nlohmann::json spec = h.value("spec", nlohmann::json::object());
  plan.spec_path = spec.value("path", std::string());
  if (plan.spec_path.empty()) throw RunError(bundle_dir + ": bundle.json names no spec path: not resumable");
  const auto argv = h.value("argv", std::vector<std::string>{});
  for (const auto& s : option_values(argv, "--set")) {
    const auto eq = s.find('=');
    if (eq != std::string::npos) plan.load.overrides.push_back({s.substr(0, eq), s.substr(eq + 1)});
  }
  for (const auto& m : option_values(argv, "--max-points")) plan.load.max_points = std::stoull(m);
  const nlohmann::json device = h.value("device", nlohmann::json::object());
  plan.device_selector = device.value("selector", std::string());
  return plan;
}

void check_resume_spec(const ResumePlan& plan, const Spec& spec) {
  const std::string recorded = plan.header.value("spec", nlohmann::json::object()).value("expanded", std::string());
  if (to_yaml(spec.root) != recorded)
    throw RunError(plan.bundle_dir + ": the spec " + plan.spec_path +
                   " (with its includes and --set) is not the one this bundle ran; it changed since: run it anew");
}

void check_resume_device(const ResumePlan& plan, const Device& device) {
  const std::string host = plan.header.value("host", nlohmann::json::object()).value("name", std::string("?"));
  const nlohmann::json was = device_identity(plan.header.value("device", nlohmann::json::object()), host);
  const nlohmann::json now = device_identity(device.describe(), host_name());
  if (const std::string differs = identity_difference(was, now); !differs.empty())
    throw RunError(plan.bundle_dir + ": the bundle ran on " + was.value("name", std::string("?")) + " (" +
                   plan.device_selector + ") of host " + host + ", not on " + now.value("name", std::string("?")) +
                   " (" + device.selector() + ") of host " + host_name() + " (" + differs +
                   "): a resumed run continues on the same device: the same GPU of the same machine under the same "
                   "driver");
}

}  // namespace dissect
