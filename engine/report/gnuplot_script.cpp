#include "engine/report/gnuplot_script.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/report/report_format.hpp"

namespace dissect::report {

namespace {

const char* const kColors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                               "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

bool is_pow2(double v) {
  if (v <= 0 || v != std::floor(v)) return false;
  const double l = std::log2(v);
  return std::fabs(l - std::round(l)) < 1e-9;
}

std::string tic_list(const std::vector<std::pair<std::string, double>>& tics) {
  std::string out = "(";
  for (std::size_t i = 0; i < tics.size(); ++i) {
    if (i) out += ", ";
    out += gp_quote(tics[i].first) + " " + number_label(tics[i].second, 17);
  }
  return out + ")";
}

std::string range(const std::string& axis, double lo, double hi) {
  return "set " + axis + "range [" + number_label(lo, 10) + ":" + number_label(hi, 10) + "]\n";
}

std::string log2_axis(const std::string& axis, double min, double max, bool sizes) {
  std::string out = "set logscale " + axis + " 2\n";
  out += range(axis, min / 1.12, max * 1.12);
  const int lo = static_cast<int>(std::ceil(std::log2(min) - 1e-9));
  const int hi = static_cast<int>(std::floor(std::log2(max) + 1e-9));
  int step = 1;
  while ((hi - lo) / step + 1 > 12) ++step;
  std::vector<std::pair<std::string, double>> tics;
  for (int e = lo; e <= hi; e += step) {
    const double v = std::ldexp(1.0, e);
    tics.emplace_back(sizes ? size_label(v) : number_label(v), v);
  }
  out += "set " + axis + "tics " + tic_list(tics) + "\n";
  out += "set m" + axis + "tics default\n";
  return out;
}

}  // namespace

std::string render_script(const ScriptSpec& spec) {
  std::string s;
  for (const auto& line : spec.about) s += "# " + line + "\n";
  s += "#\n# Render: gnuplot " + spec.stem + ".gp   (in this directory; writes " + spec.stem + ".svg and " +
       spec.stem + ".png)\n\n";
  s += "set encoding utf8\n";
  s += "set border lw 1 lc rgb '#444444'\n";
  s += "set grid lw 1 lc rgb '#e0e0e0'\n";
  s += "set style line 100 lc rgb '#bbbbbb' lw 1\n";
  s += "set key box ls 100 opaque samplen 2.5 spacing 1.1 Left reverse width 1\n";
  s += spec.settings;
  const std::string size = " size " + std::to_string(spec.width) + "," + std::to_string(spec.height);
  s += "\nset terminal svg" + size + " dynamic noenhanced font 'Sans,12' background rgb 'white'\n";
  s += "set output " + gp_quote(spec.stem + ".svg") + "\n";
  s += spec.plot + "\n";
  s += "\nset terminal " + spec.png_terminal + size + " noenhanced font 'Sans,11' background rgb 'white'\n";
  s += "set output " + gp_quote(spec.stem + ".png") + "\n";
  s += "replot\n";
  s += "set output\n";
  return s;
}

std::string series_color(std::size_t i) { return kColors[i % 10]; }

std::string gradient_color(std::size_t i, std::size_t n) {
  // Sampled "plasma", stopping before its pale yellow end.
  static const int stops[][3] = {{13, 8, 135}, {84, 2, 163}, {139, 10, 165}, {185, 50, 137},
                                 {219, 92, 104}, {244, 136, 73}, {252, 166, 54}};
  const double t = n <= 1 ? 0 : static_cast<double>(i) / static_cast<double>(n - 1) * 6.0;
  const auto k = std::min<std::size_t>(5, static_cast<std::size_t>(t));
  const double f = t - static_cast<double>(k);
  char buf[16];
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", static_cast<int>(stops[k][0] + f * (stops[k + 1][0] - stops[k][0])),
                static_cast<int>(stops[k][1] + f * (stops[k + 1][1] - stops[k][1])),
                static_cast<int>(stops[k][2] + f * (stops[k + 1][2] - stops[k][2])));
  return buf;
}

std::string series_styles(std::size_t n, bool ordered) {
  std::string out;
  const bool gradient = ordered || n > 10;
  for (std::size_t i = 0; i < n; ++i) {
    const std::string color = gradient ? gradient_color(i, n) : series_color(i);
    out += "set style line " + std::to_string(i + 1) + " lc rgb '" + color + "' lw 2 pt 7 ps 0.7\n";
  }
  return out;
}

std::string viridis_palette() {
  return "set palette defined (0 '#440154', 1 '#482878', 2 '#3e4989', 3 '#31688e', 4 '#26828e', "
         "5 '#1f9e89', 6 '#35b779', 7 '#6ece58', 8 '#b5de2b', 9 '#fde725')\n";
}

std::string size_axis(const std::string& axis, double min, double max, const std::string& label) {
  if (!(min > 0) || !(max >= min)) return "set " + axis + "label " + gp_quote(label) + "\n";
  if (max / min >= 8) return log2_axis(axis, min, max, true) + "set " + axis + "label " + gp_quote(label) + "\n";
  // Linear: a power-of-two step giving 4..10 tics.
  const double span = std::max(max - min, 1.0);
  double step = std::ldexp(1.0, static_cast<int>(std::ceil(std::log2(span / 8))));
  if (step < 1) step = 1;
  // The unit of the largest size, so that tics read "241.5" KiB, never "247296" B.
  const double kib = 1024.0;
  double unit = 1;
  std::string unit_name = "B";
  if (max >= kib * kib * kib) {
    unit = kib * kib * kib;
    unit_name = "GiB";
  } else if (max >= kib * kib) {
    unit = kib * kib;
    unit_name = "MiB";
  } else if (max >= kib) {
    unit = kib;
    unit_name = "KiB";
  }
  const double pad = span == 1.0 && max == min ? std::max(step, 1.0) : span * 0.04;
  std::string out = range(axis, min - pad, max + pad);
  std::vector<std::pair<std::string, double>> tics;
  for (double v = std::ceil((min - pad) / step) * step; v <= max + pad; v += step)
    tics.emplace_back(number_label(v / unit, 9), v);
  out += "set " + axis + "tics " + tic_list(tics) + "\n";
  out += "set " + axis + "label " + gp_quote(label + " (" + unit_name + ")") + "\n";
  return out;
}

std::string count_axis(const std::string& axis, const std::vector<double>& values, const std::string& label) {
  std::string out = "set " + axis + "label " + gp_quote(label) + "\n";
  if (values.empty()) return out;
  const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
  const bool pow2 = std::all_of(values.begin(), values.end(), is_pow2);
  if (pow2 && *mx / *mn >= 8) return out + log2_axis(axis, *mn, *mx, false);
  const double pad = std::max(0.5, (*mx - *mn) * 0.04);
  out += range(axis, *mn - pad, *mx + pad);
  if (*mx - *mn <= 16 && std::all_of(values.begin(), values.end(), [](double v) { return v == std::floor(v); }))
    out += "set " + axis + "tics 1\n";
  return out;
}

std::string value_range(const std::string& axis, double lo, double hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return "set " + axis + "range [*:*]\n";
  const double pad = hi > lo ? (hi - lo) * 0.08 : std::max(1.0, std::fabs(hi) * 0.1);
  return range(axis, std::max(0.0, lo - pad), hi + pad);
}

std::string vertical_marker(int id, double x, const std::string& label, const std::string& color, double y_graph,
                            bool left) {
  const std::string xs = number_label(x, 17);
  return "set style textbox opaque noborder\n"
         "set arrow " + std::to_string(id) + " from first " + xs + ", graph 0 to first " + xs +
         ", graph 1 nohead dt 2 lw 2 lc rgb '" + color + "' front\n" + "set label " + std::to_string(id) + " " +
         gp_quote(label) + " at first " + xs + ", graph " + number_label(y_graph, 4) +
         (left ? " right offset char -0.6,0" : " left offset char 0.6,0") + " boxed tc rgb '" + color + "' front\n";
}

std::string horizontal_marker(int id, double y, const std::string& label, const std::string& color) {
  const std::string ys = number_label(y, 17);
  return "set arrow " + std::to_string(id) + " from graph 0, first " + ys + " to graph 1, first " + ys +
         " nohead dt 3 lw 1.5 lc rgb '" + color + "' front\n" + "set label " + std::to_string(id) + " " +
         gp_quote(label) + " at graph 0.99, first " + ys + " right offset char 0,0.7 tc rgb '" + color + "' front\n";
}

}  // namespace dissect::report
