#pragma once
// The sequential arrays of one launch group, written on the device by one launch of
// dissect_fill_sequential_batch (kernels_templates/scatter.cuh) instead of one launch
// per array: a per-SM sweep of 128 points had 128 fill launches and a synchronisation
// on its critical path before every measuring launch. Pure host code (no driver
// calls), so that the descriptor packing and the kernel's index arithmetic (mirrored
// by fill_batch_reference) are tested without a GPU.
#include <cstdint>
#include <span>
#include <vector>

#include "engine/device/cuda/template_abi.hpp"

namespace dissect {

class FillBatch {
 public:
  static constexpr std::uint32_t kThreads = 256;        // threads per block of the fill launch
  static constexpr std::uint32_t kMaxBlocks = 4096;     // as the per-array fill had
  static constexpr std::uint64_t kElemsPerThread = 8;   // fewer blocks for small batches

  // Adds an array of `n` elements of `elem_bytes` (4 or 8) at device address `dst`:
  // element i := (i + s) mod n, s <= n (chase_order.hpp's sequential rule). An empty
  // array (n == 0) is left out: the kernel's search needs every packed array non-empty.
  void add(std::uint64_t dst, std::uint64_t n, std::uint64_t s, std::uint32_t elem_bytes);
  [[nodiscard]] bool empty() const { return descs_.empty(); }
  [[nodiscard]] const std::vector<dissect_fill_desc>& descs() const { return descs_; }
  [[nodiscard]] std::uint32_t count() const { return static_cast<std::uint32_t>(descs_.size()); }
  // Elements of all arrays together (the kernel's `total`).
  [[nodiscard]] std::uint64_t total() const { return total_; }
  // Blocks of kThreads for the launch: about kElemsPerThread elements per thread, at
  // most kMaxBlocks (the kernel covers any total with any grid).
  [[nodiscard]] std::uint32_t blocks() const;

 private:
  std::vector<dissect_fill_desc> descs_;
  std::uint64_t total_ = 0;
};

// The kernel's loops run on the host, block by block and thread by thread, with each
// descriptor's `dst` taken as a byte offset into `memory`: what the batched fill
// writes for a grid of `blocks` x `threads`. Returns the number of elements written
// (each element of a batch exactly once: total()). For tests.
std::uint64_t fill_batch_reference(const FillBatch& batch, std::uint32_t blocks, std::uint32_t threads,
                                   std::span<unsigned char> memory);

}  // namespace dissect
