#pragma once
// The text of trace.csv and points.csv rows (engine/bundle/bundle.hpp), apart from
// the writer that orders and commits them. Every number is written straight into
// the row (std::to_chars), without a string per field: a fine-grained batch has
// hundreds of thousands of samples.
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/core/csv.hpp"
#include "engine/spec/spec.hpp"
#include "engine/trace/trace.hpp"

namespace dissect {

inline const std::vector<std::string> kTraceColumns{"point_id", "thread", "seq",  "offset_bytes",
                                                    "latency",  "sm_id",  "phase"};

// One trace.csv row is at most 6 integers of up to 20 characters, the latency
// (kNumberChars) and 7 separators.
inline constexpr std::size_t kMaxSampleRow = 6 * 21 + kNumberChars + 7;

// Writes the trace.csv row of one sample of point `id` (its decimal text) at `out`,
// which has room for kMaxSampleRow characters; returns the end of the row.
char* write_sample_row(char* out, std::string_view id, const Sample& s);

// The parts of a point's points.csv row that do not depend on its results.
struct PreparedRow {
  std::vector<std::pair<std::string, std::string>> params;  // point_params
  std::string params_csv;  // their values as CSV fields, comma-separated
  std::string axes;        // the axes column: "field=value; ..."
  std::string axes_csv;    // the same as a CSV field
  // Indices into params, ordered by key: the device notes (trace params that are not
  // point params) are told apart in one merged walk of two sorted lists.
  std::vector<std::uint32_t> by_key;
  // With prepare_notes: the trace params the notes were made of, and the device_notes
  // field they make. A row whose trace still has exactly these params uses it.
  std::vector<std::pair<std::string, std::string>> notes_of;
  std::string notes_csv;
  bool notes_ready = false;
};
PreparedRow prepare_row(const Point& point);
// Formats the device_notes field of a trace whose params are `trace_params` into `row`.
void prepare_notes(PreparedRow& row, const std::map<std::string, std::string>& trace_params);

// The points.csv columns: point_id, status, the point's params, the results.
std::vector<std::string> points_columns(const PreparedRow& row);

// Appends the point's points.csv row (`columns`: the file's header) to `out`; with
// `by_column`, also gives the row as column -> value (what read_bundle makes of it).
void append_point_row(const Point& point, const PointTrace& trace, const PreparedRow& parts,
                      const std::vector<std::string>& columns, std::string& out,
                      std::map<std::string, std::string>* by_column);

}  // namespace dissect
