#include "analyzers/stats/tlb_footprint.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

using namespace dissect::stats;

namespace {

constexpr std::uint64_t kMiB = 1ull << 20;

// The knee a level shows at stride s: slots on a sqrt-2 grid, the last that fit
// and the next; below the span at the coverage, past it at `span_slots` slots.
StrideKnee knee(std::uint64_t stride, std::uint64_t coverage, std::uint64_t span, std::uint64_t span_slots,
                double penalty) {
  std::vector<std::uint64_t> grid;
  for (int j = 2; j < 40; ++j) {
    const auto n = static_cast<std::uint64_t>(std::llround(std::pow(2.0, j / 2.0)));
    if (grid.empty() || grid.back() != n) grid.push_back(n);
  }
  const std::uint64_t s = stride + 32;
  auto fits = [&](std::uint64_t n) { return stride <= span ? (n - 1) * s < coverage : n <= span_slots; };
  std::size_t i = 0;
  while (fits(grid[i + 1])) ++i;
  return {s, grid[i], grid[i + 1], penalty, 0};
}

// Knees as a topology recorded them: stride, clean and missing slots, penalty, and whether
// read from point means (the footprint sweep's own reading at large strides).
struct Seen {
  std::uint64_t stride, clean, missing;
  double penalty;
  bool from_means = true;
};

std::vector<StrideKnee> knees_of(const std::vector<Seen>& seen) {
  std::vector<StrideKnee> knees;
  for (const Seen& x : seen) {
    StrideKnee k{x.stride, x.clean, x.missing, x.penalty, x.from_means};
    k.tag = knees.size();
    knees.push_back(k);
  }
  return knees;
}

}  // namespace

TEST_CASE("tlb_footprint: coverage below the span, span and its slots above it, per level") {
  // 16 entries of 32 MiB, fully associative (span 32 MiB, 16 slots past it);
  // 256 entries of 2 MiB in 32 sets of 8 at 8 GiB (span 64 MiB, 8 ways past it).
  std::vector<StrideKnee> knees;
  for (std::uint64_t s = 1 * kMiB; s <= 1024 * kMiB; s *= 2) {
    knees.push_back(knee(s, 512 * kMiB, 32 * kMiB, 16, 12));
    if (s >= 2 * kMiB) knees.push_back(knee(s, 8192 * kMiB, 1024 * kMiB, 8, 60));
  }
  std::vector<std::string> notes;
  const auto levels = footprint_levels(knees, notes);
  REQUIRE(levels.size() == 2);
  CHECK(levels[0].coverage_lo <= 512 * kMiB);
  CHECK(levels[0].coverage_hi >= 512 * kMiB);
  CHECK(levels[0].span_lo == 32 * kMiB + 32);
  CHECK(levels[0].span_hi == 64 * kMiB + 32);
  CHECK(levels[0].span_slots_lo == 16);
  CHECK(levels[1].coverage_lo <= 8192 * kMiB);
  CHECK(levels[1].coverage_hi >= 8192 * kMiB);
  CHECK(levels[1].penalty == 60);
  CHECK(levels[1].span_lo == 1024 * kMiB + 32);
  CHECK(levels[1].span_hi == 0);  // the sweep ends before the span: not seen past it
}

TEST_CASE("tlb_footprint: a step at one stride only, or two levels running out together, is no level") {
  std::vector<StrideKnee> knees;
  for (std::uint64_t s = 1 * kMiB; s <= 64 * kMiB; s *= 2) {
    knees.push_back(knee(s, 32 * kMiB, 2 * kMiB, 16, 27));
    knees.push_back(knee(s, 130 * kMiB, 8 * kMiB, 16, 84));
  }
  knees.push_back({1 * kMiB + 32, 512, 724, 184, 0});   // a data cache overflowing at one stride
  knees.push_back({256 * kMiB + 32, 16, 23, 111, 0});   // both levels past their spans, together
  knees.push_back({512 * kMiB + 32, 16, 23, 111, 0});
  std::vector<std::string> notes;
  const auto levels = footprint_levels(knees, notes);
  REQUIRE(levels.size() == 2);
  CHECK(levels[0].penalty == 27);
  CHECK(levels[1].penalty == 84);
  bool single = false, merged = false;
  for (const auto& n : notes) {
    single = single || n.find("seen at neither neighbouring stride") != std::string::npos;
    merged = merged || n.find("running out together") != std::string::npos;
  }
  CHECK(single);
  CHECK(merged);
}

TEST_CASE("footprint: knees read from point means whose penalties scatter by a third are one level") {
  // An H200's footprint sweep (topology run of 2026-11-25): one level of 16 entries
  // of 16 MiB; the penalty read at 32 MiB came out 6.4 cycles beside 10.4 at 16 MiB.
  std::vector<StrideKnee> knees = knees_of({{262176, 1024, 1448, 7.21},  {524320, 512, 724, 8.63},
                                            {1048608, 256, 362, 9.78},  {2097184, 128, 181, 9.88},
                                            {4194336, 64, 91, 8.83},    {8388640, 32, 45, 9.32},
                                            {16777248, 16, 23, 10.4},   {33554464, 16, 23, 6.4},
                                            {67108896, 16, 23, 8.86},   {134217760, 16, 23, 9.09}});
  std::vector<std::string> notes;
  const auto levels = footprint_levels(knees, notes);
  REQUIRE(levels.size() == 1);
  CHECK(levels[0].span_lo == 16777248);
  CHECK(levels[0].past_span.size() == 3);
  CHECK(levels[0].coverage_lo <= 256 * kMiB);
  CHECK(levels[0].coverage_hi >= 256 * kMiB);
  // Read page by page, the same scatter would be two levels' worth: the tolerance is the means'.
  for (auto& k : knees) k.from_means = false;
  CHECK(footprint_levels(knees, notes).size() == 2);
}

TEST_CASE("footprint: a knee read from means a grid step late stays in its level's chain") {
  // Another H200 run: at 2 MiB the means put the knee at 181 slots (362 MiB), a
  // step of the sqrt-2 grid past the 256 MiB the other strides show.
  const std::vector<StrideKnee> knees = knees_of({{262176, 1024, 1448, 7.94},  {524320, 512, 724, 8.7},
                                                  {1048608, 256, 362, 10.01}, {2097184, 181, 256, 7.92},
                                                  {4194336, 64, 91, 9.22},    {8388640, 32, 45, 8.62},
                                                  {16777248, 16, 23, 8.48},   {33554464, 16, 23, 8.49},
                                                  {67108896, 16, 23, 8.46},   {134217760, 16, 23, 8.0}});
  std::vector<std::string> notes;
  const auto levels = footprint_levels(knees, notes);
  REQUIRE(levels.size() == 1);
  CHECK(levels[0].span_lo == 16777248);
  CHECK(levels[0].coverage_lo <= 256 * kMiB);
  CHECK(levels[0].coverage_hi >= 256 * kMiB);
}

TEST_CASE("footprint: brackets that only touch leave the coverage as wide as both") {
  // An H200 card's topology (results/h200, l2_final): at 64 MiB the knee came one grid
  // step from both readings of the 32 MiB knee (halves: 1024, stays: 2048). Joined
  // loosely as "halves", the two brackets meet only at their edges (90.4-90.5 GiB);
  // every other card reads 2048 slots of 32 MiB at both strides (64 GiB).
  const std::vector<StrideKnee> knees = knees_of({{33554464, 2048, 2896, 95.6, true},
                                                  {67108896, 1448, 2048, 103, false},
                                                  {134217760, 1448, 2048, 103, false},
                                                  {268435488, 1448, 2048, 96, false}});
  std::vector<std::string> notes;
  const auto levels = footprint_levels(knees, notes);
  REQUIRE(levels.size() == 1);
  const auto& L = levels[0];
  // Both brackets stay possible: 64 GiB (2048 x 32 MiB) and the 64 MiB knee's.
  CHECK(L.coverage_lo <= 2047ull * 33554464 + 1);
  CHECK(L.coverage_hi >= 2047ull * 67108896);
  // The contact alone (about one 32 MiB slot wide) is not reported.
  CHECK(L.coverage_hi - L.coverage_lo > 67108896);
  bool said = false;
  for (const auto& n : notes) said = said || n.find("only touch") != std::string::npos;
  CHECK(said);

  // A bracket inside another is what both share, however narrow: (48, 64] MiB at 16 MiB
  // inside (32, 64] MiB at 32 MiB.
  std::vector<StrideKnee> nested{{16ull << 20, 4, 5, 30, false}, {32ull << 20, 2, 3, 30, false}};
  notes.clear();
  const auto inner = footprint_levels(nested, notes);
  REQUIRE(inner.size() == 1);
  CHECK(inner[0].coverage_lo == (48ull << 20) + 1);
  CHECK(inner[0].coverage_hi == 64ull << 20);
  for (const auto& n : notes) CHECK(n.find("only touch") == std::string::npos);

  // Brackets that agree (a clean halving) are still narrowed to what they share.
  std::vector<StrideKnee> halving{{33554464, 2048, 2896, 95, true}, {67108896, 1024, 1448, 96, true},
                                  {134217760, 1024, 1448, 96, true}};
  notes.clear();
  const auto agreed = footprint_levels(halving, notes);
  REQUIRE(agreed.size() == 1);
  CHECK(agreed[0].coverage_lo == 2047ull * 33554464 + 1);
  CHECK(agreed[0].coverage_hi == 1447ull * 67108896);
}
