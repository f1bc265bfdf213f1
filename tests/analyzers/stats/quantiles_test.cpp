#include <doctest/doctest.h>

#include <cmath>

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
