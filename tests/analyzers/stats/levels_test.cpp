#include <doctest/doctest.h>

#include <random>

#include "analyzers/stats/levels.hpp"

using namespace dissect::stats;

namespace {
std::vector<double> normal(std::mt19937_64& rng, std::size_t n, double mu, double sd) {
  std::normal_distribution<double> d(mu, sd);
  std::vector<double> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(std::round(d(rng)));
  return v;
}
}  // namespace

TEST_CASE("levels: hits and misses with jitter, outliers make no level") {
  std::mt19937_64 rng(1);
  auto v = normal(rng, 9000, 32, 1.5);
  auto m = normal(rng, 3000, 420, 8);
  v.insert(v.end(), m.begin(), m.end());
  std::uniform_real_distribution<double> u(1500, 40000);
  for (int i = 0; i < 60; ++i) v.push_back(u(rng));  // 0.5% scattered outliers
  const LevelModel lm = cluster_levels(v);
  REQUIRE(lm.levels.size() == 2);
  CHECK(lm.levels[0].median == doctest::Approx(32).epsilon(0.05));
  CHECK(lm.levels[1].median == doctest::Approx(420).epsilon(0.02));
  CHECK(lm.levels[0].share == doctest::Approx(0.75).epsilon(0.02));
  CHECK(lm.levels[1].share == doctest::Approx(0.25).epsilon(0.03));
  CHECK(lm.outliers >= 55);
  CHECK(lm.classify(33) == 0);
  CHECK(lm.classify(415) == 1);
  CHECK(lm.classify(20000) == -1);
  CHECK(lm.separation(0, 1) > 1);
}

TEST_CASE("levels: three close levels (TLB penalties) and a rare one") {
  std::mt19937_64 rng(2);
  auto v = normal(rng, 5000, 371, 3);
  auto b = normal(rng, 5000, 398, 3);
  auto c = normal(rng, 200, 482, 3);  // 2%
  v.insert(v.end(), b.begin(), b.end());
  v.insert(v.end(), c.begin(), c.end());
  const LevelModel lm = cluster_levels(v);
  REQUIRE(lm.levels.size() == 3);
  CHECK(lm.levels[0].median == doctest::Approx(371).epsilon(0.01));
  CHECK(lm.levels[1].median == doctest::Approx(398).epsilon(0.01));
  CHECK(lm.levels[2].median == doctest::Approx(482).epsilon(0.01));
}

TEST_CASE("levels: a tight small level beside a big one (per-page medians)") {
  std::vector<double> v(2000, 236);
  for (int i = 0; i < 700; ++i) v[static_cast<std::size_t>(i)] = 235 + (i % 3);
  for (int i = 0; i < 130; ++i) v.push_back(230);
  for (int i = 0; i < 900; ++i) v.push_back(289);
  const LevelModel lm = cluster_levels(v);
  REQUIRE(lm.levels.size() == 3);
  CHECK(lm.levels[0].median == doctest::Approx(230));
  CHECK(lm.levels[1].median == doctest::Approx(236));
}

TEST_CASE("levels: integer jitter inside one level is one level; a constant is one level") {
  std::vector<double> v;
  for (int i = 0; i < 3000; ++i) v.push_back(30 + i % 4);  // 30..33
  CHECK(cluster_levels(v).levels.size() == 1);
  CHECK(cluster_levels(std::vector<double>(100, 7)).levels.size() == 1);
  CHECK(cluster_levels({}).levels.empty());
}

TEST_CASE("levels: samples cut short are a minor, separate anomaly") {
  std::mt19937_64 rng(3);
  auto v = normal(rng, 5000, 240, 3);
  auto m = normal(rng, 1000, 470, 4);
  v.insert(v.end(), m.begin(), m.end());
  for (int i = 0; i < 10; ++i) v.push_back(i % 3);  // 0.2% near zero
  const LevelModel lm = cluster_levels(v);
  REQUIRE(lm.levels.size() == 2);
  CHECK(lm.levels[0].median == doctest::Approx(240).epsilon(0.01));
  CHECK(lm.classify(1) == -1);
}
