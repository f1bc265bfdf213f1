// tlb_scope on traces of B chasers (one per block, each over an array of its own)
// through a TLB level of E entries in LRU order that is private to each SM or shared
// by all: built here, access by access, with a data-path latency of its own per slot
// (near or far L2 halves) so that only block 0 read against itself gives the scope.
#include <doctest/doctest.h>

#include <algorithm>
#include <list>
#include <numeric>
#include <random>

#include "support/analysis.hpp"

using namespace dissect;

namespace {

constexpr std::uint64_t kStride = (2ull << 20) + 32;
constexpr double kPenalty = 9;

class Lru {
 public:
  explicit Lru(std::size_t entries) : entries_(entries) {}
  bool access(std::uint64_t key) {
    const auto it = std::find(order_.begin(), order_.end(), key);
    const bool hit = it != order_.end();
    if (hit) order_.erase(it);
    order_.push_front(key);
    if (order_.size() > entries_) order_.pop_back();
    return hit;
  }

 private:
  std::size_t entries_;
  std::list<std::uint64_t> order_;
};

// One point: `blocks` chasers, `slots` slots each in one random cycle, one warm-up pass,
// `iterations` timed accesses each, interleaved one access per chaser at a time.
PointTrace scope_point(std::size_t id, std::uint32_t blocks, std::uint64_t slots, std::size_t entries, bool shared,
                       std::uint32_t seed, double between = 0) {
  PointTrace p;
  p.point_id = id;
  p.params = {{"kernel", "pchase"},          {"blocks", std::to_string(blocks)},
              {"size_bytes", std::to_string(slots * kStride)}, {"stride_bytes", std::to_string(kStride)},
              {"chasers", "0"},              {"block_arrays", "per_block"}};
  std::vector<std::uint64_t> order(slots);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(7);
  std::shuffle(order.begin(), order.end(), rng);
  std::mt19937 noise(seed);
  std::normal_distribution<double> jitter(0, 3);
  std::vector<Lru> tlbs(shared ? 1 : blocks, Lru(entries));
  const std::uint64_t iterations = 1024;
  for (std::uint64_t k = 0; k < slots + iterations; ++k)
    for (std::uint32_t b = 0; b < blocks; ++b) {
      const std::uint64_t slot = order[k % slots];
      const bool hit = tlbs[shared ? 0 : b].access((std::uint64_t{b} << 32) | slot);
      if (k < slots) continue;  // the warm-up pass
      Sample s;
      s.thread = b;
      s.seq = k - slots;
      s.offset_bytes = slot * kStride;
      s.sm_id = static_cast<std::int32_t>(b);
      const double path = (slot * 7 + b) % 3 == 0 ? 320 : 290;  // near or far, per line
      s.latency = path + (hit ? 0 : kPenalty) + between * kPenalty + jitter(noise);
      p.samples.push_back(s);
    }
  return p;
}

TraceSet scope_sweep(bool shared, std::size_t entries = 16) {
  TraceSet t;
  const std::uint64_t hit = entries * 3 / 4;
  std::uint32_t seed = 1;
  for (std::uint32_t b : {8u, 2u, 1u}) t.points.push_back(scope_point(t.points.size(), b, hit, entries, shared, ++seed));
  t.points.push_back(scope_point(t.points.size(), 1, 2 * entries, entries, shared, ++seed));
  return t;
}

}  // namespace

TEST_CASE("tlb_scope: a level private to each SM keeps its hits with 8 SMs at once") {
  const Finding f = test::analyze(scope_sweep(false), "tlb_scope");
  INFO(f.to_json().dump());
  CHECK(f.value == "sm");
  CHECK(f.details["private_up_to_sms"] == 8);
  CHECK(f.details["penalty_cycles"].get<double>() == doctest::Approx(kPenalty).epsilon(0.25));
  CHECK(f.confidence >= 0.9);
}

TEST_CASE("tlb_scope: a level all SMs share runs out with two at once") {
  const Finding f = test::analyze(scope_sweep(true), "tlb_scope");
  INFO(f.to_json().dump());
  CHECK(f.value == "shared");
  CHECK(f.details["shared_by_sms"] == 2);
}

TEST_CASE("tlb_scope: no level between the one-SM footprints leaves the scope undetermined") {
  // A level of 64 entries: neither 12 nor 32 slots per SM run out of it.
  TraceSet t;
  std::uint32_t seed = 1;
  for (std::uint32_t b : {8u, 2u, 1u}) t.points.push_back(scope_point(t.points.size(), b, 12, 64, true, ++seed));
  t.points.push_back(scope_point(t.points.size(), 1, 32, 64, true, ++seed));
  const Finding f = test::analyze(t, "tlb_scope");
  INFO(f.to_json().dump());
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("no level runs out") != std::string::npos);
}

TEST_CASE("tlb_scope: several SMs paying a part of the penalty are neither private nor shared") {
  TraceSet t = scope_sweep(false);
  // Block 0 of the 2-SM point pays 40 % of the penalty on every access.
  t.points[1] = scope_point(1, 2, 12, 16, false, 99, 0.4);
  const Finding f = test::analyze(t, "tlb_scope");
  INFO(f.to_json().dump());
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("neither private") != std::string::npos);
}

TEST_CASE("tlb_scope: traces without arrays per block are not read") {
  TraceSet t = scope_sweep(false);
  for (auto& p : t.points) p.params.erase("block_arrays");
  const Finding f = test::analyze(t, "tlb_scope");
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("layout.array per_block") != std::string::npos);
}

TEST_CASE("tlb_scope: a point whose block 0 ran on another SM than alone is not read against itself") {
  TraceSet t = scope_sweep(false);
  for (auto& s : t.points[1].samples)  // the two-SM point: block 0 moved to SM 7
    if (s.thread % 2 == 0) s.sm_id = 7;
  const Finding f = test::analyze(t, "tlb_scope");
  INFO(f.to_json().dump());
  // The eight-SM point is read: private up to 8.
  CHECK(f.value == "sm");
  CHECK(f.details["private_up_to_sms"] == 8);
  CHECK(f.evidence["points_not_read"][0].get<std::string>().find("block 0 ran on SM 7") != std::string::npos);
  // Every point of several SMs moved: nothing to read.
  for (auto& s : t.points[0].samples)
    if (s.thread % 8 == 0) s.sm_id = 7;
  const Finding none = test::analyze(t, "tlb_scope");
  CHECK(none.value.is_null());
  CHECK(test::reason(none).find("no point of several SMs") != std::string::npos);
}

TEST_CASE("tlb_scope: eight SMs running out with the two-SM point unread is no claim of a level every SM shares") {
  TraceSet t = scope_sweep(true);
  for (auto& s : t.points[1].samples)  // the two-SM point: block 0 moved to SM 7
    if (s.thread % 2 == 0) s.sm_id = 7;
  const Finding f = test::analyze(t, "tlb_scope");
  CHECK(f.value.is_null());
  CHECK(test::reason(f).find("not told apart") != std::string::npos);
}

TEST_CASE("tlb_scope: a level shared by pairs of SMs is private to 2 chasing SMs on other pairs, shared by 8") {
  // Pairs (0, 1), (2, 3), ...: the two-SM point ran on SMs 0 and 2, the eight-SM point on 0..7.
  TraceSet t;
  auto pair_point = [&](std::uint32_t blocks, std::uint64_t slots, std::uint32_t seed, bool spread) {
    PointTrace p = scope_point(t.points.size(), blocks, slots, 16, false, seed);
    if (spread) {  // block b on SM 2b: no two in a pair, each SM its own level
      for (auto& s : p.samples) s.sm_id = static_cast<std::int32_t>(2 * s.thread);
      return p;
    }
    // blocks 2k and 2k+1 share a level: rebuild with one LRU per pair
    PointTrace q = scope_point(t.points.size(), 2, slots, 16, true, seed);
    p.samples.clear();
    for (std::uint32_t pair = 0; pair < blocks / 2; ++pair)
      for (auto s : q.samples) {
        s.thread = 2 * pair + s.thread;
        s.sm_id = static_cast<std::int32_t>(s.thread);
        p.samples.push_back(s);
      }
    return p;
  };
  t.points.push_back(pair_point(8, 12, 2, false));
  t.points.push_back(pair_point(2, 12, 3, true));
  t.points.push_back(scope_point(t.points.size(), 1, 12, 16, false, 4));
  t.points.push_back(scope_point(t.points.size(), 1, 32, 16, false, 5));
  const Finding f = test::analyze(t, "tlb_scope");
  INFO(f.to_json().dump());
  CHECK(f.value == "group");
  CHECK(f.details["private_up_to_sms"] == 2);
  CHECK(f.details["shared_from_sms"] == 8);
}
