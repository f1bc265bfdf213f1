#include "engine/device/chase_order.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <set>

using namespace dissect;

namespace {
ArraySpec array(std::uint64_t size, std::uint64_t stride, Pattern p = Pattern::sequential) {
  ArraySpec a;
  a.size_bytes = size;
  a.stride_bytes = stride;
  a.pattern = p;
  return a;
}
}  // namespace

TEST_CASE("sequential: Mei's (i + s) mod N, wrapping, one pass = N / gcd(N, s) loads") {
  // N = 10 elements, s = 4 elements (u32): 0, 4, 8, 2, 6, then back to 0.
  const ChaseOrder o(array(40, 16), 4);
  CHECK(o.pass_length() == 5);
  CHECK(o.pass() == std::vector<std::uint64_t>{0, 16, 32, 8, 24});
  CHECK(o.next(32) == 8);
  std::vector<std::uint32_t> next(10);
  o.fill(std::span<std::uint32_t>(next));
  CHECK(next == std::vector<std::uint32_t>{4, 5, 6, 7, 8, 9, 0, 1, 2, 3});
  // The walker repeats the pass.
  ChaseWalker w(o, 0);
  for (std::uint64_t i = 0; i < 12; ++i) CHECK(w.next() == o.pass()[i % 5]);
  // Stage 1 of Mei's texture test: N = 3073 elements, s = 1: one pass = 3073 loads.
  CHECK(ChaseOrder(array(3073 * 4, 4), 4).pass_length() == 3073);
}

TEST_CASE("sequential: a start offset and a chaser offset") {
  ArraySpec a = array(64, 8);
  a.offset_bytes = 16;
  const ChaseOrder o(a, 4);
  CHECK(o.start() == 16);
  CHECK(o.pass().front() == 16);
  Experiment e;
  e.array = a;
  e.layout.thread_offset_bytes = 24;
  CHECK(chaser_start_offset(e, 0) == 16);
  CHECK(chaser_start_offset(e, 1) == 40);
  CHECK(chaser_start_offset(e, 2) == 0);  // (16 + 48) mod 64
}

TEST_CASE("random: Sattolo gives one cycle through every slot, reproducible per seed") {
  ArraySpec a = array(4096, 64, Pattern::random);
  a.seed = 3;
  const ChaseOrder o(a, 4);
  REQUIRE(o.pass_length() == 64);
  const auto pass = o.pass();
  CHECK(pass.front() == 0);
  std::set<std::uint64_t> seen(pass.begin(), pass.end());
  CHECK(seen.size() == 64);
  for (auto off : pass) CHECK(off % 64 == 0);
  // Following the host array visits the same cycle and returns to the start.
  std::vector<std::uint32_t> next(1024);
  o.fill(std::span<std::uint32_t>(next));
  std::uint64_t j = 0;
  for (std::size_t i = 0; i < pass.size(); ++i) {
    CHECK(j * 4 == pass[i]);
    j = next[j];
  }
  CHECK(j == 0);
  // Not the sequential order, the same for the same seed, another for another seed.
  CHECK(pass != ChaseOrder(array(4096, 64), 4).pass());
  CHECK(pass == ChaseOrder(a, 4).pass());
  a.seed = 4;
  CHECK(pass != ChaseOrder(a, 4).pass());
}

TEST_CASE("list: the given offsets in order; revisits with another successor cannot be an array") {
  ArraySpec a = array(1024, 4, Pattern::list);
  a.indices_bytes = {512, 0, 128};
  const ChaseOrder o(a, 4);
  CHECK(o.start() == 512);
  CHECK(o.pass() == std::vector<std::uint64_t>{512, 0, 128});
  std::vector<std::uint64_t> next(256);
  o.fill(std::span<std::uint64_t>(next));
  CHECK(next[128] == 0);
  CHECK(next[0] == 32);
  CHECK(next[32] == 128);
  CHECK(next[5] == 128);  // off the cycle: back to its start
  a.indices_bytes = {0, 64, 0, 128};
  const ChaseOrder r(a, 4);
  std::string why;
  CHECK_FALSE(r.representable(&why));
  CHECK(why.find("offset 0 B twice") != std::string::npos);
  CHECK_THROWS(r.fill(std::span<std::uint64_t>(next)));
  // The walker still follows the list exactly (the simulator can run it).
  ChaseWalker w(r, 0);
  CHECK(w.next() == 0);
  CHECK(w.next() == 64);
  CHECK(w.next() == 0);
  CHECK(w.next() == 128);
}

TEST_CASE("page_strided: page j at offset (j * s) mod page") {
  ArraySpec a = array(8 * 4096, 64, Pattern::page_strided);
  a.page_bytes = 4096;
  const ChaseOrder o(a, 4);
  CHECK(o.pass_length() == 8);
  CHECK(o.pass() == std::vector<std::uint64_t>{0, 4096 + 64, 8192 + 128, 12288 + 192, 16384 + 256, 20480 + 320,
                                               24576 + 384, 28672 + 448});
}

TEST_CASE("page_random: one access per page, at a random stride-aligned place, fixed by the seed") {
  ArraySpec a = array(64 * 256, 4, Pattern::page_random);
  a.page_bytes = 256;
  a.seed = 5;
  const ChaseOrder o(a, 4);
  REQUIRE(o.pass_length() == 64);
  const auto pass = o.pass();
  std::set<std::uint64_t> within;
  for (std::size_t j = 0; j < pass.size(); ++j) {
    CHECK(pass[j] / 256 == j);  // page j, in order
    CHECK(pass[j] % 4 == 0);
    within.insert(pass[j] % 256);
  }
  CHECK(within.size() > 32);  // the place varies from page to page
  CHECK(ChaseOrder(a, 4).pass() == pass);
  a.seed = 6;
  CHECK(ChaseOrder(a, 4).pass() != pass);
  // Two lines of 128 B per page: both halves are picked.
  std::size_t upper = 0;
  for (auto off : pass) upper += off % 256 >= 128 ? 1 : 0;
  CHECK(upper > 16);
  CHECK(upper < 48);
  // The array the kernel chases (j = A[j], from the offset) visits every page:
  // element 0 is not on the cycle unless the first page's draw is 0, so it
  // must lead to the cycle's start rather than to itself.
  std::vector<std::uint32_t> next(a.size_bytes / 4);
  o.fill(std::span<std::uint32_t>(next));
  std::set<std::uint64_t> pages;
  std::uint32_t j = 0;
  for (int k = 0; k < 200; ++k) {
    j = next[j];
    pages.insert(j * 4 / 256);
  }
  CHECK(pages.size() == 64);
  a.stride_bytes = 512;
  CHECK_THROWS(ChaseOrder(a, 4));
}

TEST_CASE("a walker started off the cycle joins it after one load") {
  ArraySpec a = array(1024, 256, Pattern::page_strided);
  a.page_bytes = 256;
  a.stride_bytes = 4;
  const ChaseOrder o(a, 4);
  ChaseWalker w(o, 8);
  CHECK(w.next() == 8);
  CHECK(w.next() == o.start());
}

TEST_CASE("invalid arrays are refused") {
  CHECK_THROWS(ChaseOrder(array(0, 4), 4));
  ArraySpec a = array(64, 4);
  a.offset_bytes = 64;
  CHECK_THROWS(ChaseOrder(a, 4));
  CHECK_THROWS(ChaseOrder(array(64, 0, Pattern::random), 4));
  std::vector<std::uint32_t> small(3);
  CHECK_THROWS(ChaseOrder(array(64, 4), 4).fill(std::span<std::uint32_t>(small)));
}

TEST_CASE("per_block copies: packed on lines below 2 MiB, on 2 MiB boundaries from there, or as the spec says") {
  // One after the other: B copies fill B x N bytes, whatever N is (no power of two).
  CHECK(per_block_array_stride(264 * 1024) == 264 * 1024);
  CHECK(per_block_array_stride(1000) == 1024);
  CHECK(per_block_array_stride(1) == 128);
  // From 2 MiB up, each copy in 2 MiB pages of its own.
  CHECK(per_block_array_stride(2ull << 20) == 2ull << 20);
  CHECK(per_block_array_stride((2ull << 20) + 1) == 4ull << 20);
  CHECK(per_block_array_stride((176ull << 20) + 32) == 178ull << 20);
  Experiment e;
  e.array.size_bytes = 264 * 1024;
  CHECK(per_block_array_stride(e) == 264 * 1024);
  e.layout.copy_stride_bytes = 512 * 1024;
  CHECK(per_block_array_stride(e) == 512 * 1024);
}
