#include <doctest/doctest.h>

#include <random>

#include "analyzers/stats/ks_test.hpp"

using namespace dissect::stats;

TEST_CASE("ks: the Kolmogorov distribution at known points") {
  // P(K > 1.358) = 0.05, P(K > 1.628) = 0.01 (tables of the Kolmogorov distribution).
  CHECK(kolmogorov_q(1.358) == doctest::Approx(0.05).epsilon(0.02));
  CHECK(kolmogorov_q(1.628) == doctest::Approx(0.01).epsilon(0.03));
  CHECK(kolmogorov_q(0.0) == doctest::Approx(1.0));
  CHECK(kolmogorov_q(0.2) == doctest::Approx(1.0).epsilon(1e-4));
  CHECK(kolmogorov_q(3.0) < 1e-6);
}

TEST_CASE("ks: statistic on small samples by hand") {
  // F jumps at 1,2,3; G at 2,3,4: max |F - G| = 1/3.
  const auto r = ks_two_sample({1, 2, 3}, {2, 3, 4});
  CHECK(r.d == doctest::Approx(1.0 / 3));
  CHECK(r.n == 3);
  CHECK(r.m == 3);
  // Disjoint samples: D = 1.
  CHECK(ks_two_sample({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}).d == doctest::Approx(1));
  // Ties across samples count once.
  CHECK(ks_two_sample({1, 1, 1}, {1, 1, 1}).d == doctest::Approx(0));
  CHECK(ks_two_sample({}, {1}).p_value == doctest::Approx(1));
}

TEST_CASE("ks: same distribution accepted, shifted one rejected") {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> n(0, 1);
  std::vector<double> a, b, c;
  for (int i = 0; i < 2000; ++i) a.push_back(n(rng)), b.push_back(n(rng)), c.push_back(n(rng) + 0.3);
  const auto same = ks_two_sample(a, b);
  CHECK(same.p_value > 0.01);
  CHECK_FALSE(same.rejects(0.01));
  const auto diff = ks_two_sample(a, c);
  CHECK(diff.p_value < 1e-6);
  CHECK(diff.rejects(0.01));
  // Critical value of seed 004 eq. 3.3 for n = m = 2000, alpha = 0.05: 1.358 * sqrt(2/2000).
  CHECK(same.critical(0.05) == doctest::Approx(1.358 * std::sqrt(2.0 / 2000)).epsilon(0.01));
  // Capping the effective sizes makes the same D less certain.
  CHECK(ks_two_sample_capped(a, c, 50).p_value > diff.p_value);
}
