#include "engine/topology/topology_resume.hpp"

#include <filesystem>

#include "dissect_git_revision.hpp"
#include "engine/core/files.hpp"
#include "engine/spec/identifier.hpp"

namespace dissect {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

// The same identity as a resumed run checks (engine/run/resume.cpp): model, not clocks.
json device_identity(const json& d) {
  json id = json::object();
  if (!d.is_object()) return id;
  for (const char* key : {"kind", "name", "compute_capability", "sm_count", "profile_text"})
    if (d.contains(key)) id[key] = d[key];
  return id;
}

}  // namespace

const json* TopologyResumeState::step(const std::string& id) const {
  if (!previous.contains("experiments") || !previous["experiments"].is_array()) return nullptr;
  for (const auto& e : previous["experiments"])
    if (e.is_object() && e.value("id", std::string()) == id) return &e;
  return nullptr;
}

TopologyResumeState read_resumable_topology(const std::string& out_dir, const Device& device) {
  TopologyResumeState s;
  const std::string path = (fs::path(out_dir) / "topology.json").string();
  try {
    s.previous = json::parse(read_text_file(path));
  } catch (const std::exception& e) {
    throw RunError(out_dir + ": nothing to resume (" + e.what() + ")");
  }
  if (!s.previous.is_object()) throw RunError(path + ": not a topology.json");
  s.complete = s.previous.value("status", std::string()) == "complete";
  const json tool = s.previous.value("tool", json::object());
  const std::string version = tool.value("version", std::string("?"));
  const std::string revision = tool.value("git_revision", std::string("?"));
  if (version != DISSECT_VERSION || revision != DISSECT_GIT_REVISION)
    throw RunError(out_dir + ": written by dissect " + version + " (git " + revision + "), this is " +
                   DISSECT_VERSION + " (git " + DISSECT_GIT_REVISION +
                   "): a resumed topology must measure as the interrupted one did; run it anew");
  const json was = device_identity(s.previous.value("device", json::object()));
  const json now = device_identity(device.describe());
  if (was != now)
    throw RunError(out_dir + ": the topology ran on " + was.value("name", std::string("?")) + " (" +
                   s.previous.value("selector", std::string("?")) + "), not on " +
                   now.value("name", std::string("?")) + " (" + device.selector() +
                   "): a resumed topology continues on the same device");
  s.fast = s.previous.value("mode", std::string()) == "fast";
  if (s.previous.contains("only") && s.previous["only"].is_array())
    for (const auto& o : s.previous["only"])
      if (o.is_string()) s.only.push_back(o.get<std::string>());
  return s;
}

std::string recorded_bundle_dir(const std::string& out_dir, const json& step) {
  const json* b = step.contains("bundle") ? &step["bundle"] : nullptr;
  if (b == nullptr || !b->is_string()) return "";
  const std::string name = b->get<std::string>();
  // A damaged or edited topology.json must not lead a resumption out of its directory.
  if (name_problem(name)) return "";
  return (fs::path(out_dir) / name).string();
}

std::optional<std::vector<Finding>> recorded_findings(const std::string& out_dir, const json& step) {
  const std::string bundle = recorded_bundle_dir(out_dir, step);
  if (bundle.empty()) return std::nullopt;
  try {
    const json f = json::parse(read_text_file((fs::path(bundle) / "findings.json").string()));
    std::vector<Finding> out;
    for (const auto& j : f.at("findings")) out.push_back(Finding::from_json(j));
    return out;
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace dissect
