#pragma once
// A topology read back: `dissect export` and `dissect compare` take the output
// directory of `dissect topology` (it holds topology.json) or a topology.json
// file (e.g. the ones committed under results/) and read it as written
// (docs/topology.md; early files lack some keys, which then read as "not measured").
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace dissect {

struct TopologyFile {
  std::string path;   // the topology.json read
  std::string label;  // a short name for tables (set by the caller; default: the path)
  nlohmann::json topology;

  // The device's name as it reported it ("NVIDIA H100 80GB HBM3"), else the selector.
  std::string device_name() const;
  // caches.<name>.<key> as a number, when present and a number.
  std::optional<double> cache_number(const std::string& cache, const std::string& key) const;
  std::optional<std::string> cache_string(const std::string& cache, const std::string& key) const;
  // device.<key> as a number (what the driver reported).
  std::optional<double> device_number(const std::string& key) const;
};

// Reads DIR/topology.json or the file itself. Throws std::invalid_argument (a bad
// argument: missing, unreadable, not JSON, not a topology) naming the path.
TopologyFile read_topology_file(const std::string& dir_or_file);

}  // namespace dissect
