// The fine-grained trace as a heatmap, as in Mei & Chu's figures: x is the
// access index (measured accesses of the first chasing thread, in order), y
// one row per point (labelled by N, or by what varies), colour the latency.
// Misses show as bright columns; their pattern over N shows the sets, their
// period the replacement policy. A single point is drawn as latency over the
// access index instead (a one-row heatmap shows nothing).
#include <algorithm>
#include <cmath>

#include "engine/report/gnuplot_script.hpp"
#include "engine/report/plot.hpp"
#include "engine/report/plot_selection.hpp"
#include "engine/report/report_format.hpp"

namespace dissect::report {

namespace {

std::string row_label(const PointData& p, const SweepShape& shape) {
  std::string label;
  for (const auto& c : shape.varying) label += (label.empty() ? "" : " ") + p.text(c);
  return label.empty() ? "point " + std::to_string(p.point_id) : label;
}

double quantile_of(std::vector<double> v, double q) {
  if (v.empty()) return kUnknown;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(q * static_cast<double>(v.size() - 1))];
}

}  // namespace

PlotOutput plot_trace_heatmap(const PlotContext& ctx) {
  PlotOutput out;
  out.kind = PlotKind::trace_heatmap;
  out.stem = to_string(out.kind);
  out.title = plot_title(out.kind);
  const SweepShape shape = sweep_shape(ctx.data);
  std::vector<const PointData*> rows;
  for (const auto* p : ctx.data.ok_points())
    if (p->in_window && !p->window.empty()) rows.push_back(p);
  std::stable_sort(rows.begin(), rows.end(), [](const PointData* a, const PointData* b) {
    if (a->size_bytes() != b->size_bytes()) return a->size_bytes() < b->size_bytes();
    return a->stride_bytes() < b->stride_bytes();
  });
  if (rows.empty()) {
    out.skipped = "no point kept per-access samples";
    return out;
  }
  std::size_t width = 0;
  std::vector<double> all;
  std::uint64_t measured_max = 0;
  for (const auto* p : rows) {
    width = std::max(width, p->window.size());
    measured_max = std::max(measured_max, p->measured);
    for (double v : p->window)
      if (!std::isnan(v)) all.push_back(v);
  }
  const double lo = quantile_of(all, 0.0);
  double hi = quantile_of(all, 0.995);
  const double top = quantile_of(all, 1.0);
  if (!(hi > lo)) hi = lo + 1;
  const std::size_t above = static_cast<std::size_t>(std::count_if(all.begin(), all.end(), [&](double v) { return v > hi; }));

  std::string settings;
  std::string plot;
  const std::string used = "first " + std::to_string(width) + " measured accesses";
  if (rows.size() == 1) {
    const PointData& p = *rows.front();
    DataFile f;
    f.name = out.stem + ".dat";
    f.comments = {"latency (cycles, raw) of the " + used + " of thread 0, point " + std::to_string(p.point_id) +
                  " (N = " + size_label(p.size_bytes()) + ", s = " + size_label(p.stride_bytes()) + ")"};
    f.columns = {"access", "latency"};
    DataBlock b;
    for (std::size_t i = 0; i < p.window.size(); ++i) b.rows.push_back({std::to_string(i), data_cell(p.window[i])});
    f.blocks.push_back(std::move(b));
    out.data.push_back(f);
    settings = title_setting(ctx, out.kind, "N = " + size_label(p.size_bytes()) + ", s = " + size_label(p.stride_bytes()));
    settings += "set xlabel 'access index (measured accesses of thread 0, in order)'\n";
    settings += "set ylabel 'latency (cycles)'\n";
    settings += "set xrange [-1:" + std::to_string(width) + "]\n";
    settings += value_range("y", lo, top);
    settings += "set key top right\n";
    const bool split = ctx.threshold.any() && ctx.threshold.threshold > lo && ctx.threshold.threshold < top;
    if (split) {
      const std::string t = number_label(ctx.threshold.threshold, 17);
      settings += horizontal_marker(1, ctx.threshold.threshold,
                                    "miss threshold " + number_label(ctx.threshold.threshold) + " cycles", "#7f7f7f");
      plot = "plot " + gp_quote(f.name) + " using 1:($2 <= " + t +
             " ? $2 : NaN) with points pt 7 ps 0.45 lc rgb '#1f77b4' title 'hit', \\\n     '' using 1:($2 > " + t +
             " ? $2 : NaN) with points pt 7 ps 0.6 lc rgb '#d62728' title 'miss'";
    } else {
      plot = "plot " + gp_quote(f.name) + " using 1:2 with points pt 7 ps 0.45 lc rgb '#1f77b4' title 'latency'";
    }
    out.caption = "Latency of every access of the single point, in measurement order (Mei & Chu's fine-grained "
                  "P-chase). Slow accesses are misses; a periodic pattern points to LRU replacement.";
  } else {
    DataFile m;
    m.name = out.stem + ".dat";
    m.comments = {"latency (cycles, raw) of the " + used + " of thread 0: one row per point (bottom to top, rows "
                  "listed in " + out.stem + "_rows.dat), one column per access; NaN where a point has fewer"};
    DataBlock mb;
    for (const auto* p : rows) {
      std::vector<std::string> cells;
      cells.reserve(width);
      for (std::size_t i = 0; i < width; ++i) cells.push_back(data_cell(i < p->window.size() ? p->window[i] : kUnknown));
      mb.rows.push_back(std::move(cells));
    }
    m.blocks.push_back(std::move(mb));
    DataFile r;
    r.name = out.stem + "_rows.dat";
    r.comments = {"the rows of " + m.name + ", bottom to top"};
    r.columns = {"row", "point_id", "size_bytes", "stride_bytes", "label"};
    DataBlock rb;
    std::string tics;
    const std::size_t every = (rows.size() + 15) / 16;
    // Row labels: N in one unit for the whole axis (or the stride, or what varies).
    std::vector<double> axis_values;
    for (const auto* p : rows) axis_values.push_back(shape.sizes >= 2 ? p->size_bytes() : p->stride_bytes());
    const std::vector<std::string> sized = size_labels(axis_values);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const std::string label = shape.sizes >= 2 ? sized[i] : shape.strides >= 2 ? "s " + sized[i] : row_label(*rows[i], shape);
      rb.rows.push_back({std::to_string(i), std::to_string(rows[i]->point_id), data_cell(rows[i]->size_bytes()),
                         data_cell(rows[i]->stride_bytes()), label});
      // Every `every`-th row, and the top row when it is not crowded by the one below.
      const bool top_row = i + 1 == rows.size() && static_cast<double>(i % every) >= 0.6 * static_cast<double>(every);
      if (i % every == 0 || top_row)
        tics += std::string(tics.empty() ? "" : ", ") + gp_quote(label) + " " + std::to_string(i);
    }
    r.blocks.push_back(std::move(rb));
    out.data.push_back(m);
    out.data.push_back(r);
    settings = title_setting(ctx, out.kind);
    settings += "set xlabel 'access index (measured accesses of thread 0, in order)'\n";
    settings += std::string("set ylabel ") + (shape.sizes >= 2 ? "'array size N'" : shape.strides >= 2 ? "'stride s'" : "'point'") + "\n";
    settings += "set xrange [-0.5:" + number_label(static_cast<double>(width) - 0.5) + "]\n";
    settings += "set yrange [-0.5:" + number_label(static_cast<double>(rows.size()) - 0.5) + "]\n";
    settings += "set ytics (" + tics + ")\n";
    settings += "set tics out\nset grid noxtics noytics\nunset key\n";
    settings += viridis_palette();
    settings += "set cbrange [" + number_label(lo, 17) + ":" + number_label(hi, 17) + "]\n";
    settings += "set cblabel 'latency (cycles)'\nset rmargin 12\n";
    plot = "plot " + gp_quote(m.name) + " matrix with image";
    out.caption = "Every measured access of each point (x: access index, y: one row per point, colour: latency in "
                  "cycles), as in Mei & Chu's fine-grained figures: bright cells are misses. How the misses spread "
                  "as N grows shows the cache sets; a fixed period shows LRU replacement.";
  }
  out.script = render_script({out.stem, plot_about(ctx, out.kind, out.data), settings, plot, 1000,
                              rows.size() == 1 ? 560 : 620, ctx.png_terminal});
  // What was left out.
  const std::size_t ok = ctx.data.ok_points().size();
  if (measured_max > width)
    out.notes.push_back("Downsampled: shows the first " + std::to_string(width) + " measured accesses of thread 0 per point (of up to " +
                        std::to_string(measured_max) + " measured samples)");
  if (rows.size() < ok)
    out.notes.push_back("Downsampled: shows " + std::to_string(rows.size()) + " of " + std::to_string(ok) +
                        " points, evenly spread over the sweep");
  if (above > 0)
    out.notes.push_back("Colour range: the scale ends at the 99.5th percentile (" + number_label(hi) + " cycles); " +
                        std::to_string(above) + " slower accesses (up to " + number_label(top) +
                        " cycles) share the top colour");
  return out;
}

}  // namespace dissect::report
