// Bandwidth over ILP and warps (Mei & Chu TPDS 2017, throughput of global and
// shared memory): one line per ILP over the warps per launch (or over ILP when
// the warps do not vary).
//
// Values, in order of preference:
//  1. the `bandwidth` finding's per-point table (evidence.points: gbps, else
//     bytes_per_cycle), so the plot shows what the analyzer concluded from;
//  2. from the trace, with the throughput convention (one sample per warp:
//     latency = cycles of its loads, offset_bytes = bytes it loaded): GB/s =
//     bytes / kernel time; without a kernel time, bytes per cycle = sum over
//     SMs of bytes / slowest warp (all warps of an SM concurrent: an upper bound).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "engine/report/gnuplot_script.hpp"
#include "engine/report/plot.hpp"
#include "engine/report/plot_series.hpp"
#include "engine/report/report_format.hpp"

namespace dissect::report {

namespace {

struct Value {
  double gbps = kUnknown, bpc = kUnknown;
};

std::map<std::size_t, Value> from_finding(const ExperimentData& data) {
  std::map<std::size_t, Value> out;
  const nlohmann::json* f = data.finding("bandwidth");
  if (f == nullptr || !f->contains("evidence") || !(*f)["evidence"].is_object()) return out;
  const auto& ev = (*f)["evidence"];
  if (!ev.contains("points") || !ev["points"].is_array()) return out;
  for (const auto& row : ev["points"]) {
    if (!row.is_object() || !row.contains("point_id") || !row["point_id"].is_number()) continue;
    Value v;
    if (row.contains("gbps") && row["gbps"].is_number()) v.gbps = row["gbps"].get<double>();
    if (row.contains("bytes_per_cycle") && row["bytes_per_cycle"].is_number())
      v.bpc = row["bytes_per_cycle"].get<double>();
    out[row["point_id"].get<std::size_t>()] = v;
  }
  return out;
}

Value from_trace(const PointData& p) {
  Value v;
  const double ms = p.number("kernel_ms");
  if (std::isfinite(ms) && ms > 0 && p.bytes_loaded > 0) v.gbps = p.bytes_loaded / (ms * 1e6);
  double bpc = 0;
  for (const auto& [sm, bc] : p.sm_bytes_cycles)
    if (bc.second > 0) bpc += bc.first / bc.second;
  if (bpc > 0) v.bpc = bpc;
  return v;
}

}  // namespace

PlotOutput plot_bandwidth_grid(const PlotContext& ctx) {
  PlotOutput out;
  out.kind = PlotKind::bandwidth_grid;
  out.stem = to_string(out.kind);
  out.title = plot_title(out.kind);
  std::set<double> warps;
  for (const auto* p : ctx.data.ok_points()) warps.insert(p->warps());
  const bool over_warps = warps.size() >= 2;
  const SeriesSet set =
      over_warps ? group_series(ctx.data, "warps", {"blocks", "threads", "chasers"}, {"ilp"},
                                [](const PointData& p) { return p.warps(); })
                 : group_series(ctx.data, "ilp");

  const auto table = from_finding(ctx.data);
  std::map<const PointData*, Value> values;
  bool all_gbps = true, all_bpc = true, any = false;
  for (const auto& s : set.series)
    for (const auto* p : s.points) {
      auto it = table.find(p->point_id);
      const Value v = it != table.end() ? it->second : from_trace(*p);
      values[p] = v;
      all_gbps &= std::isfinite(v.gbps);
      all_bpc &= std::isfinite(v.bpc);
      any = true;
    }
  const bool gbps = any && all_gbps;
  const bool bpc = !gbps && any && all_bpc;
  const std::string source = !table.empty() ? "the bandwidth finding's per-point table"
                                            : gbps ? "bytes loaded (trace offset_bytes) over the kernel time"
                                                   : "bytes loaded over the slowest warp's cycles, per SM";

  DataFile f;
  f.name = out.stem + ".dat";
  f.comments = {std::string(gbps ? "bandwidth (GB/s)" : bpc ? "bytes per cycle" : "mean latency (cycles)") +
                    " over warps and ILP; one block per series",
                "value from " + (gbps || bpc ? source : std::string("the samples (no byte counts or times)"))};
  f.columns = {"warps", "ilp", "value", "gbps", "bytes_per_cycle", "bytes_loaded", "kernel_ms", "point_id"};
  std::vector<double> xs;
  double peak = -1, peak_x = 0;
  std::string peak_label;
  for (const auto& s : set.series) {
    DataBlock b;
    b.title = s.title.empty() ? "all points" : s.title;
    for (const auto* p : s.points) {
      const Value v = values[p];
      const double value = gbps ? v.gbps : bpc ? v.bpc : p->mean_latency();
      const double x = over_warps ? p->warps() : p->number("ilp", 1);
      xs.push_back(x);
      if ((gbps || bpc) && value > peak) {
        peak = value;
        peak_x = x;
        peak_label = "ILP " + number_label(p->number("ilp", 1)) + ", " + number_label(p->warps()) + " warps";
      }
      b.rows.push_back({data_cell(p->warps()), data_cell(p->number("ilp", 1)), data_cell(value), data_cell(v.gbps),
                        data_cell(v.bpc), data_cell(p->bytes_loaded), data_cell(p->number("kernel_ms")),
                        std::to_string(p->point_id)});
    }
    f.blocks.push_back(std::move(b));
  }
  if (xs.size() < 2) {
    out.skipped = "fewer than two throughput points";
    return out;
  }
  out.data.push_back(f);

  const std::string unit = gbps ? "GB/s" : bpc ? "B/cycle" : "cycles";
  std::string settings = title_setting(ctx, out.kind);
  settings += count_axis("x", xs, over_warps ? "warps (blocks x warps per block)" : "ILP (independent loads in flight)");
  settings += gbps ? "set ylabel 'bandwidth (GB/s)'\n" : bpc ? "set ylabel 'bandwidth (bytes per cycle)'\n"
                                                             : "set ylabel 'mean latency (cycles)'\n";
  settings += "set yrange [0:*]\nset offsets 0, 0, graph 0.1, 0\n";
  settings += "set key top left\n";
  settings += series_styles(std::max<std::size_t>(set.series.size(), 1));
  if (peak > 0)
    settings += "set label 1 " + gp_quote("peak " + number_label(peak) + " " + unit + " (" + peak_label + ")") +
                " at first " + number_label(peak_x, 17) + ", first " + number_label(peak, 17) +
                " right offset char -1,0.8 tc rgb '#c0392b' front\n";
  const std::string file = gp_quote(f.name);
  const std::string xcol = over_warps ? "1" : "2";
  std::string plot = "plot";
  for (std::size_t i = 0; i < set.series.size(); ++i) {
    const std::string title = set.series[i].title.empty() ? (gbps || bpc ? "bandwidth" : "mean latency")
                                                          : set.series[i].title;
    plot += std::string(i ? ", \\\n    " : "") + " " + file + " index " + std::to_string(i) + " using " + xcol +
            ":3 with linespoints ls " + std::to_string(i + 1) + " title " + gp_quote(title);
  }
  out.script = render_script({out.stem, plot_about(ctx, out.kind, out.data), settings, plot, 960, 600,
                              ctx.png_terminal});
  const std::string over = over_warps ? "the number of warps, one line per ILP" : "ILP";
  if (gbps || bpc) {
    out.caption = "Bandwidth (" + unit + ") over " + over +
                  ": it grows with the loads in flight (ILP x warps) until the memory system saturates. Values "
                  "from " + source + ".";
  } else {
    out.caption = "No byte counts or kernel times in the trace, so the mean sample latency (cycles) is drawn over " +
                  over + ".";
  }
  if (auto note = thinning_note(set, ctx.data.limits.max_line_points); !note.empty()) out.notes.push_back(note);
  return out;
}

}  // namespace dissect::report
