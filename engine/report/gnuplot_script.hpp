#pragma once
// The common parts of the gnuplot scripts: one script renders the same plot
// twice, to SVG and to PNG, from data files next to it, so that
// `gnuplot STEM.gp` in the plot directory redraws both after a user edits it.
// Axis helpers write explicit tics: binary size units on size axes, log2
// scales where a sweep spans a factor of 8 or more.
#include <string>
#include <vector>

namespace dissect::report {

struct ScriptSpec {
  std::string stem;                 // writes STEM.svg and STEM.png
  std::vector<std::string> about;   // comment lines at the top (what, from where, data columns)
  std::string settings;             // `set ...` lines
  std::string plot;                 // the plot command
  int width = 960, height = 600;    // pixels (PNG) and SVG size
  std::string png_terminal = "pngcairo";  // or "png" where gnuplot lacks cairo
};

std::string render_script(const ScriptSpec& spec);

// Line styles 1..n: a ten-colour qualitative palette, or, for ordered series
// (strides) and more than ten series, colours sampled along a sequential
// palette (dark blue to orange) so that neighbours in order look alike.
std::string series_styles(std::size_t n, bool ordered = false);
std::string series_color(std::size_t i);
// A perceptual palette for heatmaps (viridis, sampled).
std::string viridis_palette();

// x or y axis over sizes in bytes. log2 when max/min >= 8: tics at powers of
// two labelled "16 KiB"; else linear tics at a power-of-two step, labelled in
// the largest unit that divides them (the unit goes to the axis label).
std::string size_axis(const std::string& axis, double min, double max, const std::string& label);
// Axis over counts (warps, ILP, stride in elements): log2 with power-of-two
// tics when all values are powers of two spanning a factor of 8; else linear.
std::string count_axis(const std::string& axis, const std::vector<double>& values, const std::string& label);
// y range over [lo, hi] with 8 % headroom on both sides, never below zero
// (latencies and bandwidths are positive); gnuplot picks the tics.
std::string value_range(const std::string& axis, double lo, double hi);
// A dashed vertical line at x (first axis coordinates) with a label on an
// opaque box at height y_graph (0..1), right of the line, or left of it when
// `left` (markers near the right edge).
std::string vertical_marker(int id, double x, const std::string& label, const std::string& color,
                            double y_graph = 0.96, bool left = false);
// A dashed horizontal line at y with a label at the right.
std::string horizontal_marker(int id, double y, const std::string& label, const std::string& color);

}  // namespace dissect::report
