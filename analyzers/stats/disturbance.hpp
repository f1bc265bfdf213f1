#pragma once
// Did another thread's work evict this thread's data? (seed 004 §4.5-4.6): a
// measurement against a reference of the same array, both labelled with one
// level model; disturbed when the test misses beyond what the reference's miss
// rate explains.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/trace/trace.hpp"

namespace dissect::stats {

struct Disturbance {
  bool decided = false;
  bool disturbed = false;
  double reference_rate = 0, test_rate = 0;
  std::uint64_t test_misses = 0, test_known = 0;
  double hit_latency = 0;
  std::string reference;  // what served as the reference
  [[nodiscard]] nlohmann::json to_json() const;
};

Disturbance compare_to_reference(const std::vector<const Sample*>& reference, const std::vector<const Sample*>& test,
                                 const std::string& what);

}  // namespace dissect::stats
