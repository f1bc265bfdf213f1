#include <doctest/doctest.h>

#include <random>

#include "analyzers/stats/change_point.hpp"

using namespace dissect::stats;

TEST_CASE("change point: a step is found exactly") {
  const std::vector<double> s{1, 1, 1, 1, 1, 4, 5, 6, 7};
  const auto cp = single_change_point(s);
  REQUIRE(cp.found);
  CHECK(cp.last_left == 4);
  CHECK(cp.mean_left == doctest::Approx(1));
  CHECK(cp.mean_right == doctest::Approx(5.5));
  CHECK(cp.explained() == doctest::Approx(0.9));  // split cost 5 of a whole cost 50
}

TEST_CASE("change point: agrees with the O(T^2) cost table of seed 004 Algorithm 1") {
  std::mt19937_64 rng(5);
  std::normal_distribution<double> n(0, 0.2);
  std::vector<double> s;
  for (int i = 0; i < 30; ++i) s.push_back((i >= 17 ? 2.0 : 0.0) + n(rng));
  // Brute force over the explicit segment costs.
  std::size_t best_t = 0;
  double best = 1e300;
  for (std::size_t t = 0; t + 1 < s.size(); ++t) {
    const double c = segment_cost(s, 0, t) + segment_cost(s, t + 1, s.size() - 1);
    if (c < best) best = c, best_t = t;
  }
  const auto cp = single_change_point(s);
  CHECK(cp.last_left == best_t);
  CHECK(cp.last_left == 16);
  CHECK(cp.cost_split == doctest::Approx(best));
}

TEST_CASE("change point: too short, or flat") {
  CHECK_FALSE(single_change_point({1}).found);
  const auto flat = single_change_point({2, 2, 2, 2});
  CHECK(flat.found);
  CHECK(flat.explained() == doctest::Approx(0));
  CHECK_FALSE(single_change_point({1, 2, 3}, 2).found);
}
