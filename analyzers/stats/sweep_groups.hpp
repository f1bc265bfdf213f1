#pragma once
// Points of one sweep that differ only in the swept parameter: analyzers
// read each such group as one series (a cache-size sweep per load path, ...).
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/trace/trace.hpp"

namespace dissect::stats {

struct SweepGroup {
  std::map<std::string, std::string> fixed;  // configuration shared by the group's points
  std::vector<std::string> distinct;         // keys whose value tells this group from the others
  std::vector<const PointTrace*> points;     // ascending by the swept parameter
  [[nodiscard]] std::string label() const;   // "path=ca stride_bytes=4": the distinct keys (empty for one group)
  [[nodiscard]] nlohmann::json to_json() const { return fixed; }
};

// " [path=ca stride_bytes=4]" to end a message about the group, "" for a sweep of one group.
std::string label_suffix(const SweepGroup& g);

// The configuration keys that define a series (results and per-run counters
// such as iterations are not among them).
const std::vector<std::string>& configuration_keys();

// Groups usable points (status ok, with samples, accepted by `keep`) by every
// configuration key except `swept`; each group sorted by `swept` (numeric).
// Groups are ordered by size, largest first.
std::vector<SweepGroup> group_points(const TraceSet& traces, const std::string& swept,
                                     const std::function<bool(const PointTrace&)>& keep = {});

}  // namespace dissect::stats
