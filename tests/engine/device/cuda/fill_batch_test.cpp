// The batched sequential fill (engine/device/cuda/fill_batch.hpp): descriptors packed
// as the CUDA device packs them, run through the host mirror of the kernel's loops,
// give byte for byte the host images of chase_order.hpp (what was uploaded before
// arrays were written on the device), each element written once, nothing between arrays.
#include <doctest/doctest.h>

#include <cstring>
#include <stdexcept>
#include <vector>

#include "engine/device/cuda/array_image.hpp"
#include "engine/device/cuda/fill_batch.hpp"

using namespace dissect;

namespace {

struct Case {
  std::uint64_t size, stride;
  ElementType elem;
};

}  // namespace

TEST_CASE("fill batch: descriptors number the elements one array after the other") {
  FillBatch b;
  CHECK(b.empty());
  b.add(0x1000, 16, 4, 4);
  b.add(0x2000, 0, 0, 4);  // empty: left out
  b.add(0x3000, 5, 5, 8);  // s == n (stride == size): element i holds i
  b.add(0x4000, 7, 3, 4);
  REQUIRE(b.count() == 3);
  CHECK(b.total() == 28);
  const auto& d = b.descs();
  CHECK(d[0].dst == 0x1000);
  CHECK(d[0].first == 0);
  CHECK(d[1].dst == 0x3000);
  CHECK(d[1].first == 16);
  CHECK(d[1].elem_bytes == 8);
  CHECK(d[2].first == 21);
  CHECK(d[2].n == 7);
  CHECK(d[2].s == 3);
  CHECK(b.blocks() == 1);
  CHECK_THROWS_AS(b.add(0, 4, 5, 4), std::invalid_argument);
  CHECK_THROWS_AS(b.add(0, 4, 1, 2), std::invalid_argument);

  FillBatch big;
  big.add(0, 1ull << 30, 1, 4);
  CHECK(big.blocks() == FillBatch::kMaxBlocks);
  FillBatch mid;
  mid.add(0, 128 * 16384, 1, 4);  // a 128-point per-SM sweep of 64 KiB u32 arrays
  CHECK(mid.blocks() == 1024);
}

TEST_CASE("fill batch: the kernel's loops write exactly the host images of chase_order") {
  // Unequal arrays (a per-SM size sweep), both element types, strides that do and do
  // not divide N, s == N, one element.
  const std::vector<Case> cases{{2048, 128, ElementType::u32}, {4096, 24, ElementType::u64},
                                {64, 4, ElementType::u32},     {65536, 512, ElementType::u32},
                                {8, 8, ElementType::u64},      {4, 4, ElementType::u32},
                                {40000, 12, ElementType::u32}, {6144, 6144, ElementType::u64},
                                {262144, 128, ElementType::u32}};
  std::vector<ArrayImage> want;
  FillBatch batch;
  std::vector<std::uint64_t> at;
  std::uint64_t bytes = 64;  // a gap before the first array, and between arrays
  for (const Case& c : cases) {
    ArraySpec a;
    a.size_bytes = c.size;
    a.stride_bytes = c.stride;
    const ArrayImage dev = make_array_image(a, c.elem, {}, true);
    REQUIRE(dev.device_fill);
    want.push_back(make_array_image(a, c.elem, {}, false));
    REQUIRE(want.back().bytes.size() == c.size);
    at.push_back(bytes);
    // As CudaDevice's place_arrays packs them.
    batch.add(bytes, dev.size_bytes / dev.elem_bytes, dev.fill_stride, static_cast<std::uint32_t>(dev.elem_bytes));
    bytes += c.size + 64;
  }
  for (const auto& [blocks, threads] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{
           {batch.blocks(), FillBatch::kThreads}, {1, 256}, {7, 33}, {3000, 32}, {100000, 1}}) {
    CAPTURE(blocks);
    CAPTURE(threads);
    std::vector<unsigned char> mem(bytes, 0xa5);
    CHECK(fill_batch_reference(batch, blocks, threads, mem) == batch.total());
    for (std::size_t i = 0; i < cases.size(); ++i) {
      CAPTURE(i);
      CHECK(std::memcmp(mem.data() + at[i], want[i].bytes.data(), cases[i].size) == 0);
      for (std::uint64_t g = at[i] - 64; g < at[i]; ++g) REQUIRE(mem[g] == 0xa5);  // the gap untouched
    }
  }
}
