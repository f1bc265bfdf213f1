#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include "engine/bundle/bundle.hpp"
#include "engine/core/csv.hpp"
#include "engine/core/directory_lock.hpp"
#include "engine/core/files.hpp"

namespace dissect {
namespace fs = std::filesystem;

namespace {

// Damage is reported, never skipped in silence; past this many lines of one
// kind the rest are counted.
constexpr std::size_t kMaxDetailedWarnings = 10;

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

// Lines of one kind of damage: the first few in full, then a count.
class DamageLog {
 public:
  explicit DamageLog(std::vector<std::string>& out) : out_(out) {}
  void add(std::string line) {
    if (++count_ <= kMaxDetailedWarnings) out_.push_back(std::move(line));
  }
  void close(const std::string& what) {
    if (count_ > kMaxDetailedWarnings)
      out_.push_back(std::to_string(count_ - kMaxDetailedWarnings) + " more " + what + " not shown");
  }

 private:
  std::vector<std::string>& out_;
  std::size_t count_ = 0;
};

// The typed fields of bundle.json a reader relies on: wrong types are damage
// that would otherwise surface as a JSON library message, or not at all.
void check_header(const nlohmann::json& h, const std::string& path) {
  if (!h.is_object()) throw std::runtime_error(path + ": not a dissect bundle (not a JSON object)");
  if (!h.contains("schema_version")) throw std::runtime_error(path + ": not a dissect bundle (no schema_version)");
  const auto expect = [&](const char* key, bool ok, const char* what) {
    if (h.contains(key) && !ok)
      throw std::runtime_error(path + ": '" + key + "' is " + h[key].dump() + ", expected " + what +
                               " (the file is damaged)");
  };
  expect("schema_version", h["schema_version"].is_number_integer(), "a whole number");
  expect("status", h.value("status", nlohmann::json()).is_string(), "a string");
  expect("points_completed", h.value("points_completed", nlohmann::json()).is_number_unsigned(), "a whole number");
  expect("device", h.value("device", nlohmann::json()).is_object(), "an object");
  expect("spec", h.value("spec", nlohmann::json()).is_object(), "an object");
  if (h["schema_version"].get<std::int64_t>() > kBundleSchemaVersion)
    throw std::runtime_error(path + ": bundle schema version " + h["schema_version"].dump() +
                             " is newer than this dissect reads (" + std::to_string(kBundleSchemaVersion) + ")");
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
  check_header(b.header, header_path);
  b.traces.source = dir;
  if (b.header.contains("device") && b.header["device"].contains("sm_clock_khz") &&
      b.header["device"]["sm_clock_khz"].is_number())
    b.traces.sm_clock_khz = b.header["device"]["sm_clock_khz"].get<double>();
  const std::string status = b.header.value("status", std::string());
  // "running" with nobody holding the bundle's lock: the run was killed (SIGKILL,
  // power loss, a full disk that killed the process) and never closed it.
  if (status == "running" && !directory_locked(dir)) {
    b.abandoned = true;
    b.warnings.push_back("bundle.json says 'running' but no process is writing the bundle: the run was killed "
                         "before it could record how it ended; its committed points are used");
  }

  // points.csv: the committed points
  const std::string points_path = (root / "points.csv").string();
  std::map<std::size_t, std::size_t> index;  // point_id -> position
  std::vector<std::uint64_t> expected_samples;  // by position: the row's `samples` (at least this many in trace.csv)
  {
    std::ifstream in(points_path, std::ios::binary);
    if (!in) throw std::runtime_error(points_path + ": missing (a bundle's points.csv commits its points)");
    std::string line;
    std::vector<std::string> cols;
    if (std::getline(in, line)) cols = split_csv_line(line);
    if (!cols.empty() && std::find(cols.begin(), cols.end(), "point_id") == cols.end())
      throw std::runtime_error(points_path + ":1: header has no point_id column: not a points.csv of a bundle");
    if (cols.empty() && b.header.value("points_completed", std::uint64_t{0}) > 0)
      throw std::runtime_error(points_path + ": empty, but bundle.json says " +
                               b.header["points_completed"].dump() + " points were completed");
    DamageLog damage(b.warnings);
    std::size_t line_no = 1;
    while (std::getline(in, line)) {
      ++line_no;
      // No newline after it: the last line, torn when a run was killed writing it.
      const bool torn_possible = in.eof();
      if (line.empty()) continue;
      bool complete = true;
      auto f = split_csv_line(line, &complete);
      if (f.size() != cols.size() || !complete) {
        // The last row of a killed run may be torn (no newline yet): expected, not damage.
        if (!torn_possible)
          damage.add("points.csv:" + std::to_string(line_no) + ": row has " + std::to_string(f.size()) +
                     " cells, the header " + std::to_string(cols.size()) +
                     (complete ? "" : " (a quoted field is not closed)") + "; the point is left out");
        else b.torn_rows.push_back("points.csv:" + std::to_string(line_no));
        continue;
      }
      PointTrace p;
      std::map<std::string, std::string> row;
      for (std::size_t i = 0; i < cols.size(); ++i) row[cols[i]] = f[i];
      if (!to_int(row["point_id"], p.point_id)) {
        damage.add("points.csv:" + std::to_string(line_no) + ": point_id '" + row["point_id"] +
                   "' is not a whole number; the row is left out");
        continue;
      }
      if (index.count(p.point_id) != 0) {
        damage.add("points.csv:" + std::to_string(line_no) + ": point " + row["point_id"] +
                   " is committed twice; the second row is left out");
        continue;
      }
      p.status = row["status"];
      for (const auto& [k, v] : row) p.params[k] = v;
      to_int(row["accesses_per_pass"], p.accesses_per_pass);
      to_int(row["discard_passes"], p.discard_passes);
      to_int(row["sm_id"], p.sm_id);
      p.timer_overhead_cycles = to_double(row["timer_overhead_cycles"]);
      p.kernel_ms = to_double(row["kernel_ms"]);
      p.sm_clock_khz = to_double(row["sm_clock_khz"]);
      std::uint64_t n = 0;
      expected_samples.push_back(to_int(row["samples"], n) ? n : 0);
      index[p.point_id] = b.traces.points.size();
      b.traces.points.push_back(std::move(p));
    }
    damage.close("damaged points.csv rows");
  }

  // trace.csv: samples of committed points
  const std::string trace_path = (root / "trace.csv").string();
  std::ifstream in(trace_path, std::ios::binary);
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
  DamageLog damage(b.warnings);
  std::size_t line_no = 1;
  while (std::getline(in, line)) {
    ++line_no;
    const bool last = in.eof();  // no newline after it: torn when a run was killed writing it
    bool complete = true;
    auto f = split_csv_line(line, &complete);
    std::size_t pid = 0;
    bool ok = f.size() == cols.size() && complete && to_int(f[static_cast<std::size_t>(c_pid)], pid);
    Sample s;
    if (ok) {
      ok = to_int(f[static_cast<std::size_t>(c_seq)], s.seq) && to_int(f[static_cast<std::size_t>(c_off)], s.offset_bytes);
      if (c_thread >= 0) ok = ok && to_int(f[static_cast<std::size_t>(c_thread)], s.thread);
      if (c_sm >= 0) ok = ok && to_int(f[static_cast<std::size_t>(c_sm)], s.sm_id);
      if (c_phase >= 0) ok = ok && to_int(f[static_cast<std::size_t>(c_phase)], s.phase);
      s.latency = to_double(f[static_cast<std::size_t>(c_lat)]);
    }
    if (!ok) {
      if (line.empty() && last) continue;
      if (last) b.torn_rows.push_back("trace.csv:" + std::to_string(line_no));
      else damage.add("trace.csv:" + std::to_string(line_no) + ": malformed row (a cell is missing, not a whole "
                      "number or out of range); the sample is left out");
      continue;
    }
    auto it = index.find(pid);
    if (it == index.end()) continue;  // not committed
    b.traces.points[it->second].samples.push_back(s);
  }
  damage.close("malformed trace.csv rows");

  // Every committed point has its samples: trace rows are written before the
  // points.csv row that commits them, so fewer is a truncated or edited trace.
  DamageLog missing(b.warnings);
  for (std::size_t i = 0; i < b.traces.points.size(); ++i) {
    const PointTrace& p = b.traces.points[i];
    if (p.samples.size() < expected_samples[i])
      missing.add("point " + std::to_string(p.point_id) + ": trace.csv holds " + std::to_string(p.samples.size()) +
                  " samples, points.csv counts " + std::to_string(expected_samples[i]) +
                  " measured ones (trace.csv truncated?)");
  }
  missing.close("points with missing samples");
  if (b.header.contains("points_completed") && status != "running") {
    const auto said = b.header["points_completed"].get<std::uint64_t>();
    if (said != b.traces.points.size())
      b.warnings.push_back("bundle.json says " + std::to_string(said) + " points were completed, points.csv commits " +
                           std::to_string(b.traces.points.size()));
  }
  return b;
}

}  // namespace dissect
