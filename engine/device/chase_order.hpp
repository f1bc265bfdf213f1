#pragma once
// The order in which a pointer chase visits its array, for every pattern, in
// ONE place: the CUDA backend uses it to prepare the array on the host (the
// "next index" contents a kernel chases with j = A[j]); the simulated GPU uses
// it to generate the same addresses without materialising the array.
//
//   sequential    element i holds (i + s) mod N (Mei & Chu's initialisation);
//                 the chase from `offset` visits offset, offset+s, ... mod N.
//   random        M = floor(N / s) slots at (offset + k*s) mod N, linked into
//                 ONE random cycle by Sattolo's algorithm (seeded by array.seed,
//                 portable generator: same order on every machine).
//   list          array.indices, in order, then back to the first.
//   page_strided  M = floor(N / page) slots, slot j at
//                 (offset + j*page + (j*s mod page)) mod N, visited in order.
//   page_random   M = floor(N / page) slots, slot j at (offset + j*page + r_j*s)
//                 mod N with r_j uniform in [0, page/s) (array.seed), in order.
//
// All offsets are in bytes from the start of the array. Elements that are not
// on the cycle (random, list, page_strided, page_random) point to the cycle's start, so a
// chaser started anywhere joins the cycle after one step.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "engine/spec/experiment.hpp"

namespace dissect {

class ChaseOrder {
 public:
  // Throws std::invalid_argument for an array that cannot be chased (size 0,
  // stride 0 with a pattern that needs it, offsets outside the array).
  ChaseOrder(const ArraySpec& array, std::uint64_t element_bytes);

  [[nodiscard]] Pattern pattern() const { return pattern_; }
  [[nodiscard]] std::uint64_t size_bytes() const { return size_; }
  [[nodiscard]] std::uint64_t element_bytes() const { return elem_; }
  // Byte offset where one pass starts (array.offset, or the first list entry).
  [[nodiscard]] std::uint64_t start() const { return start_; }
  // Accesses in one pass (the cycle length); equals Experiment::accesses_per_pass().
  [[nodiscard]] std::uint64_t pass_length() const { return pass_length_; }
  // One pass, byte offsets in visiting order, starting at start(). For
  // sequential patterns this materialises N/gcd(N,s) offsets: use
  // ChaseWalker for long chases.
  [[nodiscard]] std::vector<std::uint64_t> pass() const;
  // Offset loaded after `offset` by the kernel (A[offset/elem] * elem).
  // For lists that visit an offset twice, the successor of its first visit.
  [[nodiscard]] std::uint64_t next(std::uint64_t offset) const;

  // Whether the array contents can express the order (a list that revisits an
  // offset with two different successors cannot be chased with j = A[j]).
  [[nodiscard]] bool representable(std::string* why = nullptr) const;
  // Host-side array contents: element i holds the ELEMENT index of the element
  // visited after i. `out` must hold size_bytes()/element_bytes() elements.
  // Throws std::invalid_argument when !representable() or an index does not
  // fit the element type.
  void fill(std::span<std::uint32_t> out) const;
  void fill(std::span<std::uint64_t> out) const;

  // Internal table for the non-sequential patterns (visiting order).
  [[nodiscard]] const std::vector<std::uint64_t>& table() const { return table_; }
  [[nodiscard]] std::uint64_t stride_bytes() const { return stride_; }

 private:
  template <typename T>
  void fill_impl(std::span<T> out) const;

  Pattern pattern_;
  std::uint64_t size_ = 0, stride_ = 0, elem_ = 4, start_ = 0, pass_length_ = 1;
  std::vector<std::uint64_t> table_;  // random / list / page_strided: one pass
};

// Walks a chase from any start offset, one load at a time, exactly as the
// kernel would (without materialising sequential passes).
class ChaseWalker {
 public:
  ChaseWalker(const ChaseOrder& order, std::uint64_t start_offset);
  // The offset loaded now; advances to the next one.
  std::uint64_t next() {
    if (table_ == nullptr) {
      const std::uint64_t r = cur_;
      cur_ += stride_;
      if (cur_ >= size_) cur_ -= size_;
      return r;
    }
    if (pos_ == kOff) {  // started outside the cycle: one step to its start
      pos_ = 0;
      return cur_;
    }
    const std::uint64_t r = (*table_)[pos_];
    if (++pos_ == table_->size()) pos_ = 0;
    return r;
  }

 private:
  static constexpr std::size_t kOff = ~std::size_t{0};
  const std::vector<std::uint64_t>* table_ = nullptr;
  std::uint64_t cur_ = 0, stride_ = 0, size_ = 1;
  std::size_t pos_ = 0;
};

// Byte offset where chaser `chaser` starts: (array.offset + chaser *
// layout.thread_offset) mod N. `chaser` is the global chaser index of the
// point: block * layout.chasers.size() + position in layout.chasers. With layout.array
// per_block the block's position is left out (each block chases a copy of its own).
std::uint64_t chaser_start_offset(const Experiment& e, std::uint64_t chaser);
// Same for any array (the phases kernel's named arrays).
std::uint64_t chaser_start_offset(const ArraySpec& array, std::uint64_t thread_offset_bytes, std::uint64_t chaser);

// Where an array of `size_bytes` starts in the CUDA arena: on a boundary of its size
// rounded up to a power of two, from 64 KiB to 2 MiB (placement never splits a small
// array across pages differently from one point to the next, and many small arrays do
// not reserve 2 MiB each).
std::uint64_t array_alignment(std::uint64_t size_bytes);
// layout.array per_block: how far apart the blocks' copies of an array of `size_bytes`
// lie by default, one rule for the CUDA device and the simulated GPU: below 2 MiB one
// after the other, each starting on a line (kCopyStrideAlign), so that B copies fill
// B x N bytes with no gap (neighbouring copies may then share a 2 MiB page); from 2 MiB
// up, on 2 MiB boundaries (each copy in pages of its own: no TLB entry serves two blocks,
// as the TLB steps' copies need). Not a power of two of the size: copies a power of two
// apart put every block's lines on the same offsets of such windows, and a cache whose
// index sees the bits above would crowd them into part of its sets.
std::uint64_t per_block_array_stride(std::uint64_t size_bytes);
// The experiment's: layout.copy_stride where given, else the rule above.
std::uint64_t per_block_array_stride(const Experiment& e);

// Portable 64-bit generator used for Sattolo's shuffle (splitmix64).
std::uint64_t chase_rng_next(std::uint64_t& state);

}  // namespace dissect
