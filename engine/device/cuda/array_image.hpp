#pragma once
// Host-side contents of one chased array, built from the shared pattern logic
// (engine/device/chase_order.hpp): element i holds the index of the element
// visited after i. Arrays up to a few tens of MiB (or densely visited ones)
// are copied whole; a huge array that a chase visits sparsely (TLB
// experiments: gigabytes, a few thousand accesses) is described by its visited
// elements only and written on the device by the scatter kernel.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/spec/experiment.hpp"

namespace dissect {

struct ArrayImage {
  std::uint64_t size_bytes = 0;
  std::uint64_t elem_bytes = 4;
  std::uint64_t start_offset = 0;  // bytes: where a pass starts
  std::uint64_t pass_length = 1;   // accesses per pass
  bool dense = true;
  Frames frames = Frames::contiguous;  // ArraySpec::frames: what backs the pages
  // Dense sequential arrays can be written on the device instead (no host image, no
  // copy): element i = (i + fill_stride) mod n, the rule of chase_order.hpp.
  bool device_fill = false;
  std::uint64_t fill_stride = 0;                    // elements
  // Placed but never written: the kernel does not use the contents, and writing them
  // would disturb the measurement (a store kernel's array; an array read from DRAM,
  // which a write just before would leave as an L2 of dirty lines to write back).
  bool unwritten = false;
  std::vector<unsigned char> bytes;                 // dense: the whole array
  std::vector<std::uint64_t> offsets, values;       // sparse: byte offsets and element values
};

// Dense when the array, in contiguous frames, is at most `dense_limit` bytes, or a
// pass visits at least 1/8 of its elements (aliased or scattered frames: only then).
// `extra_starts` (byte offsets where chasers start) are written too in sparse images. Throws RunError for arrays a chase cannot
// express (e.g. element indices beyond u32 for u32 elements). With `device_fill`,
// a dense sequential array gets no host image (the device writes it).
ArrayImage make_array_image(const ArraySpec& array, ElementType element, std::span<const std::uint64_t> extra_starts,
                            bool device_fill = false, std::uint64_t dense_limit = 64ull << 20);

}  // namespace dissect
