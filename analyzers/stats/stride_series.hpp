#pragma once
// TLB steps that sweep several levels at once, one stride per level: each stride's
// points are one series, and the topology hands each level's miss penalty to the
// analyzers keyed by that stride (parameter text "STRIDE:CYCLES STRIDE:CYCLES ...",
// bytes and cycles).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engine/trace/trace.hpp"

namespace dissect::stats {

// Malformed items name no stride and are left out.
std::map<std::uint64_t, double> parse_stride_penalties(const std::string& text);

// The usable pointer-chase points (status ok, with samples and a stride), by stride.
std::map<std::uint64_t, std::vector<const PointTrace*>> chase_points_by_stride(const TraceSet& traces);

}  // namespace dissect::stats
