#include "engine/report/plot_selection.hpp"

#include <cmath>
#include <map>
#include <set>

namespace dissect::report {

const std::vector<PlotKind>& all_plot_kinds() {
  static const std::vector<PlotKind> all{PlotKind::latency_over_size,   PlotKind::saavedra_grid,
                                         PlotKind::tlb_staircase,       PlotKind::latency_over_stride,
                                         PlotKind::latency_over_block,
                                         PlotKind::bandwidth_grid,      PlotKind::miss_staircase,
                                         PlotKind::trace_heatmap};
  return all;
}

const char* to_string(PlotKind kind) {
  switch (kind) {
    case PlotKind::latency_over_size: return "latency_over_size";
    case PlotKind::trace_heatmap: return "trace_heatmap";
    case PlotKind::miss_staircase: return "miss_staircase";
    case PlotKind::tlb_staircase: return "tlb_staircase";
    case PlotKind::latency_over_stride: return "latency_over_stride";
    case PlotKind::bandwidth_grid: return "bandwidth_grid";
    case PlotKind::saavedra_grid: return "saavedra_grid";
    case PlotKind::latency_over_block: return "latency_over_block";
  }
  return "plot";
}

const char* plot_title(PlotKind kind) {
  switch (kind) {
    case PlotKind::latency_over_size: return "Latency over array size N";
    case PlotKind::trace_heatmap: return "Fine-grained trace";
    case PlotKind::miss_staircase: return "Missed accesses over N";
    case PlotKind::tlb_staircase: return "TLB staircase";
    case PlotKind::latency_over_stride: return "Latency over stride";
    case PlotKind::bandwidth_grid: return "Bandwidth over ILP and warps";
    case PlotKind::saavedra_grid: return "Saavedra grid: latency over N for each stride";
    case PlotKind::latency_over_block: return "Latency over block size (line by occupancy)";
  }
  return "Plot";
}

const std::vector<std::string>& parameter_columns() {
  static const std::vector<std::string> cols{
      "kernel", "target",  "path",   "access", "element", "pattern", "size_bytes", "stride_bytes", "offset_bytes",
      "page_bytes", "iterations", "warmup", "discard", "timing_mode", "clock", "blocks", "threads",
      "chasers", "thread_offset_bytes", "ilp", "carveout", "repeats", "arrays"};
  return cols;
}

SweepShape sweep_shape(const ExperimentData& data) {
  SweepShape s;
  const auto points = data.ok_points();
  s.points = points.size();
  if (points.empty()) return s;
  s.kernel = points.front()->text("kernel");
  std::set<double> sizes, strides, ilps, warps, blocks;
  s.page_random = true;
  std::map<double, std::set<double>> sizes_per_stride;
  for (const auto* p : points) {
    // Every access timed: per_access and on_chip alike (only chain keeps one average).
    s.fine_grained |= p->text("timing_mode") == "per_access" || p->text("timing_mode") == "on_chip";
    s.tlb |= p->text("pattern") == "page_strided" || p->text("target") == "tlb";
    s.has_windows |= p->in_window && !p->window.empty();
    s.page_random = s.page_random && p->text("pattern") == "page_random";
    if (const double b = p->number("page_bytes"); std::isfinite(b) && b > 0) blocks.insert(b);
    const double n = p->size_bytes(), st = p->stride_bytes();
    if (!std::isnan(n)) sizes.insert(n);
    if (!std::isnan(st)) strides.insert(st);
    if (!std::isnan(n) && !std::isnan(st)) sizes_per_stride[st].insert(n);
    ilps.insert(p->number("ilp", 1));
    warps.insert(p->warps());
  }
  s.sizes = sizes.size();
  s.strides = strides.size();
  s.ilps = ilps.size();
  s.warps = warps.size();
  s.blocks = blocks.size();
  std::size_t rich = 0;
  for (const auto& [st, ns] : sizes_per_stride) rich += ns.size() >= 2 ? 1 : 0;
  s.grid = rich >= 2;
  for (const auto& c : parameter_columns()) {
    std::set<std::string> values;
    for (const auto* p : points) values.insert(p->text(c));
    if (values.size() > 1) s.varying.push_back(c);
  }
  return s;
}

std::vector<PlotChoice> select_plots(const ExperimentData& data, std::string* why_none) {
  const SweepShape s = sweep_shape(data);
  std::vector<PlotChoice> out;
  const auto add = [&out](PlotKind k, std::string why) { out.push_back({k, std::move(why)}); };
  const bool chase = s.kernel == "pchase" || s.kernel == "phases" || s.kernel.empty();

  if (s.points == 0) {
    if (why_none) *why_none = "the bundle has no successful points";
    return out;
  }
  if (s.kernel == "shared_stride" || s.kernel == "coalescing") {
    if (s.strides >= 2) add(PlotKind::latency_over_stride, s.kernel + " kernel; the stride varies");
  } else if (s.kernel == "throughput") {
    if (s.ilps >= 2 || s.warps >= 2)
      add(PlotKind::bandwidth_grid, "throughput kernel; ILP or warps vary");
  } else if (s.sizes >= 2 && s.grid) {
    add(PlotKind::saavedra_grid, "N and the stride both vary (a grid)");
  } else if (s.sizes >= 2 && s.tlb) {
    add(PlotKind::tlb_staircase, "N varies with a page-strided pattern / TLB target");
  } else if (s.sizes >= 2) {
    add(PlotKind::latency_over_size, "N varies");
  } else if (s.strides >= 2) {
    add(PlotKind::latency_over_stride, "the stride varies at a fixed N");
  } else if (chase && s.page_random && s.blocks >= 2) {
    // The *_line_blocks steps: N and the stride are fixed, only the block
    // (array.page) varies; the line is read off the block axis.
    add(PlotKind::latency_over_block, "page_random chase; the block size (page_bytes) varies at a fixed N");
  }
  if (chase && s.fine_grained && s.sizes >= 2 && !s.grid && !s.tlb)
    add(PlotKind::miss_staircase, "fine-grained timing, N varies");
  if (chase && s.fine_grained && s.has_windows)
    add(PlotKind::trace_heatmap, "fine-grained timing: every access was timed");

  if (out.empty() && why_none) {
    std::string varying;
    for (const auto& v : s.varying) varying += (varying.empty() ? "" : ", ") + v;
    *why_none = "no plot kind fits a " + (s.kernel.empty() ? std::string("?") : s.kernel) + " experiment with " +
                std::to_string(s.points) + " point(s)" + (varying.empty() ? "" : " varying " + varying) +
                " (plots need N, the stride, ILP, warps or a page_random block size to vary, or fine-grained timing)";
  }
  return out;
}

}  // namespace dissect::report
