#include "engine/device/cuda/scattered_frames.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <numeric>

using namespace dissect;

TEST_CASE("scattered_slots: a permutation in which no chunk lands right after the one created before it") {
  for (std::size_t n : {1u, 2u, 3u, 8u, 100u, 4096u}) {
    CAPTURE(n);
    const auto slot = scattered_slots(n, 7);
    REQUIRE(slot.size() == n);
    auto sorted = slot;
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::uint64_t> iota(n);
    std::iota(iota.begin(), iota.end(), std::uint64_t{0});
    CHECK(sorted == iota);
    for (std::size_t i = 0; i + 1 < n; ++i) CHECK(slot[i + 1] != slot[i] + 1);
  }
  CHECK(scattered_slots(64, 7) == scattered_slots(64, 7));  // seeded: a rerun maps alike
}
