#pragma once
// Minimal RFC-4180 CSV: quoted fields, doubled quotes. Enough for the tidy
// files dissect writes and the traces it imports.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dissect {

// `complete`, when given, is set false for a line that ends inside a quoted
// field (a torn or damaged row): its fields are what was there.
std::vector<std::string> split_csv_line(const std::string& line, bool* complete = nullptr);
std::string csv_field(const std::string& value);  // quotes when needed
std::string csv_row(const std::vector<std::string>& fields);  // with trailing '\n'
// The same, appended to `out` (no temporary strings: bundles write many rows).
void append_csv_field(std::string& out, std::string_view value);
void append_csv_row(std::string& out, const std::vector<std::string>& fields);
// Shortest text that reads back to the same double ("nan" for NaN).
std::string format_number(double v);
// The text of format_number(v), written at `out`, which has room for
// kNumberChars characters; returns the end of what was written.
inline constexpr std::size_t kNumberChars = 32;
char* write_number(char* out, double v);

}  // namespace dissect
