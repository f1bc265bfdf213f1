#include "analyzers/stats/unit_excess.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

using namespace dissect::stats;

TEST_CASE("unit_excess: each page relative to itself, newcomers to the state older pages are in") {
  // Pages 0 and 1 near (280), page 2 far (310). At the third point every page
  // misses a level (+20); page 3 arrives then, far, and is taken to miss too.
  std::vector<UnitPoint> pts(3);
  pts[0] = {2, {0, 1}, {280, 280}, {}};
  pts[1] = {3, {0, 2, 1}, {280, 310, 280}, {}};
  pts[2] = {4, {3, 1, 2, 0}, {330, 300, 330, 300}, {}};
  unit_excess(pts);
  CHECK(pts[0].excess == std::vector<double>{0, 0});
  CHECK(pts[1].excess == std::vector<double>{0, 0, 0});  // far page 2: its own first latency
  CHECK(pts[2].excess == std::vector<double>{20, 20, 20, 20});  // page 3: reference 330 - 20
}

TEST_CASE("unit_excess: an unmeasured position stays unmeasured") {
  std::vector<UnitPoint> pts(2);
  pts[0] = {1, {0}, {100}, {}};
  pts[1] = {2, {0, 1}, {std::nan(""), 100}, {}};
  unit_excess(pts);
  CHECK(std::isnan(pts[1].excess[0]));
  CHECK(pts[1].excess[1] == 0);  // no older page measured here: no shift
}

TEST_CASE("unit_order: positions by unit, a permutation placed directly, anything else sorted stably") {
  // Every order against the stable sort it stands for.
  const auto sorted = [](const std::vector<std::uint64_t>& units) {
    std::vector<std::uint32_t> order(units.size());
    for (std::uint32_t k = 0; k < order.size(); ++k) order[k] = k;
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return units[a] < units[b]; });
    return order;
  };
  const std::vector<std::vector<std::uint64_t>> cases{
      {},
      {0},
      {3, 0, 2, 1},           // a permutation of 0 .. n-1
      {5, 3, 4},              // shifted: no unit below 3
      {2, 0, 2, 1},           // a unit twice, one missing
      {1, 0, 7, 2},           // one unit past n
  };
  for (const auto& units : cases) {
    CAPTURE(units.size());
    CHECK(unit_order(units) == sorted(units));
  }
  CHECK(unit_order({3, 0, 2, 1}) == std::vector<std::uint32_t>{1, 3, 2, 0});
  CHECK(unit_order({2, 0, 2, 1}) == std::vector<std::uint32_t>{1, 3, 0, 2});
}
