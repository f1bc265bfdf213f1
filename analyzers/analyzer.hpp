#pragma once
// Analyzers turn traces into findings. One analyzer per file; registry.cpp
// lists them. An analyzer reads a TraceSet (from a bundle, an imported CSV or a
// run in progress) and never touches a device.
#include <nlohmann/json.hpp>
#include <memory>
#include <string>
#include <vector>

#include "engine/findings/finding.hpp"  // Finding: what analyze() returns
#include "engine/trace/trace.hpp"

namespace dissect {

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
  // Called from several threads at once (one object serves every bundle, and the analyses
  // of several bundles run side by side): keep no state between calls. What several
  // analyzers derive alike from the same points goes into traces.derived instead (made once
  // per bundle: engine/trace/derived_cache.hpp; stats::shared_stage_grids).
  [[nodiscard]] virtual std::vector<Finding> analyze(const TraceSet& traces, const AnalyzerParams& params) const = 0;
};

}  // namespace dissect
