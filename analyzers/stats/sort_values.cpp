#include "analyzers/stats/sort_values.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

namespace dissect::stats {
namespace {

// Below this many values std::sort is as fast as anything here.
constexpr std::size_t kShort = 2048;

// The bits of a double as an unsigned key in the same order (finite values, -0 excluded):
// negatives have every bit flipped, positives the sign bit set.
std::uint64_t order_key(double v) {
  const auto b = std::bit_cast<std::uint64_t>(v);
  return (b >> 63) != 0 ? ~b : b | (1ull << 63);
}

double from_key(std::uint64_t k) {
  return std::bit_cast<double>((k >> 63) != 0 ? k & ~(1ull << 63) : ~k);
}

// Counting through an open-addressing table of distinct values; false (values untouched)
// when there are more than `max_distinct`.
bool counting_sort(std::vector<double>& v, std::size_t max_distinct) {
  std::size_t capacity = 64;
  while (capacity < 2 * max_distinct) capacity *= 2;
  const std::size_t mask = capacity - 1;
  std::vector<std::uint64_t> keys(capacity, 0);  // 0: empty (no finite value has key 0)
  std::vector<std::size_t> counts(capacity, 0);
  std::size_t distinct = 0;
  for (const double x : v) {
    const std::uint64_t k = order_key(x);
    std::size_t h = static_cast<std::size_t>((k * 0x9E3779B97F4A7C15ull) >> 20) & mask;
    while (keys[h] != 0 && keys[h] != k) h = (h + 1) & mask;
    if (keys[h] == 0) {
      if (++distinct > max_distinct) return false;
      keys[h] = k;
    }
    ++counts[h];
  }
  std::vector<std::pair<std::uint64_t, std::size_t>> found;
  found.reserve(distinct);
  for (std::size_t h = 0; h < capacity; ++h)
    if (keys[h] != 0) found.emplace_back(keys[h], counts[h]);
  std::sort(found.begin(), found.end());
  auto out = v.begin();
  for (const auto& [k, n] : found) out = std::fill_n(out, n, from_key(k));
  return true;
}

// LSD radix sort of the keys, 16 bits a pass.
void radix_sort(std::vector<double>& v) {
  const std::size_t n = v.size();
  std::vector<std::uint64_t> a(n), b(n);
  for (std::size_t i = 0; i < n; ++i) a[i] = order_key(v[i]);
  std::vector<std::size_t> count(1u << 16);
  for (int shift = 0; shift < 64; shift += 16) {
    std::fill(count.begin(), count.end(), 0);
    for (const auto k : a) ++count[(k >> shift) & 0xffff];
    if (count[(a.front() >> shift) & 0xffff] == n) continue;  // every key has this digit
    std::size_t sum = 0;
    for (auto& c : count) {
      const std::size_t here = c;
      c = sum;
      sum += here;
    }
    for (const auto k : a) b[count[(k >> shift) & 0xffff]++] = k;
    a.swap(b);
  }
  for (std::size_t i = 0; i < n; ++i) v[i] = from_key(a[i]);
}

}  // namespace

void sort_values(std::vector<double>& v) {
  if (v.size() < kShort) {
    std::sort(v.begin(), v.end());
    return;
  }
  for (const double x : v)
    if (!std::isfinite(x) || (x == 0 && std::signbit(x))) {
      std::sort(v.begin(), v.end());
      return;
    }
  if (counting_sort(v, std::min<std::size_t>(v.size() / 8, 1u << 16))) return;
  radix_sort(v);
}

}  // namespace dissect::stats
