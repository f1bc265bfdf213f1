#pragma once
// Runs analyzers over a TraceSet and checks a spec's expectations against the
// findings.
#include <string>
#include <vector>

#include "analyzers/analyzer.hpp"
#include "engine/spec/experiment.hpp"

namespace dissect {

struct AnalysisRequest {
  std::string analyzer;
  nlohmann::json params = nlohmann::json::object();
};

// Runs each requested analyzer. An unknown name or an analyzer that throws
// yields a finding with value null, confidence 0 and the reason: analysis
// never aborts a run whose samples are already on disk.
std::vector<Finding> run_analyzers(const TraceSet& traces, const std::vector<AnalysisRequest>& requests);
std::vector<AnalysisRequest> requests_from(const std::vector<AnalyzerRequest>& spec_requests);

struct ExpectationResult {
  Expectation expectation;
  enum class Outcome { pass, fail, unknown } outcome = Outcome::unknown;
  std::string actual;   // what the finding said
  std::string message;  // one line for humans
};

std::vector<ExpectationResult> check_expectations(const std::vector<Expectation>& expectations,
                                                  const std::vector<Finding>& findings);

// Checks that every analyzer a spec names exists (did-you-mean on typos).
void check_analyzer_names(const Experiment& experiment, Diagnostics& diags);

}  // namespace dissect
