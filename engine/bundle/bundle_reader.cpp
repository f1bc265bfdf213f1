#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include "engine/bundle/bundle.hpp"
#include "engine/core/csv.hpp"
#include "engine/core/files.hpp"

namespace dissect {
namespace fs = std::filesystem;

namespace {

double to_double(const std::string& s) {
  if (s.empty() || s == "nan") return kUnknown;
  try {
    return std::stod(s);
  } catch (...) {
    return kUnknown;
  }
}

template <typename T>
bool to_int(const std::string& s, T& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size();
}

}  // namespace

Bundle read_bundle(const std::string& dir) {
  Bundle b;
  b.dir = dir;
  const fs::path root(dir);
  if (!fs::is_directory(root)) throw std::runtime_error(dir + ": not a bundle directory");
  const std::string header_path = (root / "bundle.json").string();
  try {
    b.header = nlohmann::json::parse(read_text_file(header_path));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(header_path + ": malformed JSON: " + e.what());
  }
  if (!b.header.contains("schema_version"))
    throw std::runtime_error(header_path + ": not a dissect bundle (no schema_version)");
  if (b.header["schema_version"].get<int>() > kBundleSchemaVersion)
    throw std::runtime_error(header_path + ": bundle schema version " + b.header["schema_version"].dump() +
                             " is newer than this dissect reads (" + std::to_string(kBundleSchemaVersion) + ")");
  b.traces.source = dir;
  if (b.header.contains("device") && b.header["device"].contains("sm_clock_khz") &&
      b.header["device"]["sm_clock_khz"].is_number())
    b.traces.sm_clock_khz = b.header["device"]["sm_clock_khz"].get<double>();

  // points.csv: the committed points
  const std::string points_path = (root / "points.csv").string();
  std::map<std::size_t, std::size_t> index;  // point_id -> position
  {
    std::ifstream in(points_path);
    std::string line;
    std::vector<std::string> cols;
    if (in && std::getline(in, line)) cols = split_csv_line(line);
    while (std::getline(in, line)) {
      if (line.empty()) continue;
      auto f = split_csv_line(line);
      if (f.size() != cols.size()) continue;  // a torn last row of a killed run
      PointTrace p;
      std::map<std::string, std::string> row;
      for (std::size_t i = 0; i < cols.size(); ++i) row[cols[i]] = f[i];
      if (!to_int(row["point_id"], p.point_id)) continue;
      p.status = row["status"];
      for (const auto& [k, v] : row) p.params[k] = v;
      to_int(row["accesses_per_pass"], p.accesses_per_pass);
      to_int(row["discard_passes"], p.discard_passes);
      to_int(row["sm_id"], p.sm_id);
      p.timer_overhead_cycles = to_double(row["timer_overhead_cycles"]);
      p.kernel_ms = to_double(row["kernel_ms"]);
      p.sm_clock_khz = to_double(row["sm_clock_khz"]);
      index[p.point_id] = b.traces.points.size();
      b.traces.points.push_back(std::move(p));
    }
  }

  // trace.csv: samples of committed points
  const std::string trace_path = (root / "trace.csv").string();
  std::ifstream in(trace_path);
  if (!in) throw std::runtime_error(trace_path + ": missing");
  std::string line;
  std::getline(in, line);
  const auto cols = split_csv_line(line);
  auto col = [&](const char* name) -> int {
    for (std::size_t i = 0; i < cols.size(); ++i)
      if (cols[i] == name) return static_cast<int>(i);
    return -1;
  };
  const int c_pid = col("point_id"), c_thread = col("thread"), c_seq = col("seq"), c_off = col("offset_bytes"),
            c_lat = col("latency"), c_sm = col("sm_id"), c_phase = col("phase");
  if (c_pid < 0 || c_seq < 0 || c_off < 0 || c_lat < 0)
    throw std::runtime_error(trace_path + ":1: header lacks point_id, seq, offset_bytes or latency");
  while (std::getline(in, line)) {
    auto f = split_csv_line(line);
    if (f.size() != cols.size()) continue;  // torn last line
    std::size_t pid = 0;
    if (!to_int(f[static_cast<std::size_t>(c_pid)], pid)) continue;
    auto it = index.find(pid);
    if (it == index.end()) continue;  // not committed
    Sample s;
    if (c_thread >= 0) to_int(f[static_cast<std::size_t>(c_thread)], s.thread);
    to_int(f[static_cast<std::size_t>(c_seq)], s.seq);
    to_int(f[static_cast<std::size_t>(c_off)], s.offset_bytes);
    s.latency = to_double(f[static_cast<std::size_t>(c_lat)]);
    if (c_sm >= 0) to_int(f[static_cast<std::size_t>(c_sm)], s.sm_id);
    if (c_phase >= 0) to_int(f[static_cast<std::size_t>(c_phase)], s.phase);
    b.traces.points[it->second].samples.push_back(s);
  }
  return b;
}

}  // namespace dissect
