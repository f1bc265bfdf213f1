#pragma once
// Which plots fit an experiment, decided from its points (points.csv
// parameters: kernel, path, pattern, target, timing mode, which of size,
// stride, ILP and warps vary) and, for the marks on them, its findings.
//
//   latency_over_size    N varies (one stride, not a TLB experiment)
//   trace_heatmap        fine-grained timing (per_access) of pointer chases
//   miss_staircase       fine-grained, N varies, one stride, not TLB
//   tlb_staircase        N varies and the pattern is page_strided or the target tlb
//   latency_over_stride  shared_stride / coalescing kernels with the stride
//                        varying; or the stride varies and N does not
//   bandwidth_grid       throughput kernel with ILP or warps varying
//   saavedra_grid        N and stride both vary as a grid (>= 2 strides with >= 2 sizes each)
//   latency_over_block   the block size (page_bytes) varies at a fixed N with
//                        pattern page_random: line size by occupancy (*_line_blocks)
#include <string>
#include <vector>

#include "engine/report/experiment_data.hpp"

namespace dissect::report {

enum class PlotKind {
  latency_over_size,
  trace_heatmap,
  miss_staircase,
  tlb_staircase,
  latency_over_stride,
  bandwidth_grid,
  saavedra_grid,
  latency_over_block,
};

const std::vector<PlotKind>& all_plot_kinds();
const char* to_string(PlotKind kind);   // the file stem: "latency_over_size"
const char* plot_title(PlotKind kind);  // for humans: "Latency over array size N"

// The shape of a sweep, from the committed points that succeeded.
struct SweepShape {
  std::size_t points = 0;
  std::string kernel;                // of the first point ("" when unknown)
  bool fine_grained = false;         // timing_mode per_access
  bool tlb = false;                  // page_strided pattern or target tlb
  bool page_random = false;          // every point's pattern is page_random (one access per block)
  std::size_t sizes = 0, strides = 0, ilps = 0, warps = 0;  // distinct values
  std::size_t blocks = 0;            // distinct page_bytes (page_random's block size)
  bool grid = false;                 // >= 2 strides that each have >= 2 sizes
  bool has_windows = false;          // some point kept accesses for the heatmap
  std::vector<std::string> varying;  // parameter columns whose value differs between points
};

SweepShape sweep_shape(const ExperimentData& data);

struct PlotChoice {
  PlotKind kind;
  std::string reason;  // why it fits, for the report
};

// The plots that fit, in report order. Empty when none does; `why_none` then says why.
std::vector<PlotChoice> select_plots(const ExperimentData& data, std::string* why_none = nullptr);

// Parameter columns that describe a point (not statistics or context).
const std::vector<std::string>& parameter_columns();

}  // namespace dissect::report
