// Latency over the block size b: the line size by occupancy (the topology's
// *_line_blocks steps, analyzer line_capacity). A page_random chase makes one
// access per block of b bytes, at a random word of the block, over a fixed
// N of about 1.25 C, and the sweep doubles b from the fetch granularity f:
//   b <= line: every line of the array is touched, the chase occupies N > C
//              bytes of cache and overflows it (high latency);
//   b >  line: one line in b / line is touched, the chase occupies
//              N x line / b (0.63 C at b = 2 x line) and fits (low latency).
// So the largest b that still overflows is the allocation line, which on a
// sectored cache is larger than the fetch unit a small-stride chase sees.
// Neither latency_over_size (N is fixed) nor latency_over_stride (the stride
// is fixed; page_bytes is what varies) fits such a sweep, hence its own kind.
// Drawn like latency_over_stride's single series: mean, p5-p95 band, median;
// one mean line per series when other parameters vary too.
#include <algorithm>
#include <cmath>

#include "engine/report/gnuplot_script.hpp"
#include "engine/report/plot.hpp"
#include "engine/report/plot_series.hpp"
#include "engine/report/report_format.hpp"

namespace dissect::report {
namespace {

// The line_capacity findings with a numeric value (the line in bytes) inside
// [lo, hi], one marker per value. Undetermined findings (value null) mark
// nothing; the caption quotes their reason instead.
// Marker labels start with this; the caption leaves it out (it names the analyzer once).
const std::string kLinePrefix = "line_capacity: ";

std::vector<Marker> line_markers(const ExperimentData& data, double lo, double hi) {
  std::vector<Marker> out;
  for (const auto& f : data.findings) {
    if (!f.is_object() || f.value("analyzer", "") != "line_capacity") continue;
    if (!f.contains("value") || !f["value"].is_number()) continue;
    const double v = f["value"].get<double>();
    if (!(v >= lo && v <= hi)) continue;
    if (std::any_of(out.begin(), out.end(), [&](const Marker& m) { return m.x == v; })) continue;
    std::string label = kLinePrefix + "line = " + size_label(v);
    const auto& d = f.contains("details") && f["details"].is_object() ? f["details"] : nlohmann::json::object();
    if (d.contains("fits_from_block_bytes") && d["fits_from_block_bytes"].is_number())
      label += ", fits from " + size_label(d["fits_from_block_bytes"].get<double>());
    out.push_back({label, v});
  }
  std::sort(out.begin(), out.end(), [](const Marker& a, const Marker& b) { return a.x < b.x; });
  return out;
}

}  // namespace

PlotOutput plot_latency_over_block(const PlotContext& ctx) {
  PlotOutput out;
  out.kind = PlotKind::latency_over_block;
  out.stem = to_string(out.kind);
  out.title = plot_title(out.kind);
  // x is points.csv's page_bytes: page_random's block (array.page).
  const SeriesSet set = group_series(ctx.data, "page_bytes");

  DataFile f;
  f.name = out.stem + ".dat";
  f.comments = {"latency (cycles, raw) over the block size b (points.csv page_bytes): one access per b-byte block "
                "at a random word (pattern page_random); one block per series"};
  f.columns = {"block_bytes", "size_bytes", "mean", "median", "p5", "p95", "samples", "point_id"};
  double lo = INFINITY, hi = -INFINITY, ylo = INFINITY, yhi = -INFINITY;
  double n_lo = INFINITY, n_hi = -INFINITY;
  for (const auto& s : set.series) {
    DataBlock b;
    b.title = s.title.empty() ? "all points" : s.title;
    for (const auto* p : s.points) {
      const PointStats st = point_stats(*p);
      const double block = p->number("page_bytes"), n = p->size_bytes();
      lo = std::min(lo, block);
      hi = std::max(hi, block);
      if (std::isfinite(n)) n_lo = std::min(n_lo, n), n_hi = std::max(n_hi, n);
      // The band and median are drawn for a single series only; several
      // series show their means, so only those set the y range.
      for (double v : {st.mean, st.median, set.series.size() == 1 ? st.p5 : st.mean,
                       set.series.size() == 1 ? st.p95 : st.mean})
        if (std::isfinite(v)) {
          ylo = std::min(ylo, v);
          yhi = std::max(yhi, v);
        }
      b.rows.push_back({data_cell(block), data_cell(n), data_cell(st.mean), data_cell(st.median), data_cell(st.p5),
                        data_cell(st.p95), std::to_string(p->measured), std::to_string(p->point_id)});
    }
    f.blocks.push_back(std::move(b));
  }
  // A block of 0 bytes is no page_random chase; the log axis needs b > 0.
  if (f.rows() < 2 || !(lo > 0)) {
    out.skipped = "fewer than two points with a block size (page_bytes)";
    return out;
  }
  out.data.push_back(f);

  std::string settings = title_setting(ctx, out.kind);
  // Block sizes double (f, 2f, ..., 32f): size_axis draws them on a log2
  // axis with binary-unit tics (a sweep narrower than 8x falls back to linear).
  settings += size_axis("x", lo, hi, "block size b (one access per block)");
  settings += "set ylabel 'latency per access (cycles)'\n";
  settings += value_range("y", ylo, yhi);
  // The curve falls from left to right: the key sits where the low values are.
  settings += "set key top right\n";
  settings += series_styles(std::max<std::size_t>(set.series.size(), 2));
  const auto markers = line_markers(ctx.data, lo, hi);
  settings += marker_settings(markers, lo, hi);

  const std::string file = gp_quote(f.name);
  std::string plot;
  if (set.series.size() == 1) {
    plot = single_latency_series(file, set.series.front(), "1", 3, 4, 5, 6);
  } else {
    plot = "plot";
    for (std::size_t i = 0; i < set.series.size(); ++i)
      plot += std::string(i ? ", \\\n    " : "") + " " + file + " index " + std::to_string(i) +
              " using 1:3 with linespoints ls " + std::to_string(i + 1) + " title " + gp_quote(set.series[i].title);
  }
  out.script = render_script({out.stem, plot_about(ctx, out.kind, out.data), settings, plot, 960, 600,
                              ctx.png_terminal});

  const auto pts = ctx.data.ok_points();
  const bool chain = !pts.empty() && std::all_of(pts.begin(), pts.end(), [](const PointData* p) {
    return p->text("timing_mode") == "chain";
  });
  const std::string n_text = !std::isfinite(n_lo)  ? "a fixed N"
                             : n_lo == n_hi         ? "a fixed N = " + size_label(n_lo)
                                                    : "N = " + size_label(n_lo) + " to " + size_label(n_hi);
  out.caption =
      std::string(set.series.size() == 1 ? "Mean latency per access"
                                         : "Mean latency per access, one line per series,") +
      " over the block size b (raw cycles" +
      (chain ? "; chain timing: each sample is one chain's average" : "") +
      (set.series.size() == 1 ? "; where drawn, the band spans the 5th to 95th percentile and the dashed grey line "
                                "is the median"
                              : "") +
      ") of a page_random chase: one access per b-byte block, at a random word, over " + n_text +
      " (about 1.25 x the cache). How to read it (the occupancy reading of the line, after Mei & Chu's size "
      "method and MT4G's line-versus-fetch distinction): while b is at most the line, every line of the array is "
      "touched, the chase occupies N bytes of cache, more than it holds, and latency stays high; from the block "
      "above the line on, only one line per block is touched, the chase occupies N x line / b (0.63 of the cache "
      "at twice the line) and fits, and latency drops to the hit level. The largest block that still overflows "
      "is the allocation line; on a sectored cache it is larger than the fetch granularity a small-stride chase "
      "sees.";
  if (!markers.empty()) {
    out.caption += " The dashed red line marks the line reported by the line_capacity finding (";
    for (std::size_t i = 0; i < markers.size(); ++i)
      out.caption += (i ? "; " : "") + markers[i].label.substr(kLinePrefix.size());
    out.caption += ").";
  } else if (const auto* lc = ctx.data.finding("line_capacity")) {
    std::string summary = lc->value("summary", "");
    if (summary.empty() && lc->contains("details") && (*lc)["details"].is_object())
      summary = (*lc)["details"].value("reason", "");
    out.caption += lc->contains("value") && (*lc)["value"].is_number()
                       ? " The line_capacity finding lies outside the sweep."
                       : " The line_capacity finding is undetermined" + (summary.empty() ? "" : ": " + summary) +
                             (summary.empty() || summary.back() == '.' ? "" : ".");
  } else {
    out.caption += " No line_capacity finding to mark.";
  }
  if (auto note = thinning_note(set, ctx.data.limits.max_line_points); !note.empty()) out.notes.push_back(note);
  return out;
}

}  // namespace dissect::report
