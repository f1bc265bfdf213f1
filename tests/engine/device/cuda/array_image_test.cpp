// Host-side arrays: dense images for ordinary arrays, scatter lists for huge sparse ones.
#include <doctest/doctest.h>

#include <cstring>

#include "engine/core/diagnostics.hpp"
#include "engine/device/cuda/array_image.hpp"

using namespace dissect;

TEST_CASE("a sequential u32 array is Mei's (i + s) mod N") {
  ArraySpec a;
  a.size_bytes = 64;
  a.stride_bytes = 16;
  const ArrayImage img = make_array_image(a, ElementType::u32, {});
  REQUIRE(img.dense);
  REQUIRE(img.bytes.size() == 64);
  std::uint32_t v[16];
  std::memcpy(v, img.bytes.data(), 64);
  CHECK(v[0] == 4);
  CHECK(v[12] == 0);
  CHECK(v[13] == 1);
  CHECK(img.pass_length == 4);
}

TEST_CASE("a random u64 array is one cycle through all slots") {
  ArraySpec a;
  a.size_bytes = 4096;
  a.stride_bytes = 64;
  a.pattern = Pattern::random;
  a.seed = 7;
  const ArrayImage img = make_array_image(a, ElementType::u64, {});
  std::vector<std::uint64_t> v(512);
  std::memcpy(v.data(), img.bytes.data(), 4096);
  std::uint64_t j = 0, steps = 0;
  do {
    CHECK(j % 8 == 0);
    j = v[j];
    ++steps;
  } while (j != 0 && steps < 1000);
  CHECK(steps == 64);
}

TEST_CASE("a huge page-strided array becomes a scatter list of its visited elements") {
  ArraySpec a;
  a.size_bytes = 8ull << 30;
  a.stride_bytes = 128;
  a.page_bytes = 2ull << 20;
  a.pattern = Pattern::page_strided;
  const ArrayImage img = make_array_image(a, ElementType::u32, {});
  CHECK_FALSE(img.dense);
  CHECK(img.bytes.empty());
  CHECK(img.offsets.size() == 4096);
  CHECK(img.offsets[1] == (2ull << 20) + 128);
  CHECK(img.values[0] * 4 == img.offsets[1]);
  CHECK(img.values.back() * 4 == img.offsets[0]);
}

TEST_CASE("a few slots in aliased or scattered frames are a scatter list even in a small array") {
  ArraySpec a;
  a.size_bytes = 16ull << 20;  // under the dense limit
  a.stride_bytes = 4096 + 32;
  a.pattern = Pattern::random;
  const ArrayImage contiguous = make_array_image(a, ElementType::u64, {});
  CHECK(contiguous.dense);  // an ordinary array is copied whole
  for (const Frames f : {Frames::aliased, Frames::scattered}) {
    a.frames = f;
    const ArrayImage img = make_array_image(a, ElementType::u64, {});
    CHECK_FALSE(img.dense);
    CHECK(img.bytes.empty());
    CHECK(img.offsets.size() == img.pass_length);
    // The same cycle as the dense image: each visited element holds the next one's index.
    for (std::size_t k = 0; k < img.offsets.size(); ++k) {
      std::uint64_t v = 0;
      std::memcpy(&v, contiguous.bytes.data() + img.offsets[k], sizeof v);
      CHECK(v == img.values[k]);
    }
  }
  // Visited densely, they stay whole.
  a.stride_bytes = 8;
  CHECK(make_array_image(a, ElementType::u64, {}).dense);
}

TEST_CASE("u32 elements cannot index more than 2^32 elements") {
  ArraySpec a;
  a.size_bytes = 32ull << 30;
  a.stride_bytes = 2ull << 20;
  CHECK_THROWS_AS(make_array_image(a, ElementType::u32, {}), RunError);
}

TEST_CASE("sequential arrays can be left to the device; the constant path keeps host images") {
  ArraySpec a;
  a.size_bytes = 4096;
  a.stride_bytes = 24;
  const ArrayImage img = make_array_image(a, ElementType::u64, {}, true);
  CHECK(img.device_fill);
  CHECK(img.fill_stride == 3);
  CHECK(img.bytes.empty());
  CHECK(img.pass_length == 512);
  a.pattern = Pattern::random;
  CHECK_FALSE(make_array_image(a, ElementType::u64, {}, true).device_fill);
  ArraySpec b;
  b.size_bytes = 4096;
  b.stride_bytes = 64;
  CHECK_FALSE(make_array_image(b, ElementType::u32, {}, false).device_fill);
}
