// The TLB staircase (Mei & Chu, Sec. 4.4 and Fig. 10-11; Saavedra): a page
// stride (s = 2 MB on Fermi..Maxwell) and a growing N. Average latency steps
// up where N exceeds the coverage of a TLB level (entries x the reach of one
// entry); with fine-grained timing the share of accesses slower than each
// latency level (missing that level) is drawn on the right axis (Fig. 11's miss
// rate); the tlb finding's coverages (details.levels[].coverage_bytes) are marked.
#include <algorithm>
#include <cmath>

#include "engine/report/gnuplot_script.hpp"
#include "engine/report/plot.hpp"
#include "engine/report/plot_series.hpp"
#include "engine/report/report_format.hpp"

namespace dissect::report {

PlotOutput plot_tlb_staircase(const PlotContext& ctx) {
  PlotOutput out;
  out.kind = PlotKind::tlb_staircase;
  out.stem = to_string(out.kind);
  out.title = plot_title(out.kind);
  const SeriesSet set = group_series(ctx.data, "size_bytes");
  bool fine = false;
  for (const auto* p : ctx.data.ok_points()) fine |= p->text("timing_mode") == "per_access" || p->text("timing_mode") == "on_chip";
  const bool share = fine && ctx.threshold.any() && set.series.size() == 1;
  std::vector<double> bounds = ctx.threshold.boundaries();
  if (bounds.size() > 3) bounds.resize(3);

  DataFile f;
  f.name = out.stem + ".dat";
  f.comments = {"average latency per access (cycles, raw) over the array size N, page-strided accesses",
                "miss_share_k: % of accesses above boundary k between latency levels (" + ctx.threshold.source + ")"};
  f.columns = {"size_bytes", "mean", "median", "measured", "point_id"};
  for (std::size_t k = 0; k < bounds.size(); ++k)
    f.columns.push_back("miss_share_" + std::to_string(k + 1) + "_above_" + number_label(bounds[k]));
  double lo = INFINITY, hi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  for (const auto& s : set.series) {
    DataBlock b;
    b.title = s.title.empty() ? "all points" : s.title;
    for (const auto* p : s.points) {
      const PointStats st = point_stats(*p);
      const double measured = static_cast<double>(p->measured);
      lo = std::min(lo, p->size_bytes());
      hi = std::max(hi, p->size_bytes());
      if (std::isfinite(st.mean)) {
        ylo = std::min(ylo, st.mean);
        yhi = std::max(yhi, st.mean);
      }
      std::vector<std::string> row{data_cell(p->size_bytes()), data_cell(st.mean), data_cell(st.median),
                                   data_cell(measured), std::to_string(p->point_id)};
      for (double bound : bounds)
        row.push_back(data_cell(measured > 0 ? 100.0 * static_cast<double>(p->count_above(bound)) / measured : kUnknown));
      b.rows.push_back(std::move(row));
    }
    f.blocks.push_back(std::move(b));
  }
  if (f.rows() < 2) {
    out.skipped = "fewer than two points with a size";
    return out;
  }
  out.data.push_back(f);

  std::string settings = title_setting(ctx, out.kind);
  settings += size_axis("x", lo, hi, "array size N");
  settings += "set ylabel 'average latency per access (cycles)'\n";
  settings += value_range("y", ylo, yhi);
  settings += "set key left center\n";
  settings += series_styles(std::max<std::size_t>(set.series.size(), 2));
  if (share)
    settings += "set y2label 'accesses above a latency level (%)'\nset y2range [0:105]\nset y2tics 0, 20, 100\n"
                "set ytics nomirror\n";
  const auto markers = size_markers(ctx.data, lo, hi);
  settings += marker_settings(markers, lo, hi);
  const std::string file = gp_quote(f.name);
  std::string plot = "plot";
  for (std::size_t i = 0; i < set.series.size(); ++i) {
    const std::string title = set.series[i].title.empty() ? "average latency" : set.series[i].title;
    plot += std::string(i ? ", \\\n    " : "") + " " + file + " index " + std::to_string(i) +
            " using 1:2 with linespoints ls " + std::to_string(i + 1) + " title " + gp_quote(title);
  }
  if (share)
    for (std::size_t k = 0; k < bounds.size(); ++k)
      plot += ", \\\n     " + file + " using 1:" + std::to_string(6 + k) + " axes x1y2 with steps lw 1.5 dt 2 lc rgb '" +
              series_color(k + 1) + "' title " +
              gp_quote("share > " + number_label(bounds[k]) + " cycles (right axis)");
  out.script = render_script({out.stem, plot_about(ctx, out.kind, out.data), settings, plot, 960, 600,
                              ctx.png_terminal});
  out.caption = "Average latency per access over the array size N with one access per page: each step up is a TLB "
                "level whose coverage (entries x the reach of one entry) N has exceeded.";
  if (share)
    out.caption += " The dashed lines (right axis) are the shares of accesses slower than each latency level, i.e. "
                   "missing that level (Mei & Chu's Fig. 11 miss rate; " + ctx.threshold.source + ").";
  if (auto note = thinning_note(set, ctx.data.limits.max_line_points); !note.empty()) out.notes.push_back(note);
  return out;
}

}  // namespace dissect::report
