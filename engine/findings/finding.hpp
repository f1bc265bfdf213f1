#pragma once
// A Finding is the product's central output: what an analyzer concluded from a
// trace, with the evidence that decided it. Analyzers make them; runs, reports,
// the topology table and the command line read them (and findings.json in a
// bundle holds them). Its own module, below analyzers, so that each of those
// sees it without including the analyzers.
#include <nlohmann/json.hpp>
#include <string>

namespace dissect {

// A conclusion, with the evidence that decided it. `confidence` is 0..1; a
// finding that could not be established has value null, confidence 0 and says
// why in details.reason: never an invented value.
struct Finding {
  std::string analyzer;
  nlohmann::json value;       // number, string, or null when undetermined
  std::string unit;           // "B", "cycles", "sets", "" ...
  double confidence = 0;
  nlohmann::json details = nlohmann::json::object();
  nlohmann::json evidence = nlohmann::json::object();  // points, samples, test statistics used
  std::string summary;        // one line for humans

  [[nodiscard]] nlohmann::json to_json() const;
  static Finding from_json(const nlohmann::json& j);
};

}  // namespace dissect
