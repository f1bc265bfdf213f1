#include <doctest/doctest.h>

#include "analyzers/stats/share_crossing.hpp"

using dissect::stats::share_crossing;

TEST_CASE("share crossing: interpolated between the sizes around the level") {
  // 0 % to 40 % over 100..400: 10 % is a quarter of the way from 100 to 200.
  const auto x = share_crossing({100, 200, 300, 400}, {0.0, 0.4, 0.6, 0.9}, 0.1);
  REQUIRE(x);
  CHECK(*x == doctest::Approx(125));
}

TEST_CASE("share crossing: points that scatter around a gradual onset are pooled, not taken one by one") {
  // A stray high point at 150 and a low one at 250: the monotone fit pools them.
  const std::vector<std::uint64_t> n{100, 150, 200, 250, 300};
  const std::vector<double> s{0.0, 0.16, 0.04, 0.06, 0.5};
  const auto x = share_crossing(n, s, 0.1);
  REQUIRE(x);
  // Pooled 150..250 at (0.16 + 0.04 + 0.06) / 3 = 0.0867 < 0.1; the fit crosses between 250 and 300.
  CHECK(*x > 250);
  CHECK(*x < 300);
  // Two points at one size count as one mean.
  const auto tie = share_crossing({100, 200, 200, 300}, {0.0, 0.0, 0.2, 0.4}, 0.1);
  REQUIRE(tie);
  CHECK(*tie == doctest::Approx(200));
}

TEST_CASE("share crossing: none where the fit never reaches the level or starts above it") {
  CHECK_FALSE(share_crossing({100, 200}, {0.0, 0.05}, 0.1));
  CHECK_FALSE(share_crossing({100, 200}, {0.2, 0.5}, 0.1));
  CHECK_FALSE(share_crossing({}, {}, 0.1));
  CHECK_FALSE(share_crossing({100, 200}, {0.0}, 0.1));
}
