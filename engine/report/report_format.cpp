#include "engine/report/report_format.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <algorithm>

namespace dissect::report {

std::string binary_size_text(double v) {
  const double a = std::fabs(v);
  const double kib = 1024.0;
  char buf[64];
  if (a < kib) std::snprintf(buf, sizeof buf, "%.6g B", v);
  else if (a < kib * kib) std::snprintf(buf, sizeof buf, "%.6g KiB", v / kib);
  else if (a < kib * kib * kib) std::snprintf(buf, sizeof buf, "%.6g MiB", v / kib / kib);
  else std::snprintf(buf, sizeof buf, "%.6g GiB", v / kib / kib / kib);
  return buf;
}

std::string size_label(double bytes) {
  if (std::isnan(bytes)) return "nan";
  const double kib = 1024.0, mib = kib * 1024, gib = mib * 1024;
  const auto whole = [](double v) { return std::fabs(v - std::round(v)) < 1e-9; };
  char buf[64];
  if (bytes >= gib && whole(bytes / gib)) {
    std::snprintf(buf, sizeof buf, "%.0f GiB", bytes / gib);
  } else if (bytes >= mib && whole(bytes / mib)) {
    std::snprintf(buf, sizeof buf, "%.0f MiB", bytes / mib);
  } else if (bytes >= kib && whole(bytes / kib)) {
    std::snprintf(buf, sizeof buf, "%.0f KiB", bytes / kib);
  } else if (bytes < 64 * kib) {
    std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  } else if (bytes < mib) {
    std::snprintf(buf, sizeof buf, "%.2f KiB", bytes / kib);
  } else if (bytes < gib) {
    std::snprintf(buf, sizeof buf, "%.2f MiB", bytes / mib);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f GiB", bytes / gib);
  }
  return buf;
}

std::vector<std::string> size_labels(const std::vector<double>& bytes) {
  double max = 0;
  for (double b : bytes) max = std::max(max, b);
  const double kib = 1024.0;
  const double unit = max >= kib * kib * kib ? kib * kib * kib : max >= kib * kib ? kib * kib : kib;
  const char* name = unit == kib ? "KiB" : unit == kib * kib ? "MiB" : "GiB";
  // In the unit of the largest size, never raw bytes above 1 KiB: sizes that are
  // no whole quarter of it keep enough digits to tell neighbours apart.
  if (max < kib) {
    std::vector<std::string> out;
    for (double b : bytes) out.push_back(number_label(b) + " B");
    return out;
  }
  bool quarters = true;
  for (double b : bytes) quarters &= std::fabs(b * 4 / unit - std::round(b * 4 / unit)) < 1e-9;
  std::vector<std::string> out;
  for (double b : bytes) out.push_back(number_label(b / unit, quarters ? 6 : 9) + " " + name);
  return out;
}

std::string number_label(double v, int digits) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e12) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  return buf;
}

std::string gp_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += '\'';
    if (c == '\n' || c == '\r') {
      out += ' ';
      continue;
    }
    out += c;
  }
  return out + "'";
}

std::string md_cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string file_slug(const std::string& text) {
  std::string out;
  for (char c : text)
    out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  while (!out.empty() && out.front() == '.') out.erase(out.begin());
  return out.empty() ? "experiment" : out;
}

}  // namespace dissect::report
