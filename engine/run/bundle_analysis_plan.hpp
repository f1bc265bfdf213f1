#pragma once
// What `dissect analyze BUNDLE` runs when no --analyzer is given: the analyzers
// (with their parameters) and expectations of the spec the bundle ran, taken
// from the expanded spec bundle.json records, so that a bundle moved to another
// machine, away from the spec and its includes, re-analyses as it was analysed.
// A bundle without that record (written before it was kept) falls back to its
// spec's text with includes read from disk, then to `summary`; each fallback is
// said in `warnings`, never taken silently.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/run/analysis.hpp"

namespace dissect {

struct BundleAnalysisPlan {
  std::vector<AnalysisRequest> requests;  // in the spec's order
  std::vector<Expectation> expectations;
  std::string source;                     // where they came from, for messages
  std::vector<std::string> warnings;      // one line each: why a fallback was taken and what runs instead
};

// `header` is bundle.json; `where` names it in messages (the bundle directory).
BundleAnalysisPlan plan_bundle_analysis(const nlohmann::json& header, const std::string& where);

}  // namespace dissect
