#pragma once
// Imports traces written by other tools (or typed from a paper) so that the
// analyzers can read them.
//
// The CSV header must name at least size_bytes, stride_bytes, seq,
// offset_bytes, latency (in any order; other columns are ignored, except an
// optional sm_id). One row per timed access in measurement order; rows that
// share size_bytes and stride_bytes form one sweep point, points in order of
// first appearance. Latency is in cycles, integer or decimal.
#include <string>

#include "engine/trace/trace.hpp"

namespace dissect {

// Throws SpecError as "file:line: message" for a missing column, a
// non-numeric cell or an empty file.
TraceSet import_trace_csv(const std::string& path);
TraceSet import_trace_csv_text(const std::string& text, const std::string& name);

}  // namespace dissect
