#include "analyzers/stats/stride_series.hpp"

#include <sstream>

namespace dissect::stats {

std::map<std::uint64_t, double> parse_stride_penalties(const std::string& text) {
  std::map<std::uint64_t, double> out;
  std::istringstream is(text);
  std::string item;
  while (is >> item) {
    const auto colon = item.find(':');
    if (colon == std::string::npos) continue;
    try {
      out[std::stoull(item.substr(0, colon))] = std::stod(item.substr(colon + 1));
    } catch (const std::exception&) {
      // not a number: no stride
    }
  }
  return out;
}

std::map<std::uint64_t, std::vector<const PointTrace*>> chase_points_by_stride(const TraceSet& traces) {
  std::map<std::uint64_t, std::vector<const PointTrace*>> out;
  for (const auto& p : traces.points) {
    if (p.status != "ok" && !p.status.empty()) continue;
    if (p.param("kernel", "pchase") != "pchase" || p.samples.empty() || p.stride_bytes() == 0) continue;
    out[p.stride_bytes()].push_back(&p);
  }
  return out;
}

}  // namespace dissect::stats
