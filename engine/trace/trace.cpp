#include "engine/trace/trace.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>

namespace dissect {

std::uint64_t PointTrace::param_u64(const std::string& key, std::uint64_t fallback) const {
  auto it = params.find(key);
  if (it == params.end()) return fallback;
  std::uint64_t v = 0;
  const auto& s = it->second;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || ptr != s.data() + s.size()) {
    // Accept decimals that are whole numbers ("128.0").
    try {
      const double d = std::stod(s);
      if (d >= 0 && d == std::floor(d)) return static_cast<std::uint64_t>(d);
    } catch (...) {
    }
    return fallback;
  }
  return v;
}

double PointTrace::param_double(const std::string& key, double fallback) const {
  auto it = params.find(key);
  if (it == params.end()) return fallback;
  try {
    return std::stod(it->second);
  } catch (...) {
    return fallback;
  }
}

std::string PointTrace::param(const std::string& key, const std::string& fallback) const {
  auto it = params.find(key);
  return it == params.end() ? fallback : it->second;
}

std::vector<const Sample*> PointTrace::measured_samples() const {
  std::vector<const Sample*> out;
  out.reserve(samples.size());
  const std::uint64_t skip = accesses_per_pass * discard_passes;
  for (const auto& s : samples)
    if (s.seq >= skip) out.push_back(&s);
  return out;
}

static double quantile_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) return kUnknown;
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = static_cast<std::size_t>(std::ceil(pos));
  const double frac = pos - static_cast<double>(lo);
  return v[lo] * (1 - frac) + v[hi] * frac;
}

LatencySummary summarize(std::vector<double> values) {
  LatencySummary s;
  s.count = values.size();
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.min = values.front();
  s.max = values.back();
  s.p5 = quantile_sorted(values, 0.05);
  s.median = quantile_sorted(values, 0.5);
  s.p95 = quantile_sorted(values, 0.95);
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(values.size());
  return s;
}

}  // namespace dissect
