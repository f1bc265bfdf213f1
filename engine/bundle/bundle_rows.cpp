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

// Summary of a point with one sample (when it is measured, not discarded).
LatencySummary summarize_one(const Sample& s, std::uint64_t skip) {
  LatencySummary sum;
  if (s.seq < skip) return sum;
  sum.count = 1;
  sum.min = sum.p5 = sum.median = sum.mean = sum.p95 = sum.max = s.latency;
  return sum;
}

// How the device ran the point (launch mode, shared memory, ...): the trace params that
// are not point parameters, "key=value; ...", appended to `out` as one CSV field (`csv`)
// or as plain text. A row per point of every run: one merged walk of the two sorted key
// lists (no lookup per note), each piece escaped as it is copied, the field quoted when
// any piece needs it.
void append_notes(std::string& out, const std::map<std::string, std::string>& notes, const PreparedRow& parts,
                  bool csv) {
  thread_local std::vector<const std::pair<const std::string, std::string>*> kept;
  kept.clear();
  bool quote = false;
  auto needs_quote = [](std::string_view v) {
    return std::memchr(v.data(), ',', v.size()) != nullptr || std::memchr(v.data(), '"', v.size()) != nullptr ||
           std::memchr(v.data(), '\n', v.size()) != nullptr || std::memchr(v.data(), '\r', v.size()) != nullptr;
  };
  std::size_t j = 0;  // in parts.by_key
  for (const auto& kv : notes) {
    while (j < parts.by_key.size() && parts.params[parts.by_key[j]].first < kv.first) ++j;
    if (j < parts.by_key.size() && parts.params[parts.by_key[j]].first == kv.first) continue;  // a point param
    kept.push_back(&kv);
    quote = quote || (csv && (needs_quote(kv.first) || needs_quote(kv.second)));
  }
  auto piece = [&](std::string_view v) {
    if (!quote) {
      out += v;
      return;
    }
    for (std::size_t from = 0;;) {  // each quote doubled
      const void* q = std::memchr(v.data() + from, '"', v.size() - from);
      if (q == nullptr) {
        out.append(v.data() + from, v.size() - from);
        return;
      }
      const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(q) - v.data());
      out.append(v.data() + from, at + 1 - from);
      out += '"';
      from = at + 1;
    }
  };
  if (quote) out += '"';
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (i > 0) out += "; ";
    piece(kept[i]->first);
    out += '=';
    piece(kept[i]->second);
  }
  if (quote) out += '"';
}

// Whether a trace's params are the ones its notes were prepared from.
bool same_params(const std::map<std::string, std::string>& params,
                 const std::vector<std::pair<std::string, std::string>>& prepared) {
  if (params.size() != prepared.size()) return false;
  auto p = prepared.begin();
  for (const auto& [k, v] : params) {
    if (k != p->first || v != p->second) return false;
    ++p;
  }
  return true;
}

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
  append_csv_field(r.axes_csv, r.axes);
  r.by_key.resize(r.params.size());
  for (std::uint32_t i = 0; i < r.by_key.size(); ++i) r.by_key[i] = i;
  std::sort(r.by_key.begin(), r.by_key.end(),
            [&](std::uint32_t a, std::uint32_t b) { return r.params[a].first < r.params[b].first; });
  return r;
}

void prepare_notes(PreparedRow& row, const std::map<std::string, std::string>& trace_params) {
  row.notes_of.assign(trace_params.begin(), trace_params.end());
  row.notes_csv.clear();
  append_notes(row.notes_csv, trace_params, row, true);
  row.notes_ready = true;
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
  // vector of pointers). A chain-timed point has one sample: no vector.
  const std::uint64_t skip = trace.accesses_per_pass * trace.discard_passes;
  LatencySummary sum;
  if (trace.samples.size() == 1) {
    sum = summarize_one(trace.samples.front(), skip);
  } else {
    std::vector<double> lat;
    lat.reserve(trace.samples.size());
    for (const Sample& s : trace.samples)
      if (s.seq >= skip) lat.push_back(s.latency);
    sum = summarize(std::move(lat));
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
  // Numbers never need quoting: copied as they are.
  auto plain = [&](std::string_view v) {
    if (col > 0) out += ',';
    out += v;
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
    plain(std::string_view(last_text, last_len));
  };
  auto integer = [&](auto v) {
    char text[24];
    plain(std::string_view(text, static_cast<std::size_t>(std::to_chars(text, text + sizeof text, v).ptr - text)));
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
  if (by_column == nullptr) {
    out += ',';
    out += parts.axes_csv;
    out += ',';
    if (parts.notes_ready && same_params(trace.params, parts.notes_of))
      out += parts.notes_csv;
    else
      append_notes(out, trace.params, parts, true);
  } else {
    field(parts.axes);
    std::string notes;
    append_notes(notes, trace.params, parts, false);
    field(notes);
  }
  out += '\n';
}

}  // namespace dissect
