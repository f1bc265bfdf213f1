#include "engine/trace/trace.hpp"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <span>

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

std::string PointTrace::device_note(const std::string& key, const std::string& fallback) const {
  if (auto it = params.find(key); it != params.end()) return it->second;
  const auto it = params.find("device_notes");
  if (it == params.end()) return fallback;
  const std::string& s = it->second;
  const std::string want = key + "=";
  for (std::size_t pos = 0; pos < s.size();) {
    const std::size_t end = std::min(s.find("; ", pos), s.size());
    if (s.compare(pos, want.size(), want) == 0) return s.substr(pos + want.size(), end - pos - want.size());
    pos = end + 2;
  }
  return fallback;
}

std::vector<const Sample*> PointTrace::measured_samples() const {
  std::vector<const Sample*> out;
  out.reserve(samples.size());
  const std::uint64_t skip = accesses_per_pass * discard_passes;
  for (const auto& s : samples)
    if (s.seq >= skip) out.push_back(&s);
  return out;
}

namespace {

// Where quantile q lies in n sorted values: between ranks lo and hi, frac of the way.
struct Rank {
  std::size_t lo = 0, hi = 0;
  double frac = 0;
};

Rank quantile_rank(std::size_t n, double q) {
  const double pos = q * static_cast<double>(n - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = static_cast<std::size_t>(std::ceil(pos));
  return {lo, hi, pos - static_cast<double>(lo)};
}

// Reads a quantile from values whose ranks lo and hi hold what a full sort puts there.
double quantile_at(const std::vector<double>& v, double q) {
  const Rank r = quantile_rank(v.size(), q);
  return v[r.lo] * (1 - r.frac) + v[r.hi] * r.frac;
}

// Moves the values of the given ranks (ascending, distinct, inside [lo, hi)) to
// where a full sort would put them: each nth_element splits the rest in two.
void select_ranks(std::vector<double>& v, std::size_t lo, std::size_t hi, std::span<const std::size_t> ranks) {
  if (ranks.empty() || hi - lo <= 1) return;
  const std::size_t mid = ranks.size() / 2;
  const std::size_t k = ranks[mid];
  const auto at = [&](std::size_t i) { return v.begin() + static_cast<std::ptrdiff_t>(i); };
  std::nth_element(at(lo), at(k), at(hi));
  select_ranks(v, lo, k, ranks.first(mid));
  select_ranks(v, k + 1, hi, ranks.subspan(mid + 1));
}

}  // namespace

LatencySummary summarize(std::vector<double> values) {
  LatencySummary s;
  s.count = values.size();
  if (values.empty()) return s;
  const std::size_t n = values.size();
  if (n == 1) {  // a chain-timed point: one average (every statistic is that value)
    s.min = s.p5 = s.median = s.mean = s.p95 = s.max = values.front();
    return s;
  }
  // The mean is the sum in ascending order. When every value is a whole number
  // and no partial sum can pass 2^53 (cycle counts: always), each addition is
  // exact and any order gives that same sum; then the five order statistics are
  // selected (O(n)) instead of sorting every value (points.csv summarises each
  // point of a run: thousands of samples each). Otherwise: the full sort.
  const double limit = 0x1p53 / static_cast<double>(n);
  double sum = 0;
  bool exact = true;
  bool negative_zero = false;  // -0 and 0 are one bucket of a histogram: a selection keeps them apart
  for (const double v : values) {
    if (!(v == std::floor(v) && std::fabs(v) <= limit)) {
      exact = false;
      break;
    }
    negative_zero = negative_zero || (v == 0 && std::signbit(v));
    sum += v;
  }
  if (exact) {
    // Cycle counts of one point mostly span a few hundred values: their order statistics are
    // read off a histogram in linear time, the same values a selection finds.
    const auto [lo_it, hi_it] = std::minmax_element(values.begin(), values.end());
    const double lo = *lo_it, span = *hi_it - *lo_it;
    if (!negative_zero && span <= static_cast<double>(std::max<std::size_t>(n, 4096))) {
      std::vector<std::size_t> count(static_cast<std::size_t>(span) + 1, 0);
      for (const double v : values) ++count[static_cast<std::size_t>(v - lo)];
      const Rank r5 = quantile_rank(n, 0.05), r50 = quantile_rank(n, 0.5), r95 = quantile_rank(n, 0.95);
      std::vector<std::size_t> ranks{r5.lo, r5.hi, r50.lo, r50.hi, r95.lo, r95.hi};
      std::sort(ranks.begin(), ranks.end());
      std::vector<double> at(ranks.size());  // the value at each rank, walking the histogram once
      std::size_t bucket = 0, through = count[0];  // values in the buckets up to `bucket`
      for (std::size_t i = 0; i < ranks.size(); ++i) {
        while (through <= ranks[i]) through += count[++bucket];
        at[i] = lo + static_cast<double>(bucket);
      }
      const auto value = [&](std::size_t rank) {
        return at[static_cast<std::size_t>(std::lower_bound(ranks.begin(), ranks.end(), rank) - ranks.begin())];
      };
      const auto quantile = [&](const Rank& r) { return value(r.lo) * (1 - r.frac) + value(r.hi) * r.frac; };
      s.min = lo;
      s.max = *hi_it;
      s.p5 = quantile(r5);
      s.median = quantile(r50);
      s.p95 = quantile(r95);
      s.mean = sum / static_cast<double>(n);
      return s;
    }
    std::vector<std::size_t> ranks{0, n - 1};
    for (const double q : {0.05, 0.5, 0.95}) {
      const Rank r = quantile_rank(n, q);
      ranks.push_back(r.lo);
      ranks.push_back(r.hi);
    }
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    select_ranks(values, 0, n, ranks);
    s.mean = sum / static_cast<double>(n);
  } else {
    std::sort(values.begin(), values.end());
    s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(n);
  }
  s.min = values.front();
  s.max = values.back();
  s.p5 = quantile_at(values, 0.05);
  s.median = quantile_at(values, 0.5);
  s.p95 = quantile_at(values, 0.95);
  return s;
}

}  // namespace dissect
