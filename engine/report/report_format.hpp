#pragma once
// Text formatting shared by report.md and the plot scripts: sizes with binary
// units, numbers without noise, gnuplot and Markdown quoting.
#include <cstdint>
#include <string>
#include <vector>

namespace dissect::report {

// "16 KiB", "3 MiB", "12320 B", "1.5 MiB": exact binary units where they fit,
// bytes below 64 KiB when not a whole KiB, else two decimals.
std::string size_label(double bytes);
// A size or a difference of sizes in the largest binary unit below it, six
// significant digits ("241 KiB", "-57.5 KiB", "23 MiB", "12 B"): export and compare.
std::string binary_size_text(double bytes);
// Labels for a set of sizes in one unit, the largest size's: KiB, MiB or GiB
// ("12.5 KiB", "12.03125 KiB"); bytes only when every size is below 1 KiB.
std::vector<std::string> size_labels(const std::vector<double>& bytes);
// Up to `digits` significant digits, no trailing zeros ("412.4", "30", "nan").
std::string number_label(double v, int digits = 4);
// A gnuplot single-quoted string literal ('it''s').
std::string gp_quote(const std::string& text);
// A Markdown table cell: pipes escaped, newlines folded.
std::string md_cell(const std::string& text);
// A file or directory name from free text: [A-Za-z0-9._-], others become '_'.
std::string file_slug(const std::string& text);

}  // namespace dissect::report
