// The missed-line staircase (Mei & Chu, Fig. 3; stages 2-1 / 2-2): with
// s = one line and N growing by one line at a time past C, each step of N
// adds the lines of one more cache set to the missed ones, so the misses per
// pass rise in steps whose count is the number of sets. A miss is a latency
// above the hit level (MissThreshold).
#include <algorithm>
#include <cmath>

#include "engine/report/gnuplot_script.hpp"
#include "engine/report/plot.hpp"
#include "engine/report/plot_series.hpp"
#include "engine/report/report_format.hpp"

namespace dissect::report {

PlotOutput plot_miss_staircase(const PlotContext& ctx) {
  PlotOutput out;
  out.kind = PlotKind::miss_staircase;
  out.stem = to_string(out.kind);
  out.title = plot_title(out.kind);
  const SeriesSet set = group_series(ctx.data, "size_bytes");

  bool per_pass = true;  // every point knows its pass length
  for (const auto& s : set.series)
    for (const auto* p : s.points) per_pass &= p->number("accesses_per_pass", 0) > 0 && p->measured > 0;

  DataFile f;
  f.name = out.stem + ".dat";
  f.comments = {"missed accesses per point over the array size N; a miss is a latency above " +
                    (ctx.threshold.any() ? number_label(ctx.threshold.threshold) + " cycles" : std::string("+inf")),
                "threshold: " + ctx.threshold.source};
  f.columns = {"size_bytes", "missed_per_pass", "miss_share_percent", "misses", "measured", "accesses_per_pass",
               "point_id"};
  double lo = INFINITY, hi = -INFINITY;
  for (const auto& s : set.series) {
    DataBlock b;
    b.title = s.title.empty() ? "all points" : s.title;
    for (const auto* p : s.points) {
      if (p->measured == 0) continue;
      const double misses = static_cast<double>(p->count_above(ctx.threshold.threshold));
      const double measured = static_cast<double>(p->measured);
      const double app = p->number("accesses_per_pass", 0);
      lo = std::min(lo, p->size_bytes());
      hi = std::max(hi, p->size_bytes());
      b.rows.push_back({data_cell(p->size_bytes()), data_cell(app > 0 ? misses / measured * app : kUnknown),
                        data_cell(100.0 * misses / measured), data_cell(misses), data_cell(measured),
                        data_cell(app), std::to_string(p->point_id)});
    }
    f.blocks.push_back(std::move(b));
  }
  if (f.rows() < 2) {
    out.skipped = "fewer than two points with samples";
    return out;
  }
  out.data.push_back(f);

  const std::string ycol = per_pass ? "2" : "3";
  std::string settings = title_setting(ctx, out.kind);
  settings += size_axis("x", lo, hi, "array size N");
  settings += per_pass ? "set ylabel 'missed accesses per pass'\n" : "set ylabel 'missed accesses (% of measured)'\n";
  settings += "set yrange [0:*]\nset offsets 0, 0, graph 0.08, 0\n";
  settings += "set key top left\n";
  settings += series_styles(std::max<std::size_t>(set.series.size(), 1));
  const std::string file = gp_quote(f.name);
  std::string plot = "plot";
  for (std::size_t i = 0; i < set.series.size(); ++i) {
    const std::string title = set.series[i].title.empty() ? (per_pass ? "missed per pass" : "missed share")
                                                          : set.series[i].title;
    const std::string ls = std::to_string(i + 1);
    plot += std::string(i ? ", \\\n    " : "") + " " + file + " index " + std::to_string(i) + " using 1:" + ycol +
            " with steps ls " + ls + " notitle, \\\n     " + file + " index " + std::to_string(i) + " using 1:" +
            ycol + " with points ls " + ls + " title " + gp_quote(title);
  }
  out.script = render_script({out.stem, plot_about(ctx, out.kind, out.data), settings, plot, 960, 600,
                              ctx.png_terminal});
  out.caption = std::string(per_pass ? "Missed accesses per pass over the array" : "Share of missed accesses over the array") +
                " size N. Each step up is one more cache set whose lines miss (Mei & Chu's stage 2): the number "
                "of steps before every access misses is the number of sets. A miss is an access slower than the hit "
                "level: " + ctx.threshold.source + ".";
  if (auto note = thinning_note(set, ctx.data.limits.max_line_points); !note.empty()) out.notes.push_back(note);
  return out;
}

}  // namespace dissect::report
