#include "engine/report/experiment_data.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string_view>

#include "engine/core/csv.hpp"
#include "engine/core/directory_lock.hpp"
#include "engine/core/files.hpp"

namespace dissect::report {
namespace fs = std::filesystem;

namespace {

double parse_double(std::string_view s) {
  if (s.empty() || s == "nan") return kUnknown;
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || p != s.data() + s.size()) return kUnknown;
  return v;
}

template <typename T>
bool parse_int(std::string_view s, T& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc{} && p == s.data() + s.size();
}

// Splits a line of plain numeric CSV (trace.csv has no quoted fields).
// Fields are a few characters each: a plain scan, not a library search per field (a
// report reads hundreds of MB of them).
void split_plain(std::string_view line, std::vector<std::string_view>& out) {
  out.clear();
  const char* start = line.data();
  const char* const end = start + line.size();
  for (const char* p = start; p != end; ++p)
    if (*p == ',') {
      out.emplace_back(start, static_cast<std::size_t>(p - start));
      start = p + 1;
    }
  std::string_view last(start, static_cast<std::size_t>(end - start));
  if (!last.empty() && last.back() == '\r') last.remove_suffix(1);
  out.push_back(last);
}

// Accumulates one sample into a point.
struct Accumulator {
  std::uint64_t skip = 0;  // seq below this is a discarded pass
  std::size_t window = 0;
  bool throughput = false;

  void add(PointData& p, std::uint32_t thread, std::uint64_t seq, double latency, std::uint64_t offset,
           std::int32_t sm) const {
    if (seq < skip || std::isnan(latency)) return;
    ++p.measured;
    if (throughput) {
      p.bytes_loaded += static_cast<double>(offset);
      auto& [bytes, cycles] = p.sm_bytes_cycles[sm];
      bytes += static_cast<double>(offset);
      cycles = std::max(cycles, latency);
    }
    p.latency_sum += latency;
    ++p.histogram[static_cast<std::int64_t>(std::llround(latency))];
    if (p.in_window && thread == 0 && seq - skip < window) {
      const std::size_t i = static_cast<std::size_t>(seq - skip);
      if (p.window.size() <= i) p.window.resize(i + 1, kUnknown);
      if (std::isnan(p.window[i])) p.window[i] = latency;  // repeats: the first launch
    }
  }
};

void choose_window_rows(ExperimentData& e) {
  std::vector<std::size_t> ok;
  for (std::size_t i = 0; i < e.points.size(); ++i)
    if (e.points[i].ok()) ok.push_back(i);
  for (std::size_t k : spread_indices(ok.size(), e.limits.max_rows)) e.points[ok[k]].in_window = true;
}

void finish_windows(ExperimentData& e) {
  e.window_rows = 0;
  for (auto& p : e.points) {
    // Trailing gaps (fewer samples than the window) are trimmed.
    while (!p.window.empty() && std::isnan(p.window.back())) p.window.pop_back();
    if (p.in_window && !p.window.empty()) ++e.window_rows;
  }
}

void read_findings_object(ExperimentData& e, const nlohmann::json& fj) {
  if (!fj.is_object()) return;
  e.has_findings_file = true;
  if (fj.contains("findings") && fj["findings"].is_array()) e.findings = fj["findings"];
  if (fj.contains("expectations") && fj["expectations"].is_array()) e.expectations = fj["expectations"];
}

Accumulator accumulator_for(const PointData& p, std::size_t window) {
  Accumulator a;
  a.window = window;
  a.throughput = p.text("kernel") == "throughput";
  const double app = p.number("accesses_per_pass", 0), discard = p.number("discard_passes", 0);
  if (app > 0 && discard > 0) a.skip = static_cast<std::uint64_t>(app * discard);
  return a;
}

}  // namespace

std::string PointData::text(const std::string& key, const std::string& fallback) const {
  auto it = params.find(key);
  return it == params.end() ? fallback : it->second;
}

double PointData::number(const std::string& key, double fallback) const {
  auto it = params.find(key);
  if (it == params.end()) return fallback;
  const double v = parse_double(it->second);
  return std::isnan(v) ? fallback : v;
}

double PointData::warps() const {
  const double blocks = number("blocks", 1), threads = number("threads", 1);
  return blocks * std::ceil(threads / 32.0);
}

double PointData::mean_latency() const {
  if (measured > 0) return latency_sum / static_cast<double>(measured);
  return number("lat_mean");
}

double PointData::median_latency() const {
  const double csv = number("lat_median");
  if (!std::isnan(csv)) return csv;
  return quantile(0.5);
}

double PointData::quantile(double q) const {
  if (measured == 0) return kUnknown;
  const double target = q * static_cast<double>(measured - 1);
  std::uint64_t seen = 0;
  for (const auto& [lat, count] : histogram) {
    seen += count;
    if (static_cast<double>(seen) > target) return static_cast<double>(lat);
  }
  return static_cast<double>(histogram.rbegin()->first);
}

std::uint64_t PointData::count_above(double threshold) const {
  if (std::isinf(threshold) && threshold > 0) return 0;
  std::uint64_t n = 0;
  for (auto it = histogram.upper_bound(static_cast<std::int64_t>(std::floor(threshold))); it != histogram.end(); ++it)
    n += it->second;
  return n;
}

std::string ExperimentData::name() const {
  if (header.contains("spec") && header["spec"].is_object()) {
    const auto& s = header["spec"];
    if (s.contains("name") && s["name"].is_string() && !s["name"].get<std::string>().empty())
      return s["name"].get<std::string>();
  }
  const fs::path p(dir);
  return p.filename().empty() ? p.parent_path().filename().string() : p.filename().string();
}

std::vector<const PointData*> ExperimentData::ok_points() const {
  std::vector<const PointData*> out;
  for (const auto& p : points)
    if (p.ok()) out.push_back(&p);
  return out;
}

const nlohmann::json* ExperimentData::finding(const std::string& analyzer) const {
  for (const auto& f : findings)
    if (f.is_object() && f.value("analyzer", "") == analyzer) return &f;
  return nullptr;
}

std::vector<std::size_t> spread_indices(std::size_t n, std::size_t max_rows) {
  std::vector<std::size_t> out;
  if (n == 0 || max_rows == 0) return out;
  if (n <= max_rows) {
    for (std::size_t i = 0; i < n; ++i) out.push_back(i);
    return out;
  }
  if (max_rows == 1) return {0};
  for (std::size_t k = 0; k < max_rows; ++k) {
    const std::size_t i = static_cast<std::size_t>(
        std::llround(static_cast<double>(k) * static_cast<double>(n - 1) / static_cast<double>(max_rows - 1)));
    if (out.empty() || out.back() != i) out.push_back(i);
  }
  return out;
}

ExperimentData load_experiment(const std::string& bundle_dir, const ReportLimits& limits) {
  ExperimentData e;
  e.dir = bundle_dir;
  e.limits = limits;
  const fs::path root(bundle_dir);
  if (!fs::is_directory(root)) throw std::runtime_error(bundle_dir + ": not a bundle directory");
  const std::string header_path = (root / "bundle.json").string();
  try {
    e.header = nlohmann::json::parse(read_text_file(header_path));
  } catch (const nlohmann::json::exception& ex) {
    throw std::runtime_error(header_path + ": malformed JSON: " + ex.what());
  }
  if (!e.header.is_object() || !e.header.contains("schema_version"))
    throw std::runtime_error(header_path + ": not a dissect bundle (no schema_version)");

  const fs::path findings_path = root / "findings.json";
  if (fs::exists(findings_path)) {
    try {
      read_findings_object(e, nlohmann::json::parse(read_text_file(findings_path.string())));
    } catch (const nlohmann::json::exception& ex) {
      throw std::runtime_error(findings_path.string() + ": malformed JSON: " + ex.what());
    }
  }

  if (e.header.value("status", nlohmann::json()) == "running" && !directory_locked(bundle_dir))
    e.damage.push_back("bundle.json says 'running' but no process is writing the bundle: the run was killed; its "
                       "committed points are shown (dissect run --resume continues it)");
  // points.csv: the committed points (a torn last row is ignored, as the bundle reader does).
  std::map<std::size_t, std::size_t> index;
  std::size_t bad_point_rows = 0, bad_trace_rows = 0;
  {
    std::ifstream in(root / "points.csv");
    if (!in) throw std::runtime_error((root / "points.csv").string() + ": missing (a bundle's points.csv commits its points)");
    std::string line;
    std::vector<std::string> cols;
    if (std::getline(in, line)) cols = split_csv_line(line);
    while (std::getline(in, line)) {
      const bool torn_possible = in.eof();  // no newline after it: a killed run's last row
      if (line.empty()) continue;
      const auto f = split_csv_line(line);
      if (f.size() != cols.size()) {
        if (!torn_possible) ++bad_point_rows;
        continue;
      }
      PointData p;
      for (std::size_t i = 0; i < cols.size(); ++i) p.params[cols[i]] = f[i];
      if (!parse_int(p.text("point_id"), p.point_id)) continue;
      p.status = p.text("status", "ok");
      index[p.point_id] = e.points.size();
      e.points.push_back(std::move(p));
    }
  }
  choose_window_rows(e);
  std::vector<Accumulator> acc;
  for (const auto& p : e.points) acc.push_back(accumulator_for(p, limits.window));

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
  const int c_pid = col("point_id"), c_thread = col("thread"), c_seq = col("seq"), c_lat = col("latency"),
            c_off = col("offset_bytes"), c_sm = col("sm_id");
  if (c_pid < 0 || c_seq < 0 || c_lat < 0)
    throw std::runtime_error(trace_path + ":1: header lacks point_id, seq or latency");
  std::vector<std::string_view> f;
  std::size_t last_pid = 0;
  auto last_it = index.end();
  while (std::getline(in, line)) {
    const bool torn_possible = in.eof();
    split_plain(line, f);
    std::size_t pid = 0;
    if (f.size() != cols.size() || !parse_int(f[static_cast<std::size_t>(c_pid)], pid)) {
      if (!torn_possible) ++bad_trace_rows;  // else the torn last line of a killed run
      continue;
    }
    // Rows come point by point: the last point's entry, unless the point changed.
    if (pid != last_pid || last_it == index.end()) last_pid = pid, last_it = index.find(pid);
    const auto it = last_it;
    if (it == index.end()) continue;  // not committed
    std::uint32_t thread = 0;
    std::uint64_t seq = 0;
    if (c_thread >= 0 && !parse_int(f[static_cast<std::size_t>(c_thread)], thread)) continue;
    if (!parse_int(f[static_cast<std::size_t>(c_seq)], seq)) continue;
    std::uint64_t offset = 0;
    std::int32_t sm = -1;
    if (c_off >= 0) parse_int(f[static_cast<std::size_t>(c_off)], offset);
    if (c_sm >= 0) parse_int(f[static_cast<std::size_t>(c_sm)], sm);
    ++e.trace_rows;
    acc[it->second].add(e.points[it->second], thread, seq, parse_double(f[static_cast<std::size_t>(c_lat)]), offset,
                        sm);
  }
  finish_windows(e);
  if (bad_point_rows > 0)
    e.damage.push_back("points.csv: " + std::to_string(bad_point_rows) + " malformed rows left out");
  if (bad_trace_rows > 0)
    e.damage.push_back("trace.csv: " + std::to_string(bad_trace_rows) + " malformed rows left out");
  for (const auto& p : e.points) {
    // Measured samples (discarded passes left out), what points.csv's `samples` counts.
    std::uint64_t expected = 0;
    if (parse_int(p.text("samples"), expected) && p.measured < expected)
      e.damage.push_back("point " + std::to_string(p.point_id) + ": trace.csv holds " + std::to_string(p.measured) +
                         " measured samples, points.csv counts " + std::to_string(expected) + " (truncated?)");
  }
  return e;
}

ExperimentData experiment_from_bundle(const Bundle& bundle, const nlohmann::json& findings_file,
                                      const ReportLimits& limits) {
  ExperimentData e;
  e.dir = bundle.dir;
  e.header = bundle.header;
  e.limits = limits;
  read_findings_object(e, findings_file);
  for (const auto& t : bundle.traces.points) {
    PointData p;
    p.point_id = t.point_id;
    p.status = t.status;
    p.params = t.params;
    // Traces built in memory may carry their context only in the struct fields.
    const auto fill = [&p](const char* key, const std::string& value) { p.params.emplace(key, value); };
    fill("accesses_per_pass", std::to_string(t.accesses_per_pass));
    fill("discard_passes", std::to_string(t.discard_passes));
    fill("kernel_ms", format_number(t.kernel_ms));
    fill("sm_clock_khz", format_number(t.sm_clock_khz));
    fill("timer_overhead_cycles", format_number(t.timer_overhead_cycles));
    e.points.push_back(std::move(p));
  }
  choose_window_rows(e);
  for (std::size_t i = 0; i < e.points.size(); ++i) {
    const Accumulator a = accumulator_for(e.points[i], limits.window);
    for (const auto& s : bundle.traces.points[i].samples) {
      ++e.trace_rows;
      a.add(e.points[i], s.thread, s.seq, s.latency, s.offset_bytes, s.sm_id);
    }
  }
  finish_windows(e);
  return e;
}

}  // namespace dissect::report
