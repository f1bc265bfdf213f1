#include "engine/report/plot.hpp"

#include "engine/report/report_format.hpp"

namespace dissect::report {

std::vector<std::string> plot_about(const PlotContext& ctx, PlotKind kind, const std::vector<DataFile>& data) {
  std::vector<std::string> out{std::string("dissect report: ") + plot_title(kind) + " of " + ctx.data.name(),
                               "bundle: " + ctx.data.dir};
  for (const auto& f : data) {
    std::string cols;
    for (const auto& c : f.columns) cols += (cols.empty() ? "" : " ") + c;
    out.push_back("data: " + f.name + (cols.empty() ? " (matrix)" : " (columns: " + cols + ")"));
  }
  return out;
}

std::string title_setting(const PlotContext& ctx, PlotKind kind, const std::string& detail) {
  std::string t = ctx.data.name() + ": " + plot_title(kind);
  if (!detail.empty()) t += " (" + detail + ")";
  return "set title " + gp_quote(t) + "\n";
}

PlotOutput make_plot(PlotKind kind, const PlotContext& ctx) {
  switch (kind) {
    case PlotKind::latency_over_size: return plot_latency_over_size(ctx);
    case PlotKind::trace_heatmap: return plot_trace_heatmap(ctx);
    case PlotKind::miss_staircase: return plot_miss_staircase(ctx);
    case PlotKind::tlb_staircase: return plot_tlb_staircase(ctx);
    case PlotKind::latency_over_stride: return plot_latency_over_stride(ctx);
    case PlotKind::bandwidth_grid: return plot_bandwidth_grid(ctx);
    case PlotKind::saavedra_grid: return plot_saavedra_grid(ctx);
    case PlotKind::latency_over_block: return plot_latency_over_block(ctx);
  }
  PlotOutput out;
  out.skipped = "unknown plot kind";
  return out;
}

}  // namespace dissect::report
