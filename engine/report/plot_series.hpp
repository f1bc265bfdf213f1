#pragma once
// Helpers shared by the line plots: points grouped into series (one line per
// combination of the parameters that vary besides the x axis), sorted by x and
// thinned to the report limits; the statistics a line plot draws; the
// findings marked on a size axis.
#include <functional>
#include <string>
#include <vector>

#include "engine/report/data_file.hpp"
#include "engine/report/experiment_data.hpp"

namespace dissect::report {

struct Series {
  std::string title;                      // "stride 128 B", "path=cg", or "" for the only series
  std::vector<const PointData*> points;   // sorted by x
};

struct SeriesSet {
  std::vector<Series> series;
  std::vector<std::string> grouped_by;    // parameter columns that split the series
  std::size_t thinned = 0;                // points left out by max_line_points
};

// x_column: the points.csv column of the x axis. `also_ignore`: columns that
// never split series. Points without a finite x are left out. When grouping
// would leave series of single points (zipped sweeps), one series is drawn.
// `x_of`, when given, computes x instead of reading the column (e.g. warps).
SeriesSet group_series(const ExperimentData& data, const std::string& x_column,
                       const std::vector<std::string>& also_ignore = {},
                       const std::vector<std::string>& prefer_first = {},
                       const std::function<double(const PointData&)>& x_of = {});

// "stride 128 B" for size columns, "ilp 4", "path cg".
std::string series_label(const std::string& column, const std::string& value);

// Latency statistics of a point for plots: mean, median, p5, p95 (cycles).
struct PointStats {
  double mean, median, p5, p95;
};
PointStats point_stats(const PointData& p);

// The plot command of a single latency series: the p5-p95 band and the
// median only where they differ from the mean somewhere (else they would be
// legend entries without a visible line). Columns are gnuplot column numbers.
std::string single_latency_series(const std::string& file, const Series& series, const std::string& x,
                                  int mean_col, int median_col, int p5_col, int p95_col);

// Findings that mark a knee on a size axis: `cache_size` (its value in bytes),
// `tlb` (details.levels[].coverage_bytes) and any other finding whose details
// hold a numeric knee_bytes; those inside [lo, hi]. Label and x.
struct Marker {
  std::string label;
  double x;
};
// Equal values are drawn once ("cache_size = 32 KiB (5 series)").
std::vector<Marker> size_markers(const ExperimentData& data, double lo, double hi);
// gnuplot settings drawing the markers on a size axis over [lo, hi]: labels
// staggered from the top, left of their line in the right part of the plot.
std::string marker_settings(const std::vector<Marker>& markers, double lo, double hi);

// A note for report.md when points were thinned, else "".
std::string thinning_note(const SeriesSet& set, std::size_t limit);

}  // namespace dissect::report
