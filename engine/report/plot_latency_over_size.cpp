// Latency over array size N (Saavedra; Mei & Chu's stage 1; MT4G's size
// search): mean latency per access with the p5-p95 band and the median, the
// cache_size knee as a dashed vertical line. One line per combination of
// other varying parameters (e.g. path), mean only, when there are several.
#include <algorithm>
#include <cmath>

#include "engine/report/gnuplot_script.hpp"
#include "engine/report/plot.hpp"
#include "engine/report/plot_series.hpp"
#include "engine/report/report_format.hpp"

namespace dissect::report {

PlotOutput plot_latency_over_size(const PlotContext& ctx) {
  PlotOutput out;
  out.kind = PlotKind::latency_over_size;
  out.stem = to_string(out.kind);
  out.title = plot_title(out.kind);
  const SeriesSet set = group_series(ctx.data, "size_bytes");

  DataFile f;
  f.name = out.stem + ".dat";
  f.comments = {"latency per access (cycles, raw) over the array size N; one block per series"};
  f.columns = {"size_bytes", "mean", "median", "p5", "p95", "samples", "point_id"};
  double lo = INFINITY, hi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  for (const auto& s : set.series) {
    DataBlock b;
    b.title = s.title.empty() ? "all points" : s.title;
    for (const auto* p : s.points) {
      const PointStats st = point_stats(*p);
      const double n = p->size_bytes();
      lo = std::min(lo, n);
      hi = std::max(hi, n);
      for (double v : {st.mean, st.median, set.series.size() == 1 ? st.p5 : st.mean, set.series.size() == 1 ? st.p95 : st.mean})
        if (std::isfinite(v)) {
          ylo = std::min(ylo, v);
          yhi = std::max(yhi, v);
        }
      b.rows.push_back({data_cell(n), data_cell(st.mean), data_cell(st.median), data_cell(st.p5), data_cell(st.p95),
                        std::to_string(p->measured), std::to_string(p->point_id)});
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
  settings += "set ylabel 'latency per access (cycles)'\n";
  settings += value_range("y", ylo, yhi);
  settings += "set key top left\n";
  settings += series_styles(std::max<std::size_t>(set.series.size(), 2));
  const auto markers = size_markers(ctx.data, lo, hi);
  settings += marker_settings(markers, lo, hi);

  const std::string file = gp_quote(f.name);
  std::string plot;
  if (set.series.size() == 1) {
    plot = single_latency_series(file, set.series.front(), "1", 2, 3, 4, 5);
  } else {
    plot = "plot";
    for (std::size_t i = 0; i < set.series.size(); ++i)
      plot += std::string(i ? ", \\\n    " : "") + " " + file + " index " + std::to_string(i) +
              " using 1:2 with linespoints ls " + std::to_string(i + 1) + " title " + gp_quote(set.series[i].title);
  }
  out.script = render_script({out.stem, plot_about(ctx, out.kind, out.data), settings, plot, 960, 600,
                              ctx.png_terminal});
  out.caption = set.series.size() == 1
                    ? "Mean latency per access over the array size N (raw cycles, timer overhead included); where "
                      "drawn, the band spans the 5th to 95th percentile of the measured accesses and the dashed "
                      "grey line is the median."
                    : "Mean latency per access over the array size N, one line per " +
                          [&] {
                            std::string g;
                            for (const auto& c : set.grouped_by) g += (g.empty() ? "" : " and ") + c;
                            return g;
                          }() +
                          " (raw cycles).";
  if (markers.empty()) {
    out.caption += ctx.data.finding("cache_size") ? " The cache_size finding lies outside the sweep or is undetermined."
                                                  : " No cache_size finding to mark.";
  } else {
    out.caption += " The dashed red line marks the detected knee (";
    for (std::size_t i = 0; i < markers.size(); ++i) out.caption += (i ? "; " : "") + markers[i].label;
    out.caption += ").";
  }
  if (auto note = thinning_note(set, ctx.data.limits.max_line_points); !note.empty()) out.notes.push_back(note);
  return out;
}

}  // namespace dissect::report
