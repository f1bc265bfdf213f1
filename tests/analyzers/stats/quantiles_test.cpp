#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

#include "analyzers/stats/quantiles.hpp"

using namespace dissect::stats;

TEST_CASE("quantiles: interpolation, median, MAD, trimmed mean") {
  CHECK(quantile({1, 2, 3, 4, 5}, 0.5) == doctest::Approx(3));
  CHECK(quantile({4, 1, 3, 2}, 0.5) == doctest::Approx(2.5));
  CHECK(quantile({10, 20}, 0.25) == doctest::Approx(12.5));
  CHECK(std::isnan(median({})));
  CHECK(median({7, std::nan(""), 9}) == doctest::Approx(8));
  // MAD of 1..5 is 1, as a normal sigma 1.4826.
  CHECK(mad_sigma({1, 2, 3, 4, 5}) == doctest::Approx(1.4826));
  // One wild value does not move the trimmed mean much, it does move the mean.
  std::vector<double> v(20, 10.0);
  v.back() = 1e6;
  CHECK(trimmed_mean(v, 0.1) == doctest::Approx(10));
  CHECK(mean(v) > 1000);
}

TEST_CASE("quantiles of whole cycle counts (counted) equal those of a full sort, bit for bit") {
  std::mt19937_64 rng(5);
  for (const std::size_t n : {1u, 2u, 3u, 20u, 101u, 5000u}) {
    for (const bool wide : {false, true}) {
      std::vector<double> v(n);
      for (auto& x : v) x = wide ? static_cast<double>(rng() % 10000000) : static_cast<double>(28 + rng() % 9) - 10;
      std::vector<double> sorted = v;
      std::sort(sorted.begin(), sorted.end());
      for (const double q : {0.0, 0.05, 0.25, 0.5, 0.95, 1.0}) {
        CAPTURE(n);
        CAPTURE(wide);
        CAPTURE(q);
        const double expected = quantile_sorted(sorted, q);
        const double got = quantile(v, q);
        CHECK(std::memcmp(&expected, &got, sizeof got) == 0);
      }
      CHECK(mad_sigma(v) == mad_sigma_sorted(sorted));
    }
  }
}
