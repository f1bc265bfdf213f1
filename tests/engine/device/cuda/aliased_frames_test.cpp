#include "engine/device/cuda/aliased_frames.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

#include "engine/core/diagnostics.hpp"
#include "engine/device/cuda/array_image.hpp"
#include "engine/device/cuda/array_placement.hpp"

using namespace dissect;

TEST_CASE("aliased_block_bytes: the block, or the range's own size, in whole granules") {
  const std::uint64_t g = 2ull << 20;
  CHECK(aliased_block_bytes(1ull << 40, 1ull << 30, g) == 1ull << 30);
  CHECK(aliased_block_bytes(5ull << 20, 1ull << 30, g) == 6ull << 20);
  CHECK(aliased_block_bytes(1, 1ull << 30, g) == g);
  CHECK(aliased_block_bytes(1ull << 40, 3ull << 20, g) == 4ull << 20);  // a block rounded up to the granule
}

namespace {

LaunchArray chase(std::uint64_t size, std::uint64_t stride) {
  ArraySpec a;
  a.size_bytes = size;
  a.stride_bytes = stride;
  a.pattern = Pattern::random;
  a.seed = 7;
  a.frames = Frames::aliased;
  LaunchArray l;
  l.image = make_array_image(a, ElementType::u64, {});
  l.path = LoadPath::cg;
  return l;
}

}  // namespace

TEST_CASE("check_aliased_words: a power of two plus 32 B keeps every slot on a word of its own") {
  const std::uint64_t block = 1ull << 30;
  // 2048 slots of 256 MiB + 32 B over 512 GiB: 32 B apart in the block.
  const std::vector<LaunchArray> ok{chase(2048 * ((256ull << 20) + 32), (256ull << 20) + 32)};
  REQUIRE_FALSE(ok[0].image.dense);
  CHECK_NOTHROW(check_aliased_words(ok, std::vector<std::uint64_t>{0}, block));
  // 4 GiB apart: every slot is the block's first word.
  const std::vector<LaunchArray> bad{chase(16ull << 30, 4ull << 30)};
  try {
    check_aliased_words(bad, std::vector<std::uint64_t>{0}, block);
    FAIL("slots on one word passed");
  } catch (const RunError& e) {
    CHECK(std::string(e.what()).find("one physical word") != std::string::npos);
  }
  // An array within the block: nothing aliases, whatever it holds.
  const std::vector<LaunchArray> small{chase(8ull << 20, 4096)};
  CHECK_NOTHROW(check_aliased_words(small, std::vector<std::uint64_t>{0}, block));
}
