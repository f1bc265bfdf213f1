// The Saavedra grid (Saavedra & Smith; Meltzer et al., GTC 2013): average
// latency per access over the array size N, one line per stride s, log-x.
// Plateaus give the cache levels, the N where a line leaves the hit level the
// capacity, the strides where lines stop changing the line and page sizes.
#include <algorithm>
#include <cmath>

#include "engine/report/gnuplot_script.hpp"
#include "engine/report/plot.hpp"
#include "engine/report/plot_series.hpp"
#include "engine/report/report_format.hpp"

namespace dissect::report {

PlotOutput plot_saavedra_grid(const PlotContext& ctx) {
  PlotOutput out;
  out.kind = PlotKind::saavedra_grid;
  out.stem = to_string(out.kind);
  out.title = plot_title(out.kind);
  // One line per stride: counts that only say how long each point ran (a TLB footprint
  // sweep sets the iterations per point) name no series of their own.
  const SeriesSet set = group_series(ctx.data, "size_bytes", {"iterations", "warmup", "repeats", "discard"},
                                     {"stride_bytes"});

  DataFile f;
  f.name = out.stem + ".dat";
  f.comments = {"average latency per access (cycles, raw) over the array size N; one block per stride"};
  f.columns = {"size_bytes", "stride_bytes", "mean", "median", "samples", "point_id"};
  double lo = INFINITY, hi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  for (const auto& s : set.series) {
    DataBlock b;
    b.title = s.title;
    for (const auto* p : s.points) {
      const PointStats st = point_stats(*p);
      lo = std::min(lo, p->size_bytes());
      hi = std::max(hi, p->size_bytes());
      if (std::isfinite(st.mean)) {
        ylo = std::min(ylo, st.mean);
        yhi = std::max(yhi, st.mean);
      }
      b.rows.push_back({data_cell(p->size_bytes()), data_cell(p->stride_bytes()), data_cell(st.mean),
                        data_cell(st.median), std::to_string(p->measured), std::to_string(p->point_id)});
    }
    f.blocks.push_back(std::move(b));
  }
  if (set.series.size() < 2) {
    out.skipped = "fewer than two strides with points";
    return out;
  }
  out.data.push_back(f);

  std::string settings = title_setting(ctx, out.kind);
  settings += size_axis("x", lo, hi, "array size N");
  settings += "set ylabel 'average latency per access (cycles)'\n";
  settings += value_range("y", ylo, yhi);
  settings += "set key outside right top vertical title 'stride s'\n";
  settings += series_styles(set.series.size(), true);
  const auto markers = size_markers(ctx.data, lo, hi);
  settings += marker_settings(markers, lo, hi);
  std::string plot = "plot";
  const std::string file = gp_quote(f.name);
  for (std::size_t i = 0; i < set.series.size(); ++i) {
    std::string title = set.series[i].title;
    if (title.rfind("stride ", 0) == 0) title = title.substr(7);
    plot += std::string(i ? ", \\\n    " : "") + " " + file + " index " + std::to_string(i) +
            " using 1:3 with linespoints ls " + std::to_string(i + 1) + " title " + gp_quote(title);
  }
  out.script = render_script({out.stem, plot_about(ctx, out.kind, out.data), settings, plot, 1080, 620,
                              ctx.png_terminal});
  out.caption = "Average latency per access over the array size N, one line per stride s (raw cycles; log-2 N axis "
                "where the sweep spans a factor of 8), as in Saavedra's and Meltzer et al.'s figures: a line "
                "leaves the hit plateau where N exceeds the capacity; strides beyond the line size miss on every "
                "access.";
  if (auto note = thinning_note(set, ctx.data.limits.max_line_points); !note.empty()) out.notes.push_back(note);
  return out;
}

}  // namespace dissect::report
