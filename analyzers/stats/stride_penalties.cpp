#include "analyzers/stats/stride_penalties.hpp"

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

}  // namespace dissect::stats
