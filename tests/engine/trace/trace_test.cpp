// Latency summaries (points.csv columns, the summary analyzer).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>

#include "engine/trace/trace.hpp"

using namespace dissect;

namespace {

// The definition: sort everything, sum in ascending order, interpolate quantiles.
LatencySummary reference(std::vector<double> v) {
  LatencySummary s;
  s.count = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto q = [&](double p) {
    const double pos = p * static_cast<double>(v.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos)), hi = static_cast<std::size_t>(std::ceil(pos));
    const double frac = pos - static_cast<double>(lo);
    return v[lo] * (1 - frac) + v[hi] * frac;
  };
  s.min = v.front();
  s.max = v.back();
  s.p5 = q(0.05);
  s.median = q(0.5);
  s.p95 = q(0.95);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  return s;
}

// Bit for bit: the summaries are written to points.csv in their exact shortest form.
bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void check_same(const std::vector<double>& v) {
  const LatencySummary a = summarize(v), b = reference(v);
  CHECK(a.count == b.count);
  for (auto [x, y] : {std::pair{a.min, b.min}, {a.p5, b.p5}, {a.median, b.median}, {a.mean, b.mean},
                      {a.p95, b.p95}, {a.max, b.max}})
    CHECK(same_bits(x, y));
}

}  // namespace

TEST_CASE("summaries of whole cycle counts (counted or selected, not sorted) equal the full-sort definition") {
  std::mt19937_64 rng(7);
  for (const std::size_t n : {1u, 2u, 3u, 19u, 20u, 21u, 100u, 4096u, 4097u}) {
    CAPTURE(n);
    std::vector<double> v(n);
    for (auto& x : v) x = static_cast<double>(rng() % 61 == 0 ? 300 + rng() % 200 : 30 + rng() % 8);
    check_same(v);
    std::vector<double> same(n, 42.0);  // ties everywhere
    check_same(same);
    std::vector<double> negative = v;  // whole numbers below zero too
    for (auto& x : negative) x -= 100;
    check_same(negative);
    std::vector<double> wide = v;  // spread too far for a histogram: selected
    for (auto& x : wide) x = static_cast<double>(rng() % 10000000);
    check_same(wide);
  }
}

TEST_CASE("summaries of fractions or of huge values take the full sort and stay exact") {
  std::mt19937_64 rng(11);
  std::vector<double> chain(257);  // chain averages: cycles per load
  for (auto& x : chain) x = 30.0 + static_cast<double>(rng() % 1000) / 262144.0;
  check_same(chain);
  // Whole numbers whose sum could round (past 2^53): the order matters, so sorted it is.
  std::vector<double> big{9007199254740992.0, 1.0, 1.0, 3.0, 9007199254740990.0};
  check_same(big);
  CHECK(summarize({}).count == 0);
  CHECK(std::isnan(summarize({}).median));
  // One chain average (a chain-timed point): every statistic is that value, bit for bit.
  check_same({33.000114440917969});
  check_same({0.1});
}
TEST_CASE("device_note: the param itself, else its value in the device_notes column") {
  PointTrace fresh;
  fresh.params["frames"] = "scattered";
  CHECK(fresh.device_note("frames") == "scattered");
  CHECK(fresh.device_note("frames_chunk_bytes", "0") == "0");

  PointTrace read_back;  // as read_bundle makes it: every points.csv column a param
  read_back.params["device_notes"] =
      "frames=scattered; frames_chunk_bytes=2097152; smem_note=carveout: driver default (no preference set); shared "
      "configuration chosen by the driver";
  CHECK(read_back.device_note("frames") == "scattered");
  CHECK(read_back.device_note("frames_chunk_bytes") == "2097152");
  CHECK(read_back.device_note("smem_note") == "carveout: driver default (no preference set)");
  CHECK(read_back.device_note("chunk", "none") == "none");  // a key is matched whole, not as a suffix
  CHECK(read_back.device_note("frames_chunk", "none") == "none");
}
