#pragma once
// Imports traces written by other tools (or typed from a paper) so that the
// analyzers can read them.
//
// The CSV header must name at least size_bytes, stride_bytes, seq,
// offset_bytes, latency (in any order; other columns are ignored, except an
// optional sm_id). One row per timed access in measurement order; rows that
// share size_bytes and stride_bytes form one sweep point, points in order of
// first appearance. Latency is in cycles, integer or decimal.
#include <cstddef>
#include <istream>
#include <string>

#include "engine/trace/trace.hpp"

namespace dissect {

// Limits, checked row by row before the row is stored: the analyzers' cost grows
// with the points (some quadratically), memory with the rows (40 bytes each).
inline constexpr std::size_t kMaxImportedPoints = 100000;  // the sweep point limit of a spec
inline constexpr std::size_t kMaxImportedRows = 50'000'000;

// Throws SpecError as "file:line: message" for a missing column, a
// non-numeric or out-of-range cell (2^64 or more), an unclosed quote, an empty
// file, or more points or rows than the limits.
TraceSet import_trace_csv(const std::string& path);
TraceSet import_trace_csv_text(const std::string& text, const std::string& name);
TraceSet import_trace_csv_stream(std::istream& in, const std::string& name);

}  // namespace dissect
