// Latency over stride: shared-memory bank conflicts (Mei & Chu, Fig. 5 and 7:
// latency grows with the conflict degree gcd(stride, banks)), coalescing
// (sectors per request) and large-stride probes at a fixed N. Shared and
// coalescing strides are counted in elements, as in the papers; others in bytes.
#include <algorithm>
#include <cmath>

#include "engine/report/gnuplot_script.hpp"
#include "engine/report/plot.hpp"
#include "engine/report/plot_series.hpp"
#include "engine/report/report_format.hpp"

namespace dissect::report {

PlotOutput plot_latency_over_stride(const PlotContext& ctx) {
  PlotOutput out;
  out.kind = PlotKind::latency_over_stride;
  out.stem = to_string(out.kind);
  out.title = plot_title(out.kind);
  const SeriesSet set = group_series(ctx.data, "stride_bytes");
  const auto pts = ctx.data.ok_points();
  const std::string kernel = pts.empty() ? "" : pts.front()->text("kernel");
  const bool in_elements = kernel == "shared_stride" || kernel == "coalescing";
  const auto elem_bytes = [](const PointData& p) { return p.text("element") == "u64" ? 8.0 : 4.0; };

  DataFile f;
  f.name = out.stem + ".dat";
  f.comments = {"latency (cycles, raw) over the stride; one block per series"};
  f.columns = {"stride_bytes", "stride_elements", "mean", "median", "p5", "p95", "samples", "point_id"};
  std::vector<double> xs;
  double ylo = INFINITY, yhi = -INFINITY;
  for (const auto& s : set.series) {
    DataBlock b;
    b.title = s.title.empty() ? "all points" : s.title;
    for (const auto* p : s.points) {
      const PointStats st = point_stats(*p);
      const double elems = p->stride_bytes() / elem_bytes(*p);
      xs.push_back(in_elements ? elems : p->stride_bytes());
      for (double v : {st.mean, st.median, set.series.size() == 1 ? st.p5 : st.mean, set.series.size() == 1 ? st.p95 : st.mean})
        if (std::isfinite(v)) {
          ylo = std::min(ylo, v);
          yhi = std::max(yhi, v);
        }
      b.rows.push_back({data_cell(p->stride_bytes()), data_cell(elems), data_cell(st.mean), data_cell(st.median),
                        data_cell(st.p5), data_cell(st.p95), std::to_string(p->measured),
                        std::to_string(p->point_id)});
    }
    f.blocks.push_back(std::move(b));
  }
  if (xs.size() < 2) {
    out.skipped = "fewer than two points with a stride";
    return out;
  }
  out.data.push_back(f);

  const std::string elem_name = pts.front()->text("element") == "u64" ? "8-byte" : "4-byte";
  std::string settings = title_setting(ctx, out.kind);
  const double zero_safe_min = *std::min_element(xs.begin(), xs.end());
  if (in_elements || zero_safe_min <= 0) {
    settings += count_axis("x", xs, in_elements ? "stride (" + elem_name + " elements)" : "stride (B)");
  } else {
    settings += size_axis("x", zero_safe_min, *std::max_element(xs.begin(), xs.end()), "stride s");
  }
  settings += "set ylabel 'latency (cycles)'\n";
  settings += value_range("y", ylo, yhi);
  settings += "set key top left\n";
  settings += series_styles(std::max<std::size_t>(set.series.size(), 2));
  const std::string file = gp_quote(f.name);
  const std::string xcol = in_elements ? "2" : "1";
  std::string plot;
  if (set.series.size() == 1) {
    plot = single_latency_series(file, set.series.front(), xcol, 3, 4, 5, 6);
  } else {
    plot = "plot";
    for (std::size_t i = 0; i < set.series.size(); ++i)
      plot += std::string(i ? ", \\\n    " : "") + " " + file + " index " + std::to_string(i) + " using " + xcol +
              ":3 with linespoints ls " + std::to_string(i + 1) + " title " + gp_quote(set.series[i].title);
  }
  out.script = render_script({out.stem, plot_about(ctx, out.kind, out.data), settings, plot, 960, 600,
                              ctx.png_terminal});
  out.caption = kernel == "shared_stride"
                    ? "Shared-memory latency over the stride between the threads of a warp (raw cycles): "
                      "an n-way bank conflict serialises the warp's request, so latency steps up with "
                      "gcd(stride, banks) and is lowest at odd strides (Mei & Chu, Fig. 5 and 7)."
                    : "Latency over the stride at a fixed array size (raw cycles; mean, with the p5-p95 band and "
                      "median for a single series).";
  if (auto note = thinning_note(set, ctx.data.limits.max_line_points); !note.empty()) out.notes.push_back(note);
  return out;
}

}  // namespace dissect::report
