#pragma once
// Small helpers analyzers share to build findings and readable text.
#include <cstdio>
#include <string>

#include "analyzers/analyzer.hpp"

namespace dissect::stats {

// A finding that could not be established: value null, confidence 0, and why.
inline Finding undetermined(const std::string& analyzer, const std::string& unit, const std::string& reason) {
  Finding f;
  f.analyzer = analyzer;
  f.unit = unit;
  f.value = nullptr;
  f.confidence = 0;
  f.details["reason"] = reason;
  f.summary = reason;
  return f;
}

inline std::string fmt(double v, int precision = 3) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", precision, v);
  return buf;
}

inline std::string percent(double share) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100 * share);
  return buf;
}

}  // namespace dissect::stats
