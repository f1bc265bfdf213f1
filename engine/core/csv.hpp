#pragma once
// Minimal RFC-4180 CSV: quoted fields, doubled quotes. Enough for the tidy
// files dissect writes and the traces it imports.
#include <string>
#include <vector>

namespace dissect {

std::vector<std::string> split_csv_line(const std::string& line);
std::string csv_field(const std::string& value);  // quotes when needed
std::string csv_row(const std::vector<std::string>& fields);  // with trailing '\n'
// Shortest text that reads back to the same double ("nan" for NaN).
std::string format_number(double v);

}  // namespace dissect
