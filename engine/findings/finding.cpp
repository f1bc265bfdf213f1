#include "engine/findings/finding.hpp"

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

}  // namespace dissect
