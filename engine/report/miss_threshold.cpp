#include "engine/report/miss_threshold.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "engine/report/report_format.hpp"

namespace dissect::report {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::optional<double> number_in(const nlohmann::json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_object())
    for (const char* key : {"latency", "center", "median", "mean", "cycles", "value"})
      if (j.contains(key) && j[key].is_number()) return j[key].get<double>();
  return std::nullopt;
}

MissThreshold from_levels(std::vector<double> levels, std::string source) {
  MissThreshold t;
  std::sort(levels.begin(), levels.end());
  t.levels = std::move(levels);
  t.threshold = t.levels.size() >= 2 ? (t.levels[0] + t.levels[1]) / 2 : kInf;
  t.source = std::move(source);
  return t;
}

}  // namespace

bool MissThreshold::any() const { return std::isfinite(threshold); }

std::vector<double> MissThreshold::boundaries() const {
  std::vector<double> out;
  if (!any()) return out;
  out.push_back(threshold);
  for (std::size_t i = 1; i + 1 < levels.size(); ++i) {
    const double b = (levels[i] + levels[i + 1]) / 2;
    if (b > out.back()) out.push_back(b);
  }
  return out;
}

std::vector<double> levels_from_finding(const nlohmann::json& finding) {
  std::vector<double> out;
  if (!finding.is_object() || !finding.contains("details") || !finding["details"].is_object()) return out;
  const auto& d = finding["details"];
  if (d.contains("levels") && d["levels"].is_array())
    for (const auto& l : d["levels"])
      if (auto v = number_in(l); v && std::isfinite(*v)) out.push_back(*v);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<double> cluster_levels(const std::map<std::int64_t, std::uint64_t>& histogram) {
  std::uint64_t total = 0;
  for (const auto& [lat, n] : histogram) total += n;
  std::vector<double> levels;
  if (total == 0) return levels;
  const double min_count = std::max(1.0, 0.0005 * static_cast<double>(total));
  std::vector<std::pair<double, std::uint64_t>> cluster;
  const auto close_cluster = [&] {
    if (cluster.empty()) return;
    std::uint64_t n = 0;
    for (const auto& c : cluster) n += c.second;
    std::uint64_t seen = 0;
    for (const auto& [lat, count] : cluster) {
      seen += count;
      if (2 * seen >= n) {
        levels.push_back(lat);
        break;
      }
    }
    cluster.clear();
  };
  for (const auto& [lat, n] : histogram) {
    if (static_cast<double>(n) < min_count) continue;
    const double v = static_cast<double>(lat);
    if (!cluster.empty()) {
      const double prev = cluster.back().first;
      if (v - prev > std::max(10.0, 0.1 * std::fabs(prev))) close_cluster();
    }
    cluster.emplace_back(v, n);
  }
  close_cluster();
  return levels;
}

MissThreshold miss_threshold(const ExperimentData& data) {
  std::map<std::int64_t, std::uint64_t> merged;
  for (const auto* p : data.ok_points())
    for (const auto& [lat, n] : p->histogram) merged[lat] += n;
  const double lo = merged.empty() ? kUnknown : static_cast<double>(merged.begin()->first);
  const double hi = merged.empty() ? kUnknown : static_cast<double>(merged.rbegin()->first);

  if (const nlohmann::json* f = data.finding("latency_levels")) {
    const auto& d = f->contains("details") ? (*f)["details"] : nlohmann::json::object();
    for (const char* key : {"miss_threshold", "threshold"})
      if (d.is_object() && d.contains(key) && d[key].is_number()) {
        MissThreshold t;
        t.levels = levels_from_finding(*f);
        t.threshold = d[key].get<double>();
        t.source = std::string("latency_levels finding (details.") + key + " = " + number_label(t.threshold) +
                   " cycles)";
        return t;
      }
    auto levels = levels_from_finding(*f);
    if (!levels.empty()) {
      MissThreshold t = from_levels(levels, "");
      // Levels that do not fit the raw latencies (e.g. timer-corrected ones far off) are not used.
      const bool fits = !t.any() || merged.empty() || (t.threshold > lo && t.threshold < hi);
      if (fits) {
        std::string list;
        for (double l : t.levels) list += (list.empty() ? "" : ", ") + number_label(l);
        t.source = "latency_levels finding (levels " + list + " cycles; threshold midway between the lowest two)";
        return t;
      }
    }
  }
  MissThreshold t = from_levels(cluster_levels(merged), "");
  std::string list;
  for (double l : t.levels) list += (list.empty() ? "" : ", ") + number_label(l);
  if (t.levels.empty()) {
    t.source = "no samples";
  } else if (!t.any()) {
    t.source = "one latency level (" + list + " cycles) in the trace: no access counts as a miss";
  } else {
    t.source = "latency levels clustered from the trace (" + list +
               " cycles); a miss is a latency above the midpoint between the lowest two";
  }
  return t;
}

}  // namespace dissect::report
