#include <doctest/doctest.h>

#include "analyzers/stats/binomial.hpp"

using namespace dissect::stats;

TEST_CASE("binomial tail: exact small cases and the normal approximation") {
  CHECK(binomial_sf(0, 10, 0.3) == doctest::Approx(1));
  CHECK(binomial_sf(11, 10, 0.3) == doctest::Approx(0));
  // P(X >= 2), X ~ B(2, 0.5) = 0.25; P(X >= 1) = 0.75.
  CHECK(binomial_sf(2, 2, 0.5) == doctest::Approx(0.25));
  CHECK(binomial_sf(1, 2, 0.5) == doctest::Approx(0.75));
  // P(X >= 3), X ~ B(10, 0.1) = 1 - (0.9^10 + 10*0.1*0.9^9 + 45*0.01*0.9^8) = 0.0702
  CHECK(binomial_sf(3, 10, 0.1) == doctest::Approx(0.0702).epsilon(0.01));
  // Large n: mean 5000, sd 50: P(X >= 5100) ~ P(Z >= 1.99) = 0.023.
  CHECK(binomial_sf(5100, 10000, 0.5) == doctest::Approx(0.023).epsilon(0.05));
  CHECK(binomial_z(60, 100, 0.5) == doctest::Approx(2.0));
}
