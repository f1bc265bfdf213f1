#pragma once
// What a report needs from one result bundle, loaded without holding the whole
// trace in memory. trace.csv is streamed once; per committed point it keeps
//   - the points.csv row (parameters and latency statistics),
//   - a histogram of its measured latencies at one-cycle resolution (miss
//     counts at any threshold, medians when points.csv lacks them),
//   - for at most `max_rows` points spread evenly over the sweep, the first
//     `window` measured accesses of its first chasing thread (the heatmap).
// A bundle that is already in memory (the topology verb) converts with
// experiment_from_bundle; the same limits apply.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/bundle/bundle.hpp"

namespace dissect::report {

struct ReportLimits {
  std::size_t window = 512;             // accesses per point kept for the heatmap
  std::size_t max_rows = 64;            // heatmap rows (points), spread evenly over the sweep
  std::size_t max_line_points = 2000;   // points per series of a line plot (evenly thinned beyond)
  bool operator==(const ReportLimits&) const = default;
};

struct PointData {
  std::size_t point_id = 0;
  std::string status = "ok";
  std::map<std::string, std::string> params;  // the points.csv row, by column
  std::uint64_t measured = 0;                  // measured samples (discarded passes left out)
  double latency_sum = 0;
  std::map<std::int64_t, std::uint64_t> histogram;  // latency rounded to whole cycles -> count
  // Throughput kernels (one sample per warp: latency = cycles of its loads,
  // offset_bytes = bytes it loaded): bytes and the slowest warp per SM.
  double bytes_loaded = 0;
  std::map<std::int32_t, std::pair<double, double>> sm_bytes_cycles;  // sm -> (bytes, max cycles)
  bool in_window = false;                      // chosen as a heatmap row
  std::vector<double> window;                  // latencies of the first accesses of the first thread, by seq

  [[nodiscard]] bool ok() const { return status == "ok"; }
  [[nodiscard]] std::string text(const std::string& key, const std::string& fallback = "") const;
  [[nodiscard]] double number(const std::string& key, double fallback = kUnknown) const;
  [[nodiscard]] double size_bytes() const { return number("size_bytes"); }
  [[nodiscard]] double stride_bytes() const { return number("stride_bytes"); }
  // Warps of the launch: blocks x ceil(threads / 32).
  [[nodiscard]] double warps() const;
  // Average latency of the measured samples (cycles); points.csv lat_mean when no samples were read.
  [[nodiscard]] double mean_latency() const;
  [[nodiscard]] double median_latency() const;
  [[nodiscard]] double quantile(double q) const;  // from the histogram
  // Measured samples with latency above `threshold` (cycles).
  [[nodiscard]] std::uint64_t count_above(double threshold) const;
};

struct ExperimentData {
  std::string dir;
  nlohmann::json header = nlohmann::json::object();  // bundle.json
  bool has_findings_file = false;
  nlohmann::json findings = nlohmann::json::array();      // findings.json "findings"
  nlohmann::json expectations = nlohmann::json::array();  // findings.json "expectations"
  std::vector<PointData> points;                          // committed points, in points.csv order
  std::uint64_t trace_rows = 0;                           // samples of committed points in trace.csv
  std::size_t window_rows = 0;                            // points with a heatmap window
  ReportLimits limits;
  // Damage found while reading (as dissect analyze reports it): malformed rows in
  // the middle of a CSV, points with fewer samples than points.csv counts, a run
  // killed while "running". The report's warnings name them.
  std::vector<std::string> damage;

  [[nodiscard]] std::string name() const;  // spec name, else the directory name
  [[nodiscard]] std::vector<const PointData*> ok_points() const;
  // The first finding of an analyzer, or nullptr.
  [[nodiscard]] const nlohmann::json* finding(const std::string& analyzer) const;
};

// Reads bundle.json, points.csv, findings.json (optional) and streams trace.csv.
// Throws std::runtime_error naming the file when the bundle is unreadable.
ExperimentData load_experiment(const std::string& bundle_dir, const ReportLimits& limits = {});
// The same from a bundle in memory; `findings_file` is a findings.json object
// ({findings, expectations}) or null.
ExperimentData experiment_from_bundle(const Bundle& bundle, const nlohmann::json& findings_file,
                                      const ReportLimits& limits = {});

// Which point indices (0..n-1) get a heatmap row: all when n <= max_rows, else
// max_rows evenly spread, first and last included.
std::vector<std::size_t> spread_indices(std::size_t n, std::size_t max_rows);

}  // namespace dissect::report
