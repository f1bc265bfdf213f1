// tlb_overflow on series one slot at a time through a level of C entries that misses
// only a few slots per pass past them, other ones from pass to pass (not LRU), over a
// data path whose latency differs per slot: the pigeonhole count per pass finds C.
#include <doctest/doctest.h>

#include <random>

#include "support/analysis.hpp"

using namespace dissect;

namespace {

constexpr std::uint64_t kStride = (32ull << 20) + 32;
constexpr double kPenalty = 100;

// One point of `slots` slots: a first pass and three more, each pass past C missing
// (N - C) slots picked at random (`repeat`: the same slots in every pass, as sets that
// overflow under LRU would); `stray` adds one slow sample to the third pass.
PointTrace overflow_point(std::size_t id, std::uint64_t slots, std::uint64_t capacity, bool stray = false,
                          bool repeat = false) {
  PointTrace p;
  p.point_id = id;
  p.params = {{"kernel", "pchase"}, {"size_bytes", std::to_string(slots * kStride)}, {"stride_bytes", std::to_string(kStride)}};
  std::mt19937 rng(static_cast<std::uint32_t>(5 + id));
  std::normal_distribution<double> jitter(0, 3);
  std::vector<char> miss(slots, 0);
  for (std::uint64_t pass = 0; pass < 4; ++pass) {
    if (!repeat || pass == 0) {
      std::fill(miss.begin(), miss.end(), 0);
      for (std::uint64_t k = 0; slots > capacity && k < slots - capacity; ++k) miss[rng() % slots] = 1;
    }
    for (std::uint64_t j = 0; j < slots; ++j) {
      Sample s;
      s.seq = pass * slots + j;
      const std::uint64_t slot = (j * 7919) % slots;
      s.offset_bytes = slot * kStride;
      const double path = slot % 3 == 0 ? 330 : 300;
      s.latency = path + (miss[slot] ? kPenalty : 0) + jitter(rng);
      if (stray && pass == 2 && j == 5) s.latency += kPenalty;  // a pass that counts
      p.samples.push_back(s);
    }
  }
  return p;
}

TraceSet series(std::uint64_t capacity, std::uint64_t from, std::uint64_t to, std::uint64_t stray_at = 0,
                bool repeat = false) {
  TraceSet t;
  for (std::uint64_t n = from; n <= to; ++n)
    t.points.push_back(overflow_point(t.points.size(), n, capacity, n == stray_at, repeat));
  return t;
}

nlohmann::json penalty() { return {{"penalties", std::to_string(kStride) + ":" + std::to_string(kPenalty)}}; }

}  // namespace

TEST_CASE("tlb_overflow: a level that misses a few slots per pass past 2048 holds 2048, overflows at 2049") {
  const Finding f = test::analyze(series(2048, 2044, 2056, 2046), "tlb_overflow", penalty());
  CAPTURE(f.summary);
  CHECK(f.value == 2048);
  CHECK(f.details["holds_slots"] == 2048);
  CHECK(f.details["overflow_slots"] == 2049);
  CHECK(f.details["stride_bytes"] == kStride);
}

TEST_CASE("tlb_overflow: without the level's penalty no series is read") {
  const Finding f = test::analyze(series(2048, 2044, 2050), "tlb_overflow");
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("penalties") != std::string::npos);
}

TEST_CASE("tlb_overflow: a sweep that starts past the capacity is not read") {
  const Finding f = test::analyze(series(2040, 2044, 2050), "tlb_overflow", penalty());
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("starts past the level's capacity") != std::string::npos);
}

TEST_CASE("tlb_overflow: a stray miss before the first point that holds is passed over") {
  TraceSet t = series(2048, 2044, 2052);
  // The first point: misses in its last pass only (neither holding nor overflowing).
  for (auto& s : t.points[0].samples)
    if (s.seq >= 3 * 2044 && s.seq < 3 * 2044 + 4) s.latency += kPenalty;
  const Finding f = test::analyze(t, "tlb_overflow", penalty());
  CHECK(f.details["holds_slots"] == 2048);
  CHECK(f.details["overflow_slots"] == 2049);
}

TEST_CASE("tlb_overflow: a point that misses in fewer than every pass after the overflow leaves no capacity") {
  TraceSet t = series(2048, 2044, 2052);
  // The point of 2051 slots: no miss at all.
  t.points[7] = overflow_point(7, 2051, 1u << 20);
  const Finding f = test::analyze(t, "tlb_overflow", penalty());
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("miss in fewer than every pass") != std::string::npos);
}

TEST_CASE("tlb_overflow: a point that holds after one that was unclear leaves no single capacity") {
  TraceSet t = series(2048, 2044, 2050);
  // The point of 2047 slots: misses in one counted pass only (neither holding nor
  // overflowing); 2048 holds after it.
  for (auto& s : t.points[3].samples)
    if (s.seq >= 3 * 2047 && s.seq < 3 * 2047 + 3) s.latency += kPenalty;
  const Finding f = test::analyze(t, "tlb_overflow", penalty());
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("hold after") != std::string::npos);
}

TEST_CASE("tlb_overflow: the same slots missing pass after pass, or others: only the second is not LRU") {
  // Past 2048 slots, 8 to 32 misses a pass: other slots each pass (a level that replaces
  // at random), or the same ones (sets overflowing under LRU, or a policy that repeats).
  const Finding random = test::analyze(series(2048, 2044, 2080), "tlb_overflow", penalty());
  CAPTURE(random.summary);
  CHECK(random.details["overflow_slots"] == 2049);
  CHECK(random.details["misses_repeat_each_pass"] == false);
  CHECK(random.summary.find("not LRU") != std::string::npos);
  const Finding same = test::analyze(series(2048, 2044, 2080, 0, true), "tlb_overflow", penalty());
  CAPTURE(same.summary);
  CHECK(same.details["overflow_slots"] == 2049);
  CHECK(same.details["misses_repeat_each_pass"] == true);
  CHECK(same.summary.find("not LRU") == std::string::npos);
  // Too few misses a pass to tell: nothing said.
  const Finding few = test::analyze(series(2048, 2044, 2052), "tlb_overflow", penalty());
  CHECK_FALSE(few.details.contains("misses_repeat_each_pass"));
}
