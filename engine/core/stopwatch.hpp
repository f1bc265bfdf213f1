#pragma once
// Wall-clock helpers for the timing breakdowns of runs (DISSECT_CUDA_TIMING=1).
#include <chrono>
#include <cstdlib>
#include <string>

namespace dissect {

inline double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// DISSECT_CUDA_TIMING=1: the runner and the CUDA device print where a run's wall time goes.
inline bool timing_report_wanted() {
  const char* v = std::getenv("DISSECT_CUDA_TIMING");
  return v != nullptr && std::string(v) == "1";
}

}  // namespace dissect
