#include "engine/device/chase_order.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <unordered_map>

namespace dissect {

std::uint64_t chase_rng_next(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

ChaseOrder::ChaseOrder(const ArraySpec& a, std::uint64_t element_bytes)
    : pattern_(a.pattern), size_(a.size_bytes), stride_(a.stride_bytes), elem_(element_bytes) {
  if (elem_ == 0) throw std::invalid_argument("chase: element size is zero");
  if (size_ < elem_) throw std::invalid_argument("chase: the array is smaller than one element");
  if (a.offset_bytes >= size_) throw std::invalid_argument("chase: array.offset is outside the array");
  start_ = a.offset_bytes;
  switch (pattern_) {
    case Pattern::sequential: {
      if (stride_ == 0) throw std::invalid_argument("chase: stride is zero");
      if (stride_ > size_) throw std::invalid_argument("chase: stride is larger than the array");
      pass_length_ = size_ / std::gcd(size_, stride_);
      break;
    }
    case Pattern::random: {
      if (stride_ == 0) throw std::invalid_argument("chase: stride is zero");
      const std::uint64_t m = std::max<std::uint64_t>(1, size_ / stride_);
      if (m > (1ull << 30)) throw std::invalid_argument("chase: random pattern with more than 2^30 slots");
      // Sattolo's algorithm: a uniformly random cyclic permutation (32-bit
      // entries: m <= 2^30, and half the memory to walk).
      std::vector<std::uint32_t> succ(m);
      std::iota(succ.begin(), succ.end(), 0u);
      std::uint64_t state = a.seed;
      for (std::uint64_t i = m - 1; i >= 1; --i) {
        const std::uint64_t j = chase_rng_next(state) % i;  // j in [0, i-1]
        std::swap(succ[i], succ[j]);
      }
      table_.resize(m);
      std::uint32_t k = 0;
      for (std::uint64_t n = 0; n < m; ++n) {
        table_[n] = (start_ + k * stride_) % size_;
        k = succ[k];
      }
      pass_length_ = m;
      break;
    }
    case Pattern::list: {
      if (a.indices_bytes.empty()) throw std::invalid_argument("chase: pattern list without indices");
      for (auto o : a.indices_bytes)
        if (o >= size_) throw std::invalid_argument("chase: list offset " + std::to_string(o) + " is outside the array");
      table_ = a.indices_bytes;
      start_ = table_.front();
      pass_length_ = table_.size();
      break;
    }
    case Pattern::page_strided: {
      if (a.page_bytes == 0) throw std::invalid_argument("chase: pattern page_strided without page");
      const std::uint64_t m = std::max<std::uint64_t>(1, size_ / a.page_bytes);
      if (m > (1ull << 30)) throw std::invalid_argument("chase: page_strided pattern with more than 2^30 pages");
      table_.resize(m);
      for (std::uint64_t j = 0; j < m; ++j)
        table_[j] = (start_ + j * a.page_bytes + (stride_ == 0 ? 0 : (j * stride_) % a.page_bytes)) % size_;
      pass_length_ = m;
      break;
    }
    case Pattern::page_random: {
      if (a.page_bytes == 0) throw std::invalid_argument("chase: pattern page_random without page");
      if (stride_ == 0 || stride_ > a.page_bytes)
        throw std::invalid_argument("chase: page_random needs 0 < stride <= page");
      const std::uint64_t m = std::max<std::uint64_t>(1, size_ / a.page_bytes);
      if (m > (1ull << 30)) throw std::invalid_argument("chase: page_random pattern with more than 2^30 pages");
      // An independent position per page: lines that share a set of a
      // modulo-indexed cache are picked independently (page_strided's
      // rotation repeats with a power-of-two period and would fill only
      // some sets).
      const std::uint64_t slots = a.page_bytes / stride_;
      std::uint64_t state = a.seed;
      table_.resize(m);
      for (std::uint64_t j = 0; j < m; ++j)
        table_[j] = (start_ + j * a.page_bytes + (chase_rng_next(state) % slots) * stride_) % size_;
      // The pass starts at the first page's access, which need not be at the
      // offset: a chaser started at the offset joins the cycle after one load.
      start_ = table_.front();
      pass_length_ = m;
      break;
    }
  }
}

std::vector<std::uint64_t> ChaseOrder::pass() const {
  if (pattern_ != Pattern::sequential) return table_;
  std::vector<std::uint64_t> out;
  out.reserve(pass_length_);
  ChaseWalker w(*this, start_);
  for (std::uint64_t i = 0; i < pass_length_; ++i) out.push_back(w.next());
  return out;
}

std::uint64_t ChaseOrder::next(std::uint64_t offset) const {
  if (pattern_ == Pattern::sequential) {
    const std::uint64_t n = offset + stride_;
    return n >= size_ ? n - size_ : n;
  }
  for (std::size_t i = 0; i < table_.size(); ++i)
    if (table_[i] == offset) return table_[i + 1 == table_.size() ? 0 : i + 1];
  return start_;
}

bool ChaseOrder::representable(std::string* why) const {
  if (pattern_ != Pattern::list) return true;
  std::unordered_map<std::uint64_t, std::uint64_t> succ;
  for (std::size_t i = 0; i < table_.size(); ++i) {
    const std::uint64_t nxt = table_[i + 1 == table_.size() ? 0 : i + 1];
    auto [it, inserted] = succ.emplace(table_[i], nxt);
    if (!inserted && it->second != nxt) {
      if (why != nullptr)
        *why = "array.indices visit offset " + std::to_string(table_[i]) +
               " B twice with different successors; a chase j = A[j] cannot follow that";
      return false;
    }
  }
  return true;
}

template <typename T>
void ChaseOrder::fill_impl(std::span<T> out) const {
  const std::uint64_t n = size_ / elem_;
  if (out.size() != n)
    throw std::invalid_argument("chase: fill() needs " + std::to_string(n) + " elements, got " +
                                std::to_string(out.size()));
  if (n - 1 > std::numeric_limits<T>::max())
    throw std::invalid_argument("chase: " + std::to_string(n) + " elements do not fit the element type's indices");
  std::string why;
  if (!representable(&why)) throw std::invalid_argument("chase: " + why);
  if (pattern_ == Pattern::sequential) {
    const std::uint64_t s = stride_ / elem_;
    // Mei & Chu: A[i] = (i + s) mod N, for every element.
    for (std::uint64_t i = 0; i < n; ++i) {
      const std::uint64_t v = i + s;
      out[i] = static_cast<T>(v >= n ? v - n : v);
    }
    return;
  }
  const T to_start = static_cast<T>(start_ / elem_);
  std::fill(out.begin(), out.end(), to_start);
  for (std::size_t i = 0; i < table_.size(); ++i) {
    const std::uint64_t nxt = table_[i + 1 == table_.size() ? 0 : i + 1];
    out[table_[i] / elem_] = static_cast<T>(nxt / elem_);
  }
}

void ChaseOrder::fill(std::span<std::uint32_t> out) const { fill_impl(out); }
void ChaseOrder::fill(std::span<std::uint64_t> out) const { fill_impl(out); }

ChaseWalker::ChaseWalker(const ChaseOrder& order, std::uint64_t start_offset) {
  if (order.pattern() == Pattern::sequential) {
    cur_ = start_offset % order.size_bytes();
    stride_ = order.stride_bytes();
    size_ = order.size_bytes();
    return;
  }
  table_ = &order.table();
  cur_ = start_offset;
  if (start_offset == order.start()) {
    pos_ = 0;
    return;
  }
  const auto it = std::find(table_->begin(), table_->end(), start_offset);
  pos_ = it == table_->end() ? kOff : static_cast<std::size_t>(it - table_->begin());
}

std::uint64_t chaser_start_offset(const ArraySpec& a, std::uint64_t thread_offset_bytes, std::uint64_t chaser) {
  if (a.size_bytes == 0) return 0;
  const std::uint64_t base =
      a.pattern == Pattern::list && !a.indices_bytes.empty() ? a.indices_bytes.front() : a.offset_bytes;
  // (base + chaser * thread_offset) mod N, without overflow.
  __extension__ typedef unsigned __int128 u128;
  const u128 v = static_cast<u128>(base) + static_cast<u128>(chaser) * thread_offset_bytes;
  return static_cast<std::uint64_t>(v % a.size_bytes);
}

std::uint64_t chaser_start_offset(const Experiment& e, std::uint64_t chaser) {
  // Arrays of their own per block: each block's chasers start as block 0's do, in its copy.
  if (e.layout.array == BlockArrays::per_block && !e.layout.chasers.empty()) chaser %= e.layout.chasers.size();
  return chaser_start_offset(e.array, e.layout.thread_offset_bytes, chaser);
}

std::uint64_t array_alignment(std::uint64_t size_bytes) {
  std::uint64_t align = 64ull << 10;
  while (align < size_bytes && align < (2ull << 20)) align *= 2;
  return align;
}

std::uint64_t per_block_array_stride(std::uint64_t size_bytes) {
  const std::uint64_t align = size_bytes >= (2ull << 20) ? (2ull << 20) : kCopyStrideAlign;
  return (std::max<std::uint64_t>(size_bytes, 1) + align - 1) / align * align;
}

std::uint64_t per_block_array_stride(const Experiment& e) {
  return e.layout.copy_stride_bytes != 0 ? e.layout.copy_stride_bytes : per_block_array_stride(e.array.size_bytes);
}

}  // namespace dissect
