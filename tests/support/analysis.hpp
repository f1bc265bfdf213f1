#pragma once
// Runs one analyzer of the registry on a TraceSet, as `dissect analyze` does.
#include <string>
#include <vector>

#include "analyzers/analyzer.hpp"
#include "engine/run/analysis.hpp"

namespace dissect::test {

inline std::vector<Finding> analyze_all(const TraceSet& t, const std::string& analyzer,
                                        nlohmann::json params = nlohmann::json::object()) {
  return run_analyzers(t, {{analyzer, std::move(params)}});
}

inline Finding analyze(const TraceSet& t, const std::string& analyzer, nlohmann::json params = nlohmann::json::object()) {
  auto all = analyze_all(t, analyzer, std::move(params));
  return all.empty() ? Finding{} : all.front();
}

inline std::string reason(const Finding& f) {
  return f.details.contains("reason") && f.details["reason"].is_string() ? f.details["reason"].get<std::string>() : "";
}

}  // namespace dissect::test
