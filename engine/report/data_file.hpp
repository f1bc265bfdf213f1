#pragma once
// Plot data as gnuplot reads it and people restyle it: whitespace-separated
// columns, '#' comments naming the columns, blocks separated by two blank
// lines (gnuplot's `index`), NaN for missing values. Heatmaps use the matrix
// form (one row per point, one column per access).
#include <string>
#include <vector>

namespace dissect::report {

struct DataBlock {
  std::string title;                           // a comment line, e.g. the series
  std::vector<std::vector<std::string>> rows;  // cells, already formatted
};

struct DataFile {
  std::string name;                   // file name within the plot directory
  std::vector<std::string> comments;  // what it holds, one line each
  std::vector<std::string> columns;   // column names (a comment line); empty for a matrix
  std::vector<DataBlock> blocks;

  [[nodiscard]] std::string text() const;
  [[nodiscard]] std::size_t rows() const;
};

// A cell for a number: shortest exact text, "NaN" when unknown.
std::string data_cell(double v);
// Writes `file` into `dir` (atomically). Throws std::runtime_error naming the file.
void write_data_file(const std::string& dir, const DataFile& file);

}  // namespace dissect::report
