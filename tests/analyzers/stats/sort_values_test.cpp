#include "analyzers/stats/sort_values.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "analyzers/stats/quantiles.hpp"

using namespace dissect::stats;

namespace {

// The same values in the same order as std::sort, bit for bit.
void check_as_std_sort(std::vector<double> v) {
  std::vector<double> expected = v;
  std::sort(expected.begin(), expected.end());
  sort_values(v);
  REQUIRE(v.size() == expected.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    differ += v[i] != expected[i] || std::signbit(v[i]) != std::signbit(expected[i]) ? 1 : 0;
  CHECK(differ == 0);
}

}  // namespace

TEST_CASE("sort_values: what std::sort gives, by counting, by radix and for short input") {
  std::mt19937_64 rng(7);
  // Few distinct whole cycles (latencies of a chase): counted.
  std::vector<double> cycles(200000);
  for (auto& x : cycles) x = static_cast<double>(30 + rng() % 5 + (rng() % 10 == 0 ? 400 + rng() % 40 : 0));
  check_as_std_sort(cycles);
  // Many distinct values, negatives among them (chain averages, differences): the radix sort.
  std::vector<double> spread(100000);
  std::normal_distribution<double> normal(0, 1000);
  for (auto& x : spread) x = normal(rng);
  check_as_std_sort(spread);
  // Distinct values past the counting table's limit, but repeated.
  std::vector<double> repeated(300000);
  for (auto& x : repeated) x = static_cast<double>(rng() % 100000) / 8;
  check_as_std_sort(repeated);
  // Short input, and input with a NaN-free negative zero: std::sort itself.
  check_as_std_sort({3, 1, 2});
  std::vector<double> zeros(5000, 0.0);
  zeros[17] = -0.0;
  zeros[4000] = 5;
  std::vector<double> z = zeros;
  sort_values(z);
  CHECK(std::is_sorted(z.begin(), z.end()));
  CHECK(z.back() == 5);
  check_as_std_sort(std::vector<double>(4096, 44.0));
}

TEST_CASE("median_sorted and mad_sigma_sorted equal median and mad_sigma of the values in any order") {
  std::mt19937_64 rng(11);
  for (const std::size_t n : {1u, 2u, 3u, 10u, 11u, 1000u, 1001u}) {
    std::vector<double> v(n);
    for (auto& x : v) x = static_cast<double>(rng() % 50) + (rng() % 3 == 0 ? 0.25 : 0.0);
    std::vector<double> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    CAPTURE(n);
    CHECK(median_sorted(sorted) == median(v));
    CHECK(mad_sigma_sorted(sorted) == mad_sigma(v));
  }
  CHECK(std::isnan(median_sorted({})));
  CHECK(std::isnan(mad_sigma_sorted({})));
}
