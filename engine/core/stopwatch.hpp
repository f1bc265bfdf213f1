#pragma once
// Wall-clock helpers for the timing breakdowns of runs (--timing 1).
#include <chrono>

#include "engine/core/settings.hpp"

namespace dissect {

inline double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

// --timing 1: the runner and the CUDA device print where a run's wall time goes.
inline bool timing_report_wanted() { return settings::timing_level() == 1; }

}  // namespace dissect
