#include "engine/topology/topology_resume.hpp"

#include <filesystem>

#include "dissect_git_revision.hpp"
#include "engine/core/files.hpp"
#include "engine/run/device_identity.hpp"
#include "engine/spec/identifier.hpp"

namespace dissect {
namespace fs = std::filesystem;
using json = nlohmann::json;

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
  const std::string host = s.previous.value("host", json::object()).value("name", std::string("?"));
  const json was = device_identity(s.previous.value("device", json::object()), host);
  const json now = device_identity(device.describe(), host_name());
  if (const std::string differs = identity_difference(was, now); !differs.empty())
    throw RunError(out_dir + ": the topology ran on " + was.value("name", std::string("?")) + " (" +
                   s.previous.value("selector", std::string("?")) + ") of host " + host + ", not on " +
                   now.value("name", std::string("?")) + " (" + device.selector() + ") of host " + host_name() + " (" +
                   differs + "): a resumed topology continues on the same device: the same GPU of the same machine "
                   "under the same driver");
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
