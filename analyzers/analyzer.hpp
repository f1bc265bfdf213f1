#pragma once
// Analyzers turn traces into findings. One analyzer per file; registry.cpp
// lists them. An analyzer reads a TraceSet (from a bundle, an imported CSV or a
// run in progress) and never touches a device.
#include <nlohmann/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "engine/trace/trace.hpp"

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

struct AnalyzerParam {
  std::string name;
  std::string default_value;
  std::string help;
};

// Parameters as given in a spec or on the command line, defaults filled in.
class AnalyzerParams {
 public:
  AnalyzerParams() = default;
  explicit AnalyzerParams(nlohmann::json values) : values_(std::move(values)) {}
  [[nodiscard]] double number(const std::string& name, double fallback) const;
  [[nodiscard]] std::string text(const std::string& name, const std::string& fallback) const;
  [[nodiscard]] bool has(const std::string& name) const { return values_.contains(name); }
  [[nodiscard]] const nlohmann::json& json() const { return values_; }

 private:
  nlohmann::json values_ = nlohmann::json::object();
};

class Analyzer {
 public:
  virtual ~Analyzer() = default;
  [[nodiscard]] virtual std::string name() const = 0;
  [[nodiscard]] virtual std::string purpose() const = 0;  // one line
  [[nodiscard]] virtual std::vector<AnalyzerParam> params() const { return {}; }
  [[nodiscard]] virtual std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const = 0;
};

}  // namespace dissect
