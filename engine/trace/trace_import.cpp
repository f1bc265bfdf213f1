#include "engine/trace/trace_import.hpp"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "engine/core/csv.hpp"
#include "engine/core/diagnostics.hpp"

namespace dissect {
namespace {

const char* kRequired[] = {"size_bytes", "stride_bytes", "seq", "offset_bytes", "latency"};

bool parse_number(const std::string& raw, double& out) {
  std::string s = raw;
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.erase(s.begin());
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size() && std::isfinite(out);
}

// 2^64: the first value a std::uint64_t cannot hold.
constexpr double kTwoTo64 = 18446744073709551616.0;

}  // namespace

TraceSet import_trace_csv_text(const std::string& text, const std::string& name) {
  std::istringstream in(text);
  return import_trace_csv_stream(in, name);
}

TraceSet import_trace_csv_stream(std::istream& in, const std::string& name) {
  std::string line;
  int line_no = 0;
  // Header: the first non-empty line.
  std::vector<std::string> header;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") != std::string::npos) {
      header = split_csv_line(line);
      break;
    }
  }
  if (header.empty()) throw SpecError(Location{name, std::max(line_no, 1), 0}, "empty file: expected a CSV header");
  const int header_line = line_no;
  for (auto& h : header) {
    while (!h.empty() && h.back() == ' ') h.pop_back();
    while (!h.empty() && h.front() == ' ') h.erase(h.begin());
  }
  std::map<std::string, std::size_t> col;
  for (std::size_t i = 0; i < header.size(); ++i) col.emplace(header[i], i);
  for (const char* req : kRequired)
    if (col.count(req) == 0) {
      std::string have;
      for (const auto& h : header) have += (have.empty() ? "" : ", ") + h;
      throw SpecError(Location{name, header_line, 0},
                      std::string("missing column '") + req +
                          "' (the header needs size_bytes, stride_bytes, seq, offset_bytes, latency; it has: " + have +
                          ")");
    }
  const bool has_sm = col.count("sm_id") != 0;

  TraceSet set;
  set.source = name;
  std::map<std::pair<std::uint64_t, std::uint64_t>, std::size_t> point_of;
  std::size_t rows = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    bool complete = true;
    const auto f = split_csv_line(line, &complete);
    if (!complete) throw SpecError(Location{name, line_no, 0}, "a quoted cell is not closed");
    if (f.size() < header.size())
      throw SpecError(Location{name, line_no, 0}, "row has " + std::to_string(f.size()) + " cells, the header has " +
                                                      std::to_string(header.size()));
    double v[5];
    for (int k = 0; k < 5; ++k) {
      const std::string& cell = f[col[kRequired[k]]];
      if (!parse_number(cell, v[k]))
        throw SpecError(Location{name, line_no, 0},
                        std::string("column '") + kRequired[k] + "': '" + cell + "' is not a number");
      if (v[k] < 0)
        throw SpecError(Location{name, line_no, 0},
                        std::string("column '") + kRequired[k] + "': " + cell + " is negative");
      if (k != 4 && v[k] != std::floor(v[k]))
        throw SpecError(Location{name, line_no, 0},
                        std::string("column '") + kRequired[k] + "': " + cell + " is not a whole number");
      // A cast would turn it into garbage (0 on x86): out of range is an error.
      if (k != 4 && v[k] >= kTwoTo64)
        throw SpecError(Location{name, line_no, 0}, std::string("column '") + kRequired[k] + "': " + cell +
                                                        " is out of range (2^64 or more)");
    }
    const auto size = static_cast<std::uint64_t>(v[0]);
    const auto stride = static_cast<std::uint64_t>(v[1]);
    auto [it, fresh] = point_of.emplace(std::make_pair(size, stride), set.points.size());
    if (fresh && set.points.size() == kMaxImportedPoints)
      throw SpecError(Location{name, line_no, 0},
                      "more than " + std::to_string(kMaxImportedPoints) +
                          " points (distinct size_bytes, stride_bytes): a trace this large is refused");
    if (fresh) {
      PointTrace p;
      p.point_id = set.points.size();
      p.params["size_bytes"] = std::to_string(size);
      p.params["stride_bytes"] = std::to_string(stride);
      set.points.push_back(std::move(p));
    }
    Sample s;
    s.seq = static_cast<std::uint64_t>(v[2]);
    s.offset_bytes = static_cast<std::uint64_t>(v[3]);
    s.latency = v[4];
    if (has_sm) {
      double sm = -1;
      if (parse_number(f[col["sm_id"]], sm) && sm >= -1 && sm <= 1e6) s.sm_id = static_cast<std::int32_t>(sm);
    }
    if (rows == kMaxImportedRows)
      throw SpecError(Location{name, line_no, 0}, "more than " + std::to_string(kMaxImportedRows) +
                                                      " rows: a trace this large is refused");
    set.points[it->second].samples.push_back(s);
    ++rows;
  }
  if (rows == 0) throw SpecError(Location{name, header_line, 0}, "no data rows after the header");
  return set;
}

TraceSet import_trace_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SpecError(Location{path, 0, 0}, std::string("cannot open file: ") + std::strerror(errno));
  // Read line by line: the limits are checked as the rows come, before the file is in memory.
  return import_trace_csv_stream(in, path);
}

}  // namespace dissect
