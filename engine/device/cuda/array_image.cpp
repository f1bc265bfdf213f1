#include "engine/device/cuda/array_image.hpp"

#include <cstring>
#include <numeric>
#include <stdexcept>

#include "engine/core/diagnostics.hpp"
#include "engine/device/chase_order.hpp"

namespace dissect {

ArrayImage make_array_image(const ArraySpec& array, ElementType element, std::span<const std::uint64_t> extra_starts,
                            bool device_fill, std::uint64_t dense_limit) {
  ArrayImage img;
  img.elem_bytes = element_bytes(element);
  img.size_bytes = array.size_bytes;
  img.frames = array.frames;
  try {
    const ChaseOrder order(array, img.elem_bytes);
    std::string why;
    if (!order.representable(&why)) throw std::invalid_argument(why);
    img.start_offset = order.start();
    img.pass_length = order.pass_length();
    const std::uint64_t n = array.size_bytes / img.elem_bytes;
    if (element == ElementType::u32 && n - 1 > 0xffffffffull)
      throw std::invalid_argument("more than 2^32 elements: use element u64");
    // Frames other than contiguous serve TLB experiments: a few slots far apart, where a
    // whole image would cost a fill and an upload of every element for nothing.
    img.dense = (array.size_bytes <= dense_limit && array.frames == Frames::contiguous) || img.pass_length >= n / 8;
    if (img.dense && device_fill && order.pattern() == Pattern::sequential) {
      img.device_fill = true;
      img.fill_stride = array.stride_bytes / img.elem_bytes;
      return img;
    }
    if (img.dense) {
      img.bytes.resize(n * img.elem_bytes);
      if (element == ElementType::u32)
        order.fill(std::span<std::uint32_t>(reinterpret_cast<std::uint32_t*>(img.bytes.data()), n));
      else
        order.fill(std::span<std::uint64_t>(reinterpret_cast<std::uint64_t*>(img.bytes.data()), n));
      return img;
    }
    const std::vector<std::uint64_t> pass = order.pass();
    img.offsets.reserve(pass.size() + extra_starts.size());
    img.values.reserve(pass.size() + extra_starts.size());
    for (std::size_t k = 0; k < pass.size(); ++k) {
      img.offsets.push_back(pass[k]);
      img.values.push_back(pass[k + 1 == pass.size() ? 0 : k + 1] / img.elem_bytes);
    }
    for (const std::uint64_t s : extra_starts) {
      if (s == img.start_offset) continue;
      if (order.pattern() == Pattern::sequential &&
          (s + array.size_bytes - img.start_offset) % std::gcd(array.size_bytes, array.stride_bytes) != 0)
        throw std::invalid_argument("a chaser starts off the sequential cycle of a sparsely written array; use "
                                    "a thread_offset that is a multiple of the stride");
      img.offsets.push_back(s / img.elem_bytes * img.elem_bytes);
      img.values.push_back(order.next(s) / img.elem_bytes);
    }
  } catch (const std::invalid_argument& e) {
    throw RunError(std::string("cannot prepare the array: ") + e.what());
  }
  return img;
}

}  // namespace dissect
