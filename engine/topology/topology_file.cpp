#include "engine/topology/topology_file.hpp"

#include <filesystem>
#include <stdexcept>

#include "engine/core/files.hpp"

namespace dissect {
namespace fs = std::filesystem;
using json = nlohmann::json;

std::string TopologyFile::device_name() const {
  const json& d = topology.contains("device") ? topology["device"] : json();
  if (d.is_object() && d.contains("name") && d["name"].is_string()) return d["name"].get<std::string>();
  if (topology.contains("selector") && topology["selector"].is_string()) return topology["selector"].get<std::string>();
  return "unknown device";
}

std::optional<double> TopologyFile::cache_number(const std::string& cache, const std::string& key) const {
  if (!topology.contains("caches") || !topology["caches"].is_object()) return std::nullopt;
  const json& caches = topology["caches"];
  if (!caches.contains(cache) || !caches[cache].is_object()) return std::nullopt;
  const json& c = caches[cache];
  if (!c.contains(key) || !c[key].is_number()) return std::nullopt;
  return c[key].get<double>();
}

std::optional<std::string> TopologyFile::cache_string(const std::string& cache, const std::string& key) const {
  if (!topology.contains("caches") || !topology["caches"].is_object()) return std::nullopt;
  const json& caches = topology["caches"];
  if (!caches.contains(cache) || !caches[cache].is_object()) return std::nullopt;
  const json& c = caches[cache];
  if (!c.contains(key) || !c[key].is_string()) return std::nullopt;
  return c[key].get<std::string>();
}

std::optional<double> TopologyFile::device_number(const std::string& key) const {
  if (!topology.contains("device") || !topology["device"].is_object()) return std::nullopt;
  const json& d = topology["device"];
  if (!d.contains(key) || !d[key].is_number()) return std::nullopt;
  return d[key].get<double>();
}

TopologyFile read_topology_file(const std::string& dir_or_file) {
  std::error_code ec;
  fs::path p(dir_or_file);
  if (fs::is_directory(p, ec)) p /= "topology.json";
  if (!fs::is_regular_file(p, ec))
    throw std::invalid_argument(dir_or_file + ": no topology.json (give the output directory of 'dissect "
                                "topology' or a topology.json file)");
  TopologyFile f;
  f.path = p.string();
  f.label = dir_or_file;
  std::string text;
  try {
    text = read_text_file(f.path);
  } catch (const std::exception& e) {
    throw std::invalid_argument(e.what());
  }
  try {
    f.topology = json::parse(text);
  } catch (const json::parse_error& e) {
    throw std::invalid_argument(f.path + ": not JSON: " + e.what());
  }
  if (!f.topology.is_object() || !f.topology.contains("caches") || !f.topology["caches"].is_object())
    throw std::invalid_argument(f.path + ": not a topology.json (no 'caches' object; docs/topology.md)");
  return f;
}

}  // namespace dissect
