// tlb_spread on series of random chases at one stride, built here access by access: a
// level of C slots that misses a share 1 - C/N of its accesses past them (replacement
// that is not LRU), over a data path whose latency differs per slot (near and far L2
// halves: each point is read on the first point's slots), against the level's penalty.
#include <doctest/doctest.h>

#include <random>

#include "support/analysis.hpp"

using namespace dissect;

namespace {

constexpr std::uint64_t kStride = (34ull << 20) + 32;

// One point of `slots` slots: a warm-up pass, then four passes, each access missing the
// level (of `capacity` slots, penalty `penalty`) with the chance 1 - C/N past it, plus
// `extra` cycles on every access (another level's share).
PointTrace spread_point(std::size_t id, std::uint64_t slots, std::uint64_t capacity, double penalty, double extra = 0) {
  PointTrace p;
  p.point_id = id;
  p.params = {{"kernel", "pchase"}, {"size_bytes", std::to_string(slots * kStride)}, {"stride_bytes", std::to_string(kStride)}};
  std::mt19937 rng(static_cast<std::uint32_t>(11 + id));
  std::uniform_real_distribution<double> u(0, 1);
  std::normal_distribution<double> jitter(0, 4);
  const double miss_share = slots <= capacity ? 0 : 1 - static_cast<double>(capacity) / static_cast<double>(slots);
  for (std::uint64_t k = 0; k < 5 * slots; ++k) {
    Sample s;
    s.seq = k;
    const std::uint64_t slot = (k * 7919) % slots;
    s.offset_bytes = slot * kStride;
    const double path = slot % 3 == 0 ? 330 : 300;
    s.latency = path + extra + (u(rng) < miss_share ? penalty : 0) + jitter(rng);
    p.samples.push_back(s);
  }
  return p;
}

TraceSet series(std::uint64_t capacity, double penalty, const std::vector<std::uint64_t>& slots,
                const std::vector<double>& extra = {}) {
  TraceSet t;
  for (std::size_t i = 0; i < slots.size(); ++i)
    t.points.push_back(spread_point(i, slots[i], capacity, penalty, i < extra.size() ? extra[i] : 0));
  return t;
}

nlohmann::json penalty(double cycles) { return {{"penalties", std::to_string(kStride) + ":" + std::to_string(cycles)}}; }

}  // namespace

TEST_CASE("tlb_spread: one set of 2048 runs out between 0.9 and 1.15 times its entries") {
  const Finding f = test::analyze(series(2048, 95, {1843, 2356, 3686, 4711}), "tlb_spread", penalty(95));
  CAPTURE(f.summary);
  CHECK(f.value == 1843);
  CHECK(f.details["clean_slots"] == 1843);
  CHECK(f.details["first_miss_slots"] == 2356);
  CHECK_FALSE(f.details.contains("unclear"));
  CHECK(f.details["stride_bytes"] == kStride);
}

TEST_CASE("tlb_spread: two sets of 2048 hold twice the slots") {
  const Finding f = test::analyze(series(4096, 95, {1843, 2356, 3686, 4711}), "tlb_spread", penalty(95));
  CHECK(f.details["clean_slots"] == 3686);
  CHECK(f.details["first_miss_slots"] == 4711);
}

TEST_CASE("tlb_spread: another level's small rise is no miss of a level with a large penalty, nor clean") {
  // A level of +760 that never runs out in the sweep; a lower level adds 10 cycles at the
  // larger points: beyond the noise, under a tenth of the penalty.
  const Finding f =
      test::analyze(series(1u << 20, 760, {3686, 4711, 7373}, {0, 10, 12}), "tlb_spread", penalty(760));
  CHECK(f.details["clean_slots"] == 3686);
  CHECK_FALSE(f.details.contains("first_miss_slots"));
  CHECK(f.details["unclear"].get<std::string>().find("under a tenth of the penalty") != std::string::npos);
}

TEST_CASE("tlb_spread: without the level's penalty a series is read against its own rise") {
  const Finding f = test::analyze(series(2048, 95, {1843, 2356, 3686}), "tlb_spread");
  CHECK(f.details["clean_slots"] == 1843);
  CHECK(f.details["first_miss_slots"] == 2356);
  // Nothing rises beyond the noise: every point is clean.
  const Finding flat = test::analyze(series(1u << 20, 95, {1843, 2356, 3686}), "tlb_spread");
  CHECK(flat.details["clean_slots"] == 3686);
  CHECK_FALSE(flat.details.contains("first_miss_slots"));
}

TEST_CASE("tlb_spread: a few misses just past the entries end the clean run without counting as the miss") {
  // 2048 of 2100 slots held: 2.5 % of the accesses miss, +2.4 of +95 cycles: beyond the
  // noise, under a tenth of the penalty. The level holds fewer than 2100 slots; the
  // first miss is the next point's.
  const Finding f = test::analyze(series(2048, 95, {1843, 2100, 4711}), "tlb_spread", penalty(95));
  CHECK(f.details["clean_slots"] == 1843);
  CHECK(f.details["first_miss_slots"] == 4711);
  CHECK(f.details.contains("unclear"));
}

TEST_CASE("tlb_spread: a point that reads clean after one that missed makes the miss no bound") {
  // 2356 slots of a level of 2048 miss; 3686 slots at a level of 1 << 20 (no miss) after it.
  TraceSet t = series(2048, 95, {1843, 2356});
  t.points.push_back(spread_point(2, 3686, 1u << 20, 95));
  const Finding f = test::analyze(t, "tlb_spread", penalty(95));
  CHECK(f.details["first_miss_slots"] == 2356);
  CHECK(f.details["unclear"].get<std::string>().find("not a level running out") != std::string::npos);
}

TEST_CASE("tlb_spread: a level that misses only the slots added since the first point is seen there") {
  // Every access to a slot past the first point's 1843 misses at 2356 slots; the first
  // point's slots all hit.
  TraceSet t = series(1u << 20, 95, {1843, 2356});
  for (auto& s : t.points[1].samples)
    if (s.offset_bytes / kStride >= 1843) s.latency += 95;
  const Finding f = test::analyze(t, "tlb_spread", penalty(95));
  CHECK(f.details["clean_slots"] == 1843);
  CHECK(f.details["first_miss_slots"] == 2356);
}

TEST_CASE("tlb_spread: a series of one point is not read") {
  const Finding f = test::analyze(series(2048, 95, {1843}), "tlb_spread", penalty(95));
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("two points") != std::string::npos);
}

TEST_CASE("tlb_spread: a rise too small for fewer slots to fit bounds them from below (pigeonhole)") {
  // Two sets of 2048 (4096 slots fit spread over them) with a lower level's +2 cycles at
  // the larger points: 2356 slots rise by about 2 cycles, beyond the noise but under a
  // tenth of the penalty, so the point names nothing; one set of 2048 would miss 13 % of
  // the accesses there (+12 cycles at least). At least about 2300 slots fit: more than
  // one set's entries. The last point, far past both sets, shows what a miss costs.
  const Finding f =
      test::analyze(series(4096, 95, {1843, 2356, 9000}, {0, 2, 2}), "tlb_spread", penalty(95));
  CAPTURE(f.summary);
  CHECK(f.details["clean_slots"] == 1843);
  CHECK(f.details.contains("unclear"));
  REQUIRE(f.details.contains("holds_at_least_slots"));
  const auto at_least = f.details["holds_at_least_slots"].get<std::uint64_t>();
  CHECK(at_least > 2048);
  CHECK(at_least <= 2356);
  CHECK(f.summary.find("pigeonhole") != std::string::npos);

  // One set of 2048 with the same lower level's +2: 2356 slots miss 13 % (the first miss),
  // and no earlier point lies past one set's entries: no bound beyond the clean point.
  const Finding one = test::analyze(series(2048, 95, {1843, 2356, 9000}, {0, 2, 2}), "tlb_spread", penalty(95));
  CHECK(one.details["first_miss_slots"] == 2356);
  CHECK_FALSE(one.details.contains("holds_at_least_slots"));
  // Another level's rise alone (a level that never runs out): no point misses, so no miss
  // shows what one costs. Its penalty of +760 stands out of the data path, so each access
  // is counted instead: none is a miss, and every slot of the largest point fits.
  const Finding other =
      test::analyze(series(1u << 20, 760, {3686, 4711, 7373}, {0, 10, 12}), "tlb_spread", penalty(760));
  CHECK_FALSE(other.details.contains("first_miss_slots"));
  CHECK(other.details["holds_at_least_slots"] == 7373);
  CHECK(other.summary.find("counted one by one") != std::string::npos);
}

TEST_CASE("tlb_spread: a first miss that a later point contradicts bounds nothing, neither the sets nor a cost") {
  // 2356 slots rise a little, 4711 miss, then 5000 slots of a level that never runs out:
  // the miss at 4711 was no level running out.
  TraceSet t = series(4096, 95, {1843, 2356, 4711}, {0, 2, 2});
  t.points.push_back(spread_point(3, 5000, 1u << 20, 95, 2));
  const Finding f = test::analyze(t, "tlb_spread", penalty(95));
  CAPTURE(f.summary);
  CHECK(f.details["first_miss_slots"] == 4711);
  CHECK(f.details.contains("first_miss_unconfirmed"));
  CHECK_FALSE(f.details.contains("holds_at_least_slots"));
}

TEST_CASE("tlb_spread: where the penalty stands out of the data path, each access is counted (pigeonhole per pass)") {
  // A level of +760 over a data path of 300 and 330 cycles that keeps 4300 of the slots:
  // the others miss on every pass. 4711 slots miss 411 accesses a pass: at least 4300 fit,
  // whatever the mean says; the first point's accesses set the threshold.
  TraceSet t = series(1u << 20, 760, {3686, 4711, 7373});
  for (auto& p : t.points)
    for (auto& s : p.samples)
      if (s.offset_bytes / kStride >= 4300) s.latency += 760;
  const Finding f = test::analyze(t, "tlb_spread", penalty(760));
  CAPTURE(f.summary);
  CHECK(f.details["clean_slots"] == 3686);
  CHECK(f.details["first_miss_slots"] == 4711);
  REQUIRE(f.details.contains("misses_per_pass"));
  const auto& counts = f.details["misses_per_pass"];
  REQUIRE(counts.size() == 3);
  CHECK(counts[0][1].get<double>() == doctest::Approx(0));
  CHECK(counts[1][1].get<double>() == doctest::Approx(411));
  CHECK(counts[2][1].get<double>() == doctest::Approx(7373 - 4300));
  CHECK(f.details["holds_at_least_slots"] == 4300);
  CHECK(f.summary.find("counted one by one") != std::string::npos);
  // A penalty within the data path's spread: nothing is counted.
  const Finding small = test::analyze(series(2048, 95, {1843, 2356}), "tlb_spread", penalty(95));
  CHECK_FALSE(small.details.contains("misses_per_pass"));
}
