#include "analyzers/analyzer.hpp"

#include <string>

namespace dissect {

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
