#include "engine/bundle/bundle_rows.hpp"

#include <algorithm>
#include <charconv>
#include <cstring>

#include "engine/bundle/bundle.hpp"

namespace dissect {
namespace {

const std::vector<std::string> kResultColumns{
    "accesses_per_pass", "discard_passes", "sm_id", "timer_overhead_cycles", "kernel_ms", "sm_clock_khz",
    "samples", "lat_min", "lat_p5", "lat_median", "lat_mean", "lat_p95", "lat_max", "axes", "device_notes"};

}  // namespace

char* write_sample_row(char* out, std::string_view id, const Sample& s) {
  char* const end = out + kMaxSampleRow;
  char* p = out;
  std::memcpy(p, id.data(), id.size());
  p += id.size();
  *p++ = ',';
  p = std::to_chars(p, end, s.thread).ptr;
  *p++ = ',';
  p = std::to_chars(p, end, s.seq).ptr;
  *p++ = ',';
  p = std::to_chars(p, end, s.offset_bytes).ptr;
  *p++ = ',';
  p = write_number(p, s.latency);
  *p++ = ',';
  p = std::to_chars(p, end, s.sm_id).ptr;
  *p++ = ',';
  p = std::to_chars(p, end, s.phase).ptr;
  *p++ = '\n';
  return p;
}

PreparedRow prepare_row(const Point& point) {
  PreparedRow r;
  r.params = point_params(point);
  for (const auto& [k, v] : r.params) {
    if (!r.params_csv.empty()) r.params_csv += ',';
    append_csv_field(r.params_csv, v);
  }
  for (const auto& [f, v] : point.axis_values) {
    if (!r.axes.empty()) r.axes += "; ";
    r.axes += f;
    r.axes += '=';
    r.axes += v;
  }
  r.by_key.resize(r.params.size());
  for (std::uint32_t i = 0; i < r.by_key.size(); ++i) r.by_key[i] = i;
  std::sort(r.by_key.begin(), r.by_key.end(),
            [&](std::uint32_t a, std::uint32_t b) { return r.params[a].first < r.params[b].first; });
  return r;
}

bool PreparedRow::has_param(std::string_view key) const {
  const auto it = std::lower_bound(by_key.begin(), by_key.end(), key,
                                   [&](std::uint32_t i, std::string_view k) { return params[i].first < k; });
  return it != by_key.end() && params[*it].first == key;
}

std::vector<std::string> points_columns(const PreparedRow& row) {
  std::vector<std::string> columns{"point_id", "status"};
  for (const auto& [k, v] : row.params) columns.push_back(k);
  columns.insert(columns.end(), kResultColumns.begin(), kResultColumns.end());
  return columns;
}

void append_point_row(const Point& point, const PointTrace& trace, const PreparedRow& parts,
                      const std::vector<std::string>& columns, std::string& out,
                      std::map<std::string, std::string>* by_column) {
  const auto& params = parts.params;
  // The measured samples' latencies (PointTrace::measured_samples, without the
  // vector of pointers).
  std::vector<double> lat;
  lat.reserve(trace.samples.size());
  const std::uint64_t skip = trace.accesses_per_pass * trace.discard_passes;
  for (const Sample& s : trace.samples)
    if (s.seq >= skip) lat.push_back(s.latency);
  const LatencySummary sum = summarize(std::move(lat));
  // How the device ran the point (launch mode, shared memory, ...): trace params that are
  // not point parameters, as "key=value; ...".
  std::string notes;
  for (const auto& [k, v] : trace.params) {
    if (parts.has_param(k)) continue;
    if (!notes.empty()) notes += "; ";
    notes += k;
    notes += '=';
    notes += v;
  }
  // Field by field straight into `out`.
  std::size_t col = 0;
  auto keep = [&](std::string_view v) {
    if (by_column != nullptr && col < columns.size()) by_column->insert_or_assign(columns[col], std::string(v));
    ++col;
  };
  auto field = [&](std::string_view v) {
    if (col > 0) out += ',';
    append_csv_field(out, v);
    keep(v);
  };
  // A number equal (bit for bit) to the one before reuses its text: the six latency
  // statistics of a one-sample point (chain timing) are one shortest-form conversion.
  double last = 0;
  char last_text[kNumberChars];
  std::size_t last_len = 0;
  auto number = [&](double v) {
    if (last_len == 0 || std::memcmp(&v, &last, sizeof v) != 0) {
      last = v;
      last_len = static_cast<std::size_t>(write_number(last_text, v) - last_text);
    }
    field(std::string_view(last_text, last_len));
  };
  auto integer = [&](auto v) {
    char text[24];
    field(std::string_view(text, static_cast<std::size_t>(std::to_chars(text, text + sizeof text, v).ptr - text)));
  };
  integer(point.id);
  field(trace.status);
  if (!params.empty()) {  // formatted ahead (prepare_row)
    out += ',';
    out += parts.params_csv;
    for (const auto& [k, v] : params) keep(v);
  }
  integer(trace.accesses_per_pass);
  integer(trace.discard_passes);
  integer(trace.sm_id);
  for (const double v : {trace.timer_overhead_cycles, trace.kernel_ms, trace.sm_clock_khz}) number(v);
  integer(sum.count);
  for (const double v : {sum.min, sum.p5, sum.median, sum.mean, sum.p95, sum.max}) number(v);
  field(parts.axes);
  field(notes);
  out += '\n';
}

}  // namespace dissect
