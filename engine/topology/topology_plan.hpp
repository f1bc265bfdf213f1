#pragma once
// The topology suite as an ordered plan of declared steps. A step is one spec of
// specs/topology/ (<id>.yaml) plus what it needs from earlier steps (`sizes_from`:
// the spec keys it sets from the measured figures, or why it cannot run) and what
// it contributes (`absorb`: its findings folded into the typed result). The
// spec holds every number that does not depend on a measurement; the step sets
// only those that do.
#include <functional>
#include <string>
#include <variant>
#include <vector>

#include "analyzers/analyzer.hpp"
#include "engine/spec/spec.hpp"
#include "engine/topology/topology_result.hpp"

namespace dissect {

// A prerequisite was not measured: the step is skipped, saying why.
struct SkipStep {
  std::string reason;
};

using StepSizing = std::variant<std::vector<SpecOverride>, SkipStep>;

inline const std::string kEveryEarlierStep = "*";

struct TopologyStep {
  std::string id = {};     // e.g. "l1_size"; the spec is specs/topology/<id>.yaml
  std::string label = {};  // for progress and the experiments table
  std::string cache = {};  // the cache row it measures ("" for none): once a step of a
                      // cache is unsupported by the device, its later steps are skipped
  bool in_fast_mode = true;
  // Spec keys --fast sets on top of sizes_from's (a step that repeats what one launch
  // already tells, measured once there).
  std::vector<SpecOverride> fast_overrides = {};
  // The spec keys this step sets from what earlier steps measured (none by default).
  std::function<StepSizing(const TopologyResult&)> sizes_from = [](const TopologyResult&) -> StepSizing {
    return std::vector<SpecOverride>{};
  };
  // The earlier steps (ids) whose figures sizes_from reads: the step is sized once their
  // analyses are in, while the analyses of other steps may still run (the runner folds
  // findings in plan order all the same, and checks at each step's turn that sizes_from
  // gives what the step ran with: topology_runner.hpp). kEveryEarlierStep, the default:
  // every earlier step's. An id not in the plan (--only, --fast) needs nothing.
  std::vector<std::string> needs = {kEveryEarlierStep};
  // Folds the step's findings into the result.
  std::function<void(TopologyResult&, const std::vector<Finding>&)> absorb = {};

  std::string spec_file() const { return id + ".yaml"; }  // relative to specs/topology/
};

std::vector<TopologyStep> topology_plan();

}  // namespace dissect
