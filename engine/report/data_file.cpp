#include "engine/report/data_file.hpp"

#include <cmath>
#include <filesystem>

#include "engine/core/csv.hpp"
#include "engine/core/files.hpp"

namespace dissect::report {

std::string data_cell(double v) {
  if (std::isnan(v) || std::isinf(v)) return "NaN";
  return format_number(v);
}

std::string DataFile::text() const {
  std::string out;
  for (const auto& c : comments) out += "# " + c + "\n";
  if (!columns.empty()) {
    out += "#";
    for (const auto& c : columns) out += " " + c;
    out += "\n";
  }
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    if (b > 0) out += "\n\n";
    if (!blocks[b].title.empty()) out += "# [" + std::to_string(b) + "] " + blocks[b].title + "\n";
    for (const auto& row : blocks[b].rows) {
      for (std::size_t i = 0; i < row.size(); ++i) {
        if (i) out += ' ';
        // Cells with spaces (labels) are quoted, as gnuplot reads them.
        out += row[i].find(' ') == std::string::npos ? row[i] : "\"" + row[i] + "\"";
      }
      out += '\n';
    }
  }
  return out;
}

std::size_t DataFile::rows() const {
  std::size_t n = 0;
  for (const auto& b : blocks) n += b.rows.size();
  return n;
}

void write_data_file(const std::string& dir, const DataFile& file) {
  // A report is made again from its bundles: atomic, but not fsynced (dozens of files).
  write_file_atomic((std::filesystem::path(dir) / file.name).string(), file.text(), false);
}

}  // namespace dissect::report
