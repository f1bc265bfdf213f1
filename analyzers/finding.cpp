#include "analyzers/analyzer.hpp"

namespace dissect {

nlohmann::json Finding::to_json() const {
  nlohmann::json j;
  j["analyzer"] = analyzer;
  j["value"] = value;
  j["unit"] = unit;
  j["confidence"] = confidence;
  j["details"] = details;
  j["evidence"] = evidence;
  j["summary"] = summary;
  return j;
}

Finding Finding::from_json(const nlohmann::json& j) {
  Finding f;
  f.analyzer = j.value("analyzer", "");
  f.value = j.value("value", nlohmann::json());
  f.unit = j.value("unit", "");
  f.confidence = j.value("confidence", 0.0);
  f.details = j.value("details", nlohmann::json::object());
  f.evidence = j.value("evidence", nlohmann::json::object());
  f.summary = j.value("summary", "");
  return f;
}

double AnalyzerParams::number(const std::string& name, double fallback) const {
  if (!values_.contains(name)) return fallback;
  const auto& v = values_[name];
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) {
    try {
      return std::stod(v.get<std::string>());
    } catch (...) {
    }
  }
  return fallback;
}

std::string AnalyzerParams::text(const std::string& name, const std::string& fallback) const {
  if (!values_.contains(name)) return fallback;
  const auto& v = values_[name];
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace dissect
