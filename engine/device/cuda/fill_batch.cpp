#include "engine/device/cuda/fill_batch.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace dissect {

void FillBatch::add(std::uint64_t dst, std::uint64_t n, std::uint64_t s, std::uint32_t elem_bytes) {
  if (n == 0) return;
  if (elem_bytes != 4 && elem_bytes != 8) throw std::invalid_argument("fill batch: elements of 4 or 8 bytes");
  if (s > n) throw std::invalid_argument("fill batch: the stride exceeds the array");
  if (descs_.size() >= 0xffffffffu) throw std::invalid_argument("fill batch: too many arrays");
  dissect_fill_desc d{};
  d.dst = dst;
  d.n = n;
  d.s = s;
  d.first = total_;
  d.elem_bytes = elem_bytes;
  descs_.push_back(d);
  total_ += n;
}

std::uint32_t FillBatch::blocks() const {
  const std::uint64_t per_block = std::uint64_t{kThreads} * kElemsPerThread;
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>((total_ + per_block - 1) / per_block, 1, kMaxBlocks));
}

// Line for line the kernel (kernels_templates/scatter.cuh, dissect_fill_sequential_batch).
std::uint64_t fill_batch_reference(const FillBatch& batch, std::uint32_t blocks, std::uint32_t threads,
                                   std::span<unsigned char> memory) {
  const std::vector<dissect_fill_desc>& descs = batch.descs();
  const std::uint32_t count = batch.count();
  const std::uint64_t total = batch.total();
  std::uint64_t written = 0;
  if (count == 0) return 0;
  for (std::uint32_t bx = 0; bx < blocks; ++bx) {
    for (std::uint32_t tx = 0; tx < threads; ++tx) {
      const std::uint64_t per_block = (total + blocks - 1) / blocks;
      const std::uint64_t begin = bx * per_block;
      const std::uint64_t end = begin + per_block < total ? begin + per_block : total;
      std::uint64_t g = begin + tx;
      if (g >= end) continue;
      std::uint32_t a = 0, hi = count - 1;
      while (a < hi) {
        const std::uint32_t mid = (a + hi + 1) / 2;
        if (descs[mid].first <= g)
          a = mid;
        else
          hi = mid - 1;
      }
      std::uint64_t first = descs[a].first;
      for (;;) {
        const std::uint64_t next = a + 1 < count ? descs[a + 1].first : total;
        const std::uint64_t n = descs[a].n, s = descs[a].s, dst = descs[a].dst;
        const bool u64 = descs[a].elem_bytes == 8;
        for (; g < end && g < next; g += threads) {
          const std::uint64_t i = g - first;
          std::uint64_t v = i + s;
          if (v >= n) v -= n;
          const std::uint64_t at = dst + i * (u64 ? 8 : 4);
          if (at + (u64 ? 8 : 4) > memory.size()) throw std::out_of_range("fill batch reference: write out of range");
          if (u64) {
            std::memcpy(memory.data() + at, &v, 8);
          } else {
            const auto w = static_cast<std::uint32_t>(v);
            std::memcpy(memory.data() + at, &w, 4);
          }
          ++written;
        }
        if (g >= end) break;
        do ++a;
        while (a + 1 < count && descs[a + 1].first <= g);
        first = descs[a].first;
      }
    }
  }
  return written;
}

}  // namespace dissect
