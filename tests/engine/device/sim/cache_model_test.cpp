#include "engine/device/sim/cache_model.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <array>
#include <map>
#include <random>

using namespace dissect::sim;
using Outcome = CacheModel::Outcome;

namespace {

CacheGeometry geometry(std::uint64_t line, std::vector<std::uint32_t> set_ways, IndexFunction index = {},
                       Replacement rep = {}) {
  CacheGeometry g;
  g.line_bytes = line;
  g.sector_bytes = line;
  g.set_ways = std::move(set_ways);
  g.index = std::move(index);
  g.replacement = std::move(rep);
  return g;
}

IndexFunction blocked(std::uint64_t k) {
  IndexFunction f;
  f.kind = IndexFunction::Kind::blocked;
  f.block_lines = k;
  return f;
}

}  // namespace

TEST_CASE("index modulo: consecutive lines go to consecutive sets") {
  CacheModel c(geometry(64, {2, 2, 2, 2}), 1);
  CHECK(c.set_of(0) == 0);
  CHECK(c.set_of(63) == 0);
  CHECK(c.set_of(64) == 1);
  CHECK(c.set_of(3 * 64) == 3);
  CHECK(c.set_of(4 * 64) == 0);
  CHECK(c.set_of(13 * 64 + 5) == 1);
}

TEST_CASE("index modulo with a set count that is not a power of two (C2070 L2: 1792 sets)") {
  CacheModel c(geometry(32, std::vector<std::uint32_t>(1792, 1)), 1);
  CHECK(c.set_of(1791 * 32) == 1791);
  CHECK(c.set_of(1792 * 32) == 0);
  CHECK(c.set_of(2000 * 32) == 208);
}

TEST_CASE("index blocked: k consecutive lines per set (Fermi texture L1: 4 lines of 32 B, 4 sets)") {
  CacheModel c(geometry(32, {96, 96, 96, 96}, blocked(4)), 1);
  // Mei & Chu, NPC 2014 Fig. 12: 128 successive bytes map to one set, the next 128 B to the next.
  for (std::uint64_t a : {0ull, 32ull, 64ull, 96ull, 127ull}) CHECK(c.set_of(a) == 0);
  CHECK(c.set_of(128) == 1);
  CHECK(c.set_of(256) == 2);
  CHECK(c.set_of(384) == 3);
  CHECK(c.set_of(512) == 0);
  // Element 1024 (u32) = byte 4096 = line 128: set (128 / 4) mod 4 = 0; element 1056 = line 132: set 1.
  CHECK(c.set_of(1024 * 4) == 0);
  CHECK(c.set_of(1056 * 4) == 1);
}

TEST_CASE("index bits: the texture L1's bits 7 and 8 select the set, same as blocked 4") {
  IndexFunction bits;
  bits.kind = IndexFunction::Kind::bits;
  bits.bits = {7, 8};
  CacheModel by_bits(geometry(32, {96, 96, 96, 96}, bits), 1);
  CacheModel by_block(geometry(32, {96, 96, 96, 96}, blocked(4)), 1);
  for (std::uint64_t a = 0; a < 8192; a += 32) CHECK(by_bits.set_of(a) == by_block.set_of(a));
  // Bits taken out of order: set bit 0 = address bit 12, set bit 1 = address bit 5.
  IndexFunction odd;
  odd.kind = IndexFunction::Kind::bits;
  odd.bits = {12, 5};
  CacheModel c(geometry(32, {1, 1, 1, 1}, odd), 1);
  CHECK(c.set_of(0) == 0);
  CHECK(c.set_of(4096) == 1);
  CHECK(c.set_of(32) == 2);
  CHECK(c.set_of(4096 + 32) == 3);
}

TEST_CASE("index xor: explicit masks and the fold") {
  IndexFunction x;
  x.kind = IndexFunction::Kind::xor_hash;
  x.xor_masks = {(1ull << 7) | (1ull << 12)};  // one set bit = a7 ^ a12
  CacheModel c(geometry(128, {1, 1}, x), 1);
  CHECK(c.set_of(0) == 0);
  CHECK(c.set_of(128) == 1);
  CHECK(c.set_of(4096) == 1);
  CHECK(c.set_of(4096 + 128) == 0);

  // Fold of the line number onto 2 bits (4 sets, 32 B lines): set = l0^l2^l4.. | (l1^l3^..) << 1.
  CacheModel f(geometry(32, {1, 1, 1, 1}, IndexFunction::xor_fold(4, 5)), 1);
  auto fold = [](std::uint64_t line) {
    std::uint64_t s = 0;
    while (line != 0) {
      s ^= line & 3;
      line >>= 2;
    }
    return s;
  };
  for (std::uint64_t line : {0ull, 1ull, 2ull, 3ull, 4ull, 5ull, 6ull, 17ull, 65535ull, 65536ull, 123457ull})
    CHECK(f.set_of(line * 32) == fold(line));
  // 2 MiB strides (TLB experiments) spread over the sets instead of piling into one.
  std::array<int, 4> seen{};
  for (std::uint64_t j = 0; j < 64; ++j) ++seen[f.set_of(j << 21)];
  for (int n : seen) CHECK(n == 16);
}

TEST_CASE("index functions: every prepared evaluation agrees with the definition") {
  // prepare() picks a shift, a parity, a fold or a byte table; set_of_general()
  // of an unprepared copy evaluates the definition bit by bit.
  std::mt19937_64 rng(3);
  auto check = [&](const IndexFunction& def, std::uint32_t sets) {
    IndexFunction prepared = def;
    prepared.prepare();
    for (int i = 0; i < 2000; ++i) {
      const std::uint64_t a = i % 2 ? rng() : rng() % (1ull << 40);
      REQUIRE(prepared.set_of(a, a >> 7, sets) == def.set_of_general(a, a >> 7, sets));
    }
    return prepared.eval;
  };
  IndexFunction f;
  f.kind = IndexFunction::Kind::bits;
  f.bits = {7, 8, 9};
  CHECK(check(f, 8) == IndexFunction::Eval::shift);
  f.bits = {12, 5, 30};
  CHECK(check(f, 8) == IndexFunction::Eval::lut);
  f = IndexFunction{};
  f.kind = IndexFunction::Kind::xor_hash;
  f.xor_masks = {(1ull << 12) | (1ull << 17) | (1ull << 22) | (1ull << 27) | (1ull << 32)};  // H100 partitions
  CHECK(check(f, 2) == IndexFunction::Eval::parity);
  CHECK(check(IndexFunction::xor_fold(2, 7), 2) == IndexFunction::Eval::parity);  // a one-bit fold is one mask
  for (std::uint32_t w : {2u, 4u, 10u, 13u, 15u}) {
    const IndexFunction fold = IndexFunction::xor_fold(1u << w, 7);
    CHECK(check(fold, 1u << w) == IndexFunction::Eval::fold);
    CHECK(check(fold, (1u << w) - 1) == IndexFunction::Eval::fold);  // fewer sets than selected: modulo
  }
  CHECK(check(IndexFunction::xor_fold(1u << 16, 7), 1u << 16) == IndexFunction::Eval::lut);
  f.xor_masks = {(1ull << 7) | (1ull << 20), (1ull << 8) | (1ull << 33), 1ull << 40};
  CHECK(check(f, 8) == IndexFunction::Eval::lut);
}

TEST_CASE("lru and fifo agree with a move-to-front list, sets of up to 100 ways, unequal sets") {
  // The model keeps lines in place and orders them by stamps; a plain list
  // (front = most recently used / filled) is the definition it must match.
  std::mt19937_64 rng(11);
  for (const bool lru : {true, false}) {
    for (const std::vector<std::uint32_t>& ways :
         {std::vector<std::uint32_t>{1, 1}, {4, 4, 4, 4}, {17, 8, 8, 8, 8, 8, 8}, {33, 33}, {100}, {40, 3, 25}}) {
      Replacement rep;
      rep.kind = lru ? Replacement::Kind::lru : Replacement::Kind::fifo;
      CacheModel c(geometry(64, ways, {}, rep), 1);
      std::vector<std::vector<std::uint64_t>> lists(ways.size());  // lines, front first
      std::uint64_t lines = 0;
      for (auto w : ways) lines += w;
      for (int i = 0; i < 20000; ++i) {
        const std::uint64_t line = rng() % (lines + lines / 2 + 2);
        auto& list = lists[line % ways.size()];
        const auto it = std::find(list.begin(), list.end(), line);
        const bool hit = it != list.end();
        if (hit && lru) {
          list.erase(it);
          list.insert(list.begin(), line);
        } else if (!hit) {
          if (list.size() == ways[line % ways.size()]) list.pop_back();
          list.insert(list.begin(), line);
        }
        REQUIRE((c.access(line * 64) == Outcome::hit) == hit);
        if (i % 97 == 0)
          for (std::size_t s = 0; s < lists.size(); ++s)
            for (std::size_t pos = 0; pos < lists[s].size(); ++pos)
              REQUIRE(c.way_of(lists[s][pos] * 64) == static_cast<int>(pos));
      }
      c.reset(2);  // empty again, in O(1)
      CHECK_FALSE(c.contains(lists[0].front() * 64));
      CHECK(c.access(lists[0].front() * 64) == Outcome::miss);
    }
  }
}

TEST_CASE("index table: explicit line -> set, repeating") {
  IndexFunction t;
  t.kind = IndexFunction::Kind::table;
  t.table = {2, 0, 1};
  CacheModel c(geometry(64, {1, 1, 1}, t), 1);
  CHECK(c.set_of(0) == 2);
  CHECK(c.set_of(64) == 0);
  CHECK(c.set_of(128) == 1);
  CHECK(c.set_of(192) == 2);
  CHECK(c.set_of(4 * 64) == 0);
}

TEST_CASE("unequal sets: each set holds its own number of lines (L2 TLB: 17 + 6 x 8)") {
  CacheModel c(geometry(64, {3, 1}), 1);  // set 0: 3 ways, set 1: 1 way
  // Set 0 holds lines 0, 2, 4 together.
  for (std::uint64_t l : {0, 2, 4}) CHECK(c.access(l * 64) == Outcome::miss);
  for (std::uint64_t l : {0, 2, 4}) CHECK(c.access(l * 64) == Outcome::hit);
  // Set 1 holds one line: 1 and 3 evict each other.
  CHECK(c.access(1 * 64) == Outcome::miss);
  CHECK(c.access(3 * 64) == Outcome::miss);
  CHECK(c.access(1 * 64) == Outcome::miss);
  CHECK(c.access(0) == Outcome::hit);
  CHECK(c.geometry().lines() == 4);
  CHECK(c.geometry().uniform_ways() == 0);
}

TEST_CASE("LRU: the least recently used line is replaced") {
  // One set, two ways: A B A C -> C replaces B (A was used after B).
  CacheModel c(geometry(64, {2}), 1);
  const std::uint64_t A = 0, B = 64, C = 128;
  CHECK(c.access(A) == Outcome::miss);
  CHECK(c.access(B) == Outcome::miss);
  CHECK(c.access(A) == Outcome::hit);
  CHECK(c.access(C) == Outcome::miss);
  CHECK(c.way_of(B) == -1);
  CHECK(c.access(A) == Outcome::hit);
  CHECK(c.access(B) == Outcome::miss);  // replaces C, the LRU now
  CHECK(c.way_of(C) == -1);
  // A cyclic walk over ways + 1 lines misses every time (Mei & Chu's periodic pattern).
  CacheModel d(geometry(64, {4}), 1);
  int misses = 0;
  for (int pass = 0; pass < 3; ++pass)
    for (std::uint64_t l = 0; l < 5; ++l) misses += d.access(l * 64) == Outcome::miss;
  CHECK(misses == 15);
}

TEST_CASE("FIFO: the oldest fill is replaced, use does not matter") {
  Replacement fifo;
  fifo.kind = Replacement::Kind::fifo;
  CacheModel c(geometry(64, {2}, {}, fifo), 1);
  const std::uint64_t A = 0, B = 64, C = 128;
  c.access(A);
  c.access(B);
  CHECK(c.access(A) == Outcome::hit);
  CHECK(c.access(C) == Outcome::miss);  // replaces A, the oldest fill, although A was used last
  CHECK(c.way_of(A) == -1);
  CHECK(c.way_of(B) >= 0);
}

TEST_CASE("random replacement: reproducible for a seed, every way a victim") {
  Replacement rnd;
  rnd.kind = Replacement::Kind::random;
  auto victims = [&](std::uint64_t seed) {
    CacheModel c(geometry(64, {4}, {}, rnd), seed);
    std::vector<int> out;
    for (std::uint64_t l = 0; l < 400; ++l)
      if (c.access(l * 64) == Outcome::miss && l >= 4) out.push_back(c.last_fill_way());
    return out;
  };
  const auto a = victims(7), b = victims(7), other = victims(8);
  CHECK(a == b);
  CHECK(a != other);
  std::array<int, 4> n{};
  for (int w : a) ++n.at(static_cast<std::size_t>(w));
  for (int k : n) CHECK(k > 60);  // ~99 each of 396
}

TEST_CASE("weighted random replacement: Fermi L1 way probabilities 1/6, 1/2, 1/6, 1/6") {
  Replacement w;
  w.kind = Replacement::Kind::weighted_random;
  w.weights = {1, 3, 1, 1};  // Mei et al., NPC 2014 Sec. 4.2
  CacheModel c(geometry(128, {4}, {}, w), 42);
  std::array<double, 4> n{};
  const int kMisses = 60000;
  // Fill the 4 ways first (invalid ways are filled in order), then count victims.
  for (std::uint64_t l = 0; l < 4; ++l) {
    CHECK(c.access(l * 128) == Outcome::miss);
    CHECK(c.last_fill_way() == static_cast<int>(l));
  }
  for (std::uint64_t l = 4; l < 4 + kMisses; ++l) {
    REQUIRE(c.access(l * 128) == Outcome::miss);
    n.at(static_cast<std::size_t>(c.last_fill_way())) += 1;
  }
  CHECK(n[0] / kMisses == doctest::Approx(1.0 / 6).epsilon(0.05));
  CHECK(n[1] / kMisses == doctest::Approx(1.0 / 2).epsilon(0.03));
  CHECK(n[2] / kMisses == doctest::Approx(1.0 / 6).epsilon(0.05));
  CHECK(n[3] / kMisses == doctest::Approx(1.0 / 6).epsilon(0.05));
}

TEST_CASE("sectors: a line is allocated on a miss, its other sectors fetched on demand") {
  CacheGeometry g = geometry(128, {4});
  g.sector_bytes = 32;
  CacheModel c(g, 1);
  CHECK(c.access(0) == Outcome::miss);
  CHECK(c.access(4) == Outcome::hit);          // same sector
  CHECK(c.access(32) == Outcome::sector_miss);  // same line, next sector
  CHECK(c.access(32) == Outcome::hit);
  CHECK(c.access(96) == Outcome::sector_miss);
  CHECK(c.contains(0));
  CHECK_FALSE(c.contains(64));
  CHECK(c.access(64) == Outcome::sector_miss);
  CHECK(c.misses() == 1);
  CHECK(c.sector_misses() == 3);
}

TEST_CASE("reset empties the cache") {
  CacheModel c(geometry(64, {2, 2}), 1);
  c.access(0);
  c.access(64);
  CHECK(c.access(0) == Outcome::hit);
  c.reset(1);
  CHECK_FALSE(c.contains(0));
  CHECK(c.access(0) == Outcome::miss);
  CHECK(c.access(64) == Outcome::miss);
  CHECK(c.access(0) == Outcome::hit);
}

TEST_CASE("bad geometries are refused") {
  CHECK_THROWS(CacheModel(geometry(96, {1}), 1));  // line not a power of two
  CacheGeometry g = geometry(128, {2});
  g.sector_bytes = 2;  // 64 sectors per line
  CHECK_THROWS(CacheModel(g, 1));
  IndexFunction t;
  t.kind = IndexFunction::Kind::table;
  t.table = {0, 5};
  CHECK_THROWS(CacheModel(geometry(64, {1, 1}, t), 1));  // names set 5 of 2
}
