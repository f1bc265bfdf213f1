#pragma once
// The topology suite as an ordered plan. Each step is one spec of
// specs/topology/ plus two small functions: which overrides it needs from what
// earlier steps measured (array sizes from the measured cache size, strides
// from the measured line, ...), and what it contributes to the result.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analyzers/analyzer.hpp"
#include "engine/spec/spec.hpp"

namespace dissect {

struct TopologyStep {
  std::string id;         // e.g. "l1_size"
  std::string spec_file;  // relative to specs/topology/
  std::string label;      // for progress and the experiments table
  bool in_fast_mode = true;
  std::string cache;      // the cache row it measures ("" for none): once a step of a
                          // cache is unsupported by the device, its later steps are skipped
  // Overrides for this step given the result so far; nullopt skips the step
  // (a prerequisite was not measured), with the reason in `skip_reason`.
  std::function<std::optional<std::vector<SpecOverride>>(const nlohmann::json& result, std::string& skip_reason)>
      prepare;
  // Folds the step's findings into the result.
  std::function<void(nlohmann::json& result, const std::vector<Finding>& findings)> absorb;
};

std::vector<TopologyStep> topology_plan();

// Finding of an analyzer in a list (nullptr when absent).
const Finding* find_finding(const std::vector<Finding>& findings, const std::string& analyzer);

}  // namespace dissect
