#include "analyzers/stats/sample_mean.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace dissect::stats;

TEST_CASE("sample_mean: mean and standard error of a sample") {
  const SampleMean m = sample_mean({1, 2, 3, 4, 5});
  CHECK(m.n == 5);
  CHECK(m.mean == doctest::Approx(3));
  // Sample standard deviation sqrt(2.5) over sqrt(5).
  CHECK(m.se == doctest::Approx(std::sqrt(2.5 / 5)));
}

TEST_CASE("sample_mean: one value has no spread, none has nothing") {
  const SampleMean one = sample_mean({7});
  CHECK(one.n == 1);
  CHECK(one.mean == 7);
  CHECK(one.se == 0);
  const SampleMean none = sample_mean({});
  CHECK(none.n == 0);
  CHECK(none.mean == 0);
}
