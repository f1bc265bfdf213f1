#include "engine/report/plot_series.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "engine/report/gnuplot_script.hpp"
#include "engine/report/plot_selection.hpp"
#include "engine/report/report_format.hpp"

namespace dissect::report {

std::string series_label(const std::string& column, const std::string& value) {
  const std::string suffix = "_bytes";
  if (column.size() > suffix.size() && column.compare(column.size() - suffix.size(), suffix.size(), suffix) == 0) {
    std::string name = column.substr(0, column.size() - suffix.size());
    std::replace(name.begin(), name.end(), '_', ' ');
    try {
      return name + " " + size_label(std::stod(value));
    } catch (...) {
    }
  }
  if (column == "ilp") return "ILP " + value;
  return column + " " + value;
}

SeriesSet group_series(const ExperimentData& data, const std::string& x_column,
                       const std::vector<std::string>& also_ignore, const std::vector<std::string>& prefer_first,
                       const std::function<double(const PointData&)>& x_of) {
  const auto x = [&](const PointData* p) { return x_of ? x_of(*p) : p->number(x_column); };
  SeriesSet set;
  std::vector<const PointData*> points;
  for (const auto* p : data.ok_points())
    if (std::isfinite(x(p))) points.push_back(p);

  // Columns that vary among these points, besides x.
  std::vector<std::string> keys;
  auto consider = [&](const std::string& c) {
    if (c == x_column || std::find(also_ignore.begin(), also_ignore.end(), c) != also_ignore.end()) return;
    if (std::find(keys.begin(), keys.end(), c) != keys.end()) return;
    for (const auto* p : points)
      if (p->text(c) != points.front()->text(c)) {
        keys.push_back(c);
        return;
      }
  };
  for (const auto& c : prefer_first) consider(c);
  for (const auto& c : parameter_columns()) consider(c);

  std::map<std::string, Series> by_key;
  std::vector<std::string> order;
  for (const auto* p : points) {
    std::string key, title;
    for (const auto& k : keys) {
      key += p->text(k) + '\x1f';
      title += (title.empty() ? "" : ", ") + series_label(k, p->text(k));
    }
    auto [it, fresh] = by_key.try_emplace(key);
    if (fresh) {
      it->second.title = title;
      order.push_back(key);
    }
    it->second.points.push_back(p);
  }
  // Zipped sweeps: every combination appears once; grouping would draw dots, not lines.
  if (!keys.empty() && by_key.size() * 2 > points.size()) {
    by_key.clear();
    order = {""};
    by_key[""].points = points;
    keys.clear();
  }
  set.grouped_by = keys;
  // Series sorted by their first numeric key value where possible, else by appearance.
  for (const auto& k : order) set.series.push_back(std::move(by_key[k]));
  if (!keys.empty()) {
    const std::string first = keys.front();
    std::stable_sort(set.series.begin(), set.series.end(), [&](const Series& a, const Series& b) {
      const double va = a.points.front()->number(first), vb = b.points.front()->number(first);
      if (std::isnan(va) || std::isnan(vb)) return false;
      return va < vb;
    });
  }
  for (auto& s : set.series) {
    std::stable_sort(s.points.begin(), s.points.end(), [&](const PointData* a, const PointData* b) {
      return x(a) < x(b);
    });
    const std::size_t limit = data.limits.max_line_points;
    if (limit > 0 && s.points.size() > limit) {
      std::vector<const PointData*> kept;
      for (std::size_t i : spread_indices(s.points.size(), limit)) kept.push_back(s.points[i]);
      set.thinned += s.points.size() - kept.size();
      s.points = std::move(kept);
    }
  }
  return set;
}

PointStats point_stats(const PointData& p) {
  PointStats s{};
  s.mean = p.mean_latency();
  s.median = p.median_latency();
  s.p5 = p.number("lat_p5", p.quantile(0.05));
  s.p95 = p.number("lat_p95", p.quantile(0.95));
  return s;
}

std::string single_latency_series(const std::string& file, const Series& series, const std::string& x,
                                  int mean_col, int median_col, int p5_col, int p95_col) {
  // Visible means more than 2 % of the plot's height somewhere.
  double lo = INFINITY, hi = -INFINITY;
  for (const auto* p : series.points) {
    const PointStats st = point_stats(*p);
    for (double v : {st.mean, st.median, st.p5, st.p95})
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  const double visible = std::max(0.5, 0.02 * (hi - lo));
  bool band = false, median = false;
  for (const auto* p : series.points) {
    const PointStats st = point_stats(*p);
    band |= st.p95 - st.p5 > visible;
    median |= std::fabs(st.median - st.mean) > visible;
  }
  std::string plot = "plot ";
  if (band)
    plot += file + " using " + x + ":" + std::to_string(p5_col) + ":" + std::to_string(p95_col) +
            " with filledcurves fc rgb '#1f77b4' fs transparent solid 0.15 noborder title 'p5-p95', \\\n     ";
  if (median)
    plot += file + " using " + x + ":" + std::to_string(median_col) +
            " with lines lc rgb '#555555' dt 2 lw 1.5 title 'median', \\\n     ";
  plot += file + " using " + x + ":" + std::to_string(mean_col) + " with linespoints ls 1 title 'mean'";
  return plot;
}

std::vector<Marker> size_markers(const ExperimentData& data, double lo, double hi) {
  std::vector<Marker> raw;
  auto& out = raw;
  for (const auto& f : data.findings) {
    if (!f.is_object()) continue;
    const std::string analyzer = f.value("analyzer", "");
    // Sizes only: a knee read as lines (unit "lines") is no N to mark.
    if (analyzer == "cache_size" && f.contains("value") && f["value"].is_number() && f.value("unit", "B") == "B") {
      const double v = f["value"].get<double>();
      if (v >= lo && v <= hi) out.push_back({"cache_size = " + size_label(v), v});
    }
    // TLB levels: the coverage (entries x reach) where N starts to miss.
    if (analyzer == "tlb" && f.contains("details") && f["details"].is_object() && f["details"].contains("levels") &&
        f["details"]["levels"].is_array()) {
      std::size_t level = 0;
      for (const auto& l : f["details"]["levels"]) {
        ++level;
        if (!l.is_object() || !l.contains("coverage_bytes") || !l["coverage_bytes"].is_number()) continue;
        const double v = l["coverage_bytes"].get<double>();
        std::string label = "TLB level " + std::to_string(level) + " covers " + size_label(v);
        if (l.contains("entries") && l["entries"].is_number())
          label += " (" + number_label(l["entries"].get<double>()) + " entries)";
        if (v >= lo && v <= hi) out.push_back({label, v});
      }
    }
    if (f.contains("details") && f["details"].is_object() && f["details"].contains("knee_bytes") &&
        f["details"]["knee_bytes"].is_number() && analyzer != "cache_size") {
      const double v = f["details"]["knee_bytes"].get<double>();
      if (v >= lo && v <= hi) out.push_back({analyzer + " knee = " + size_label(v), v});
    }
  }
  // One marker per value: per-series findings (e.g. one cache_size per stride) often agree.
  std::vector<Marker> merged;
  std::vector<std::size_t> counts;
  for (const auto& m : raw) {
    auto it = std::find_if(merged.begin(), merged.end(), [&](const Marker& x) { return x.x == m.x; });
    if (it == merged.end()) {
      merged.push_back(m);
      counts.push_back(1);
    } else {
      ++counts[static_cast<std::size_t>(it - merged.begin())];
    }
  }
  for (std::size_t i = 0; i < merged.size(); ++i)
    if (counts[i] > 1) merged[i].label += " (" + std::to_string(counts[i]) + " series)";
  std::sort(merged.begin(), merged.end(), [](const Marker& a, const Marker& b) { return a.x < b.x; });
  return merged;
}

std::string marker_settings(const std::vector<Marker>& markers, double lo, double hi) {
  std::string out;
  const bool log = lo > 0 && hi / lo >= 8;
  for (std::size_t i = 0; i < markers.size(); ++i) {
    const double x = markers[i].x;
    const double frac = hi > lo ? (log ? std::log(x / lo) / std::log(hi / lo) : (x - lo) / (hi - lo)) : 0.5;
    out += vertical_marker(static_cast<int>(i + 1), x, markers[i].label, "#c0392b",
                           0.95 - 0.075 * static_cast<double>(i % 4), frac > 0.6);
  }
  return out;
}

std::string thinning_note(const SeriesSet& set, std::size_t limit) {
  if (set.thinned == 0) return "";
  return "Downsampled: " + std::to_string(set.thinned) + " points left out: each line shows at most " + std::to_string(limit) +
         " points, evenly spread over the sweep (the data file holds the same points)";
}

}  // namespace dissect::report
