#pragma once
// The miss penalty of each TLB level, keyed by the stride its series runs at, as the
// topology hands it to the analyzers of a step that sweeps several levels at once
// (parameter text "STRIDE:CYCLES STRIDE:CYCLES ...", bytes and cycles).
#include <cstdint>
#include <map>
#include <string>

namespace dissect::stats {

// Malformed items name no stride and are left out.
std::map<std::uint64_t, double> parse_stride_penalties(const std::string& text);

}  // namespace dissect::stats
