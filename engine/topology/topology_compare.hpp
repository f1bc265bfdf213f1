#pragma once
// `dissect compare`: topologies side by side (docs/compare.md). Each figure is
// compared between the GPUs of the inputs (grouped by the name the device
// reported); a difference counts when it exceeds the figure's tolerance: the
// search step of a size search (its spec's resolution, at least the stride), a
// noise floor for latencies and bandwidths, and the spread of repeat runs of the
// same GPU among the inputs. Repeat runs of one GPU are shown as stable when their
// spread stays within the tolerance.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/topology/topology_file.hpp"

namespace dissect {

struct CompareRow {
  std::string key;    // "caches.l1.size_bytes"
  std::string label;  // "L1 data size"
  std::string unit;   // "B", "cycles", "GB/s", "" (counts), "text"
  std::vector<std::optional<double>> numbers;       // per input (numeric rows)
  std::vector<std::optional<std::string>> texts;    // per input, formatted for tables
  // Range rows (a TLB level's entries, its coverage): per input [lo, hi], an exact
  // figure as [v, v]. Runs agree when their ranges share a value.
  std::vector<std::optional<std::pair<double, double>>> ranges;
  double tolerance = 0;                             // absolute, in the row's unit
  std::string tolerance_source;                     // "search step 128 B (l1_size: 0.1 %)", ...
  struct Group {
    std::string device;
    std::vector<std::size_t> inputs;
    // max - min over the group's runs (numeric, >= 2 values); for range rows how far the
    // runs' ranges miss a common value (0 where one value lies in all of them)
    std::optional<double> spread;
    bool stable = true;            // spread within the tolerance (text: all equal)
  };
  std::vector<Group> groups;
  bool differs = false;  // between groups, beyond the tolerance
  std::string verdict;   // "same", "differs: ...", "stable over 3 runs", ...
};

struct Comparison {
  std::vector<TopologyFile> inputs;
  std::vector<std::string> devices;  // one per group
  std::vector<CompareRow> rows;      // rows where at least one input has the figure
};

// specs_root: the spec library (for the size steps' search resolution); empty: the
// installed or configured one (engine/core/paths.hpp).
Comparison compare_topologies(std::vector<TopologyFile> inputs, const std::string& specs_root = "");

// Default labels: the paths without their common directory, "topology" folders
// and the .json / topology.json ending ("h100/final/run1").
std::vector<std::string> default_labels(const std::vector<std::string>& paths);

std::string comparison_markdown(const Comparison& c);
std::string comparison_text(const Comparison& c);  // aligned columns for a terminal
nlohmann::json comparison_json(const Comparison& c);

}  // namespace dissect
