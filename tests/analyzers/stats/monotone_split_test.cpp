#include <doctest/doctest.h>

#include <stdexcept>

#include "analyzers/stats/monotone_split.hpp"

using dissect::stats::monotone_split;

TEST_CASE("monotone_split: a sharp switch is split where it switches") {
  const auto s = monotone_split({1, 2, 3, 4, 5}, {false, false, false, true, true});
  CHECK(s.first_missing == 3);
  CHECK(s.disagreements == 0);
  CHECK(s.band_begin > s.band_end);  // no mixed band
}

TEST_CASE("monotone_split: a stray miss below the knee or a stray hit above it does not move the split") {
  // The first miss (index 1) is a stray: the old "largest N before the first
  // miss" reading would put the knee at index 0.
  const auto s = monotone_split({1, 2, 3, 4, 5, 6, 7, 8}, {false, true, false, false, false, true, false, true});
  CHECK(s.first_missing == 5);
  CHECK(s.disagreements == 2);
  CHECK(s.band_begin == 1);
  CHECK(s.band_end == 6);
}

TEST_CASE("monotone_split: a mixed band is split in its middle") {
  // clean, then alternating, then missing: every split inside the band
  // disagrees with equally many points; the middle one is taken.
  const std::vector<bool> m{false, false, true, false, true, false, true, false, true, true};
  std::vector<std::uint64_t> k(m.size());
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = i;
  const auto s = monotone_split(k, m);
  CHECK(s.disagreements == 3);
  CHECK(s.first_missing >= 4);
  CHECK(s.first_missing <= 6);
}

TEST_CASE("monotone_split: points of one key stay on one side; all-clean and all-missing series") {
  const auto s = monotone_split({1, 2, 2, 3}, {false, false, true, true});
  CHECK((s.first_missing == 1 || s.first_missing == 3));
  CHECK(s.disagreements == 1);
  CHECK(monotone_split({1, 2, 3}, {false, false, false}).first_missing == 3);
  CHECK(monotone_split({1, 2, 3}, {true, true, true}).first_missing == 0);
  CHECK(monotone_split({}, {}).first_missing == 0);
  CHECK_THROWS_AS(monotone_split({1, 2}, {true}), std::invalid_argument);
}
