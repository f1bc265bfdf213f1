#include "engine/core/csv.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

namespace dissect {

std::vector<std::string> split_csv_line(const std::string& line, bool* complete) {
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < line.size() && line[i + 1] == '"') {
          cur += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r') {
      cur += c;
    }
  }
  out.push_back(cur);
  if (complete != nullptr) *complete = !quoted;
  return out;
}

std::string csv_field(const std::string& value) {
  std::string out;
  append_csv_field(out, value);
  return out;
}

std::string csv_row(const std::vector<std::string>& fields) {
  std::string out;
  append_csv_row(out, fields);
  return out;
}

void append_csv_field(std::string& out, std::string_view value) {
  // One pass over the characters (find_first_of searches the set per character).
  const bool plain = std::none_of(value.begin(), value.end(),
                                  [](char c) { return c == ',' || c == '"' || c == '\n' || c == '\r'; });
  if (plain) {
    out += value;
    return;
  }
  // Quoted: copied in runs, each quote doubled (a device note is a few hundred
  // characters with commas in it, on every points.csv row).
  out += '"';
  std::size_t from = 0;
  for (std::size_t q = value.find('"'); q != std::string_view::npos; q = value.find('"', q + 1)) {
    out.append(value.data() + from, q + 1 - from);
    out += '"';
    from = q + 1;
  }
  out.append(value.data() + from, value.size() - from);
  out += '"';
}

void append_csv_row(std::string& out, const std::vector<std::string>& fields) {
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) out += ',';
    append_csv_field(out, fields[i]);
  }
  out += '\n';
}

std::string format_number(double v) {
  char buf[kNumberChars];
  return std::string(buf, write_number(buf, v));
}

char* write_number(char* out, double v) {
  if (std::isnan(v)) {
    std::memcpy(out, "nan", 3);
    return out + 3;
  }
  // Whole numbers as integers ("1000000", where the shortest form is "1e+06").
  if (v == std::floor(v) && std::fabs(v) < 1e15)
    return std::to_chars(out, out + kNumberChars, static_cast<long long>(v)).ptr;
  // The shortest round-trip form of a double has at most 24 characters.
  return std::to_chars(out, out + kNumberChars, v).ptr;
}

}  // namespace dissect
