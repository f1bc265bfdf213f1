#pragma once
// One set-associative cache (or TLB level: a cache whose line is a page) of the
// simulated GPU: set-index functions, replacement policies, sectors, unequal
// set sizes. Flat arrays, no allocation and no virtual calls per access.
#include <cstdint>
#include <string>
#include <vector>

namespace dissect::sim {

// Maps an address to a set.
//   modulo   set = line mod sets                    (line = addr / line size)
//   blocked  set = (line / k) mod sets              (k consecutive lines per set:
//                                                    the texture L1's 2D-locality mapping)
//   bits     set bit i = address bit bits[i]        (bit fields, LSB first)
//   xor      set bit i = XOR of the address bits in xor_masks[i]
//   table    set = table[line mod table.size()]     (explicit, e.g. "not bits-defined" mappings)
struct IndexFunction {
  enum class Kind : std::uint8_t { modulo, blocked, bits, xor_hash, table };
  Kind kind = Kind::modulo;
  std::uint64_t block_lines = 1;          // blocked
  std::vector<std::uint32_t> bits;        // bits
  std::vector<std::uint64_t> xor_masks;   // xor
  std::vector<std::uint32_t> table;       // table

  // bits / xor: per address byte, the set bits it contributes (8 x 256), built by prepare().
  std::vector<std::uint32_t> lut;

  // Builds the lookup table of the linear (bits, xor) functions; call once after editing.
  void prepare();

  [[nodiscard]] std::uint32_t set_of(std::uint64_t addr, std::uint64_t line, std::uint32_t sets) const {
    switch (kind) {
      case Kind::modulo: return static_cast<std::uint32_t>(line % sets);
      case Kind::blocked: return static_cast<std::uint32_t>((line / block_lines) % sets);
      case Kind::bits:
      case Kind::xor_hash: {
        std::uint32_t s = 0;
        if (!lut.empty()) {
          const std::uint32_t* t = lut.data();
          s = t[addr & 0xff] ^ t[256 + ((addr >> 8) & 0xff)] ^ t[512 + ((addr >> 16) & 0xff)] ^
              t[768 + ((addr >> 24) & 0xff)] ^ t[1024 + ((addr >> 32) & 0xff)] ^ t[1280 + ((addr >> 40) & 0xff)] ^
              t[1536 + ((addr >> 48) & 0xff)] ^ t[1792 + (addr >> 56)];
        } else if (kind == Kind::bits) {
          for (std::size_t i = 0; i < bits.size(); ++i) s |= static_cast<std::uint32_t>((addr >> bits[i]) & 1u) << i;
        } else {
          for (std::size_t i = 0; i < xor_masks.size(); ++i)
            s |= static_cast<std::uint32_t>(__builtin_popcountll(addr & xor_masks[i]) & 1) << i;
        }
        return s < sets ? s : s % sets;  // checked profiles select exactly `sets` sets
      }
      case Kind::table: return table[line % table.size()];
    }
    return 0;
  }
  [[nodiscard]] std::string describe() const;
  // XOR-fold of the line number onto log2(sets) bits, as explicit masks.
  static IndexFunction xor_fold(std::uint32_t sets, std::uint32_t line_shift);
};

// Chooses the way to replace in a full set.
//   lru              least recently used
//   fifo             oldest fill
//   random           uniform over the ways
//   weighted_random  way w with probability weights[w] / sum (Fermi L1: 1,3,1,1)
// Invalid ways are always filled first (lowest way first).
struct Replacement {
  enum class Kind : std::uint8_t { lru, fifo, random, weighted_random };
  Kind kind = Kind::lru;
  std::vector<std::uint32_t> weights;
  [[nodiscard]] std::string describe() const;
};

const char* to_string(IndexFunction::Kind k);
const char* to_string(Replacement::Kind k);

struct CacheGeometry {
  std::uint64_t line_bytes = 128;    // power of two
  std::uint64_t sector_bytes = 128;  // power of two, divides the line, at most 16 sectors per line
  std::vector<std::uint32_t> set_ways;  // ways of each set (unequal sets allowed)
  IndexFunction index;
  Replacement replacement;

  [[nodiscard]] std::uint32_t sets() const { return static_cast<std::uint32_t>(set_ways.size()); }
  [[nodiscard]] std::uint64_t lines() const;
  [[nodiscard]] std::uint64_t capacity_bytes() const { return lines() * line_bytes; }
  // Ways when all sets are equal, else 0.
  [[nodiscard]] std::uint32_t uniform_ways() const;
  static CacheGeometry uniform(std::uint64_t size_bytes, std::uint64_t line_bytes, std::uint32_t ways);
};

class CacheModel {
 public:
  enum class Outcome : std::uint8_t { hit, sector_miss, miss };

  CacheModel(CacheGeometry geometry, std::uint64_t seed);

  // Looks the address up; on a miss fills it (evicting per the policy), on a
  // sector miss validates the sector. Updates LRU state.
  //
  // Layout: each set's tags (and sector masks) are contiguous. Under lru and
  // fifo a set is kept in recency (fill) order, front first: a hit moves the
  // line to the front (lru), a fill enters at the front and the back line is
  // evicted; everything a lookup touches stays in a few host cache lines.
  // Under the random policies a line keeps its physical way.
  [[gnu::always_inline]] Outcome access(std::uint64_t addr) {
    const std::uint64_t line = addr >> line_shift_;
    const std::uint64_t sbit = 1ull << ((addr >> sector_shift_) & sector_mask_);
    std::uint64_t* e;
    if (line == last_line_) {
      e = last_;  // the last line used: already at the front
    } else {
      const std::uint32_t set = set_of_line(addr, line);
      const std::uint32_t n = fill_of(set);
      std::uint64_t* const first = entries_.data() + base_of(set);
      const std::uint64_t want = (line + 1) << kMaskBits;
      std::uint32_t i = 0;
      while (i < n && (first[i] & kTagBits) != want) ++i;
      if (i == n) {
        e = ordered_ ? fill_front(set, first, n) : first + victim(set, n);
        *e = want | sbit;
        last_line_ = line;
        last_ = e;
        ++misses_;
        return Outcome::miss;
      }
      e = first + i;
      if (lru_ && i != 0) {  // move to the front
        const std::uint64_t v = *e;
        for (std::uint32_t k = i; k > 0; --k) first[k] = first[k - 1];
        first[0] = v;
        e = first;
      }
      last_line_ = line;
      last_ = e;
    }
    if ((*e & sbit) != 0) {
      ++hits_;
      return Outcome::hit;
    }
    *e |= sbit;
    ++sector_misses_;
    return Outcome::sector_miss;
  }

  // Hint: the address will be looked up soon (large caches only: their tags
  // do not stay in the host's caches). No effect on the model.
  void prefetch(std::uint64_t addr) const {
    if (!big_) return;
    const std::uint32_t set = set_of_line(addr, addr >> line_shift_);
    __builtin_prefetch(&meta_[set]);
    const char* p = reinterpret_cast<const char*>(entries_.data() + base_of(set));
    const char* end = p + ways_of(set) * sizeof(std::uint64_t);
    for (; p < end; p += 64) __builtin_prefetch(p);
  }

  // Whether the address's sector is present (no side effects).
  [[nodiscard]] bool contains(std::uint64_t addr) const;
  // Position in its set of the address's line, or -1 (lru/fifo: 0 = most
  // recently used / filled; random policies: the physical way).
  [[nodiscard]] int way_of(std::uint64_t addr) const;
  [[nodiscard]] std::uint32_t set_of(std::uint64_t addr) const { return set_of_line(addr, addr >> line_shift_); }
  // Physical way filled by the most recent miss under the random policies
  // (-1 before any, and under lru/fifo, whose sets are kept in recency order).
  [[nodiscard]] int last_fill_way() const { return last_fill_way_; }

  // Empties the cache (O(1)) and reseeds the random policies.
  void reset(std::uint64_t seed);

  [[nodiscard]] const CacheGeometry& geometry() const { return g_; }
  [[nodiscard]] std::uint64_t hits() const { return hits_; }
  [[nodiscard]] std::uint64_t misses() const { return misses_; }
  [[nodiscard]] std::uint64_t sector_misses() const { return sector_misses_; }

 private:
  // An entry: (line number + 1) << kMaskBits | valid-sector mask; 0 = empty.
  static constexpr int kMaskBits = 16;
  static constexpr std::uint64_t kTagBits = ~((1ull << kMaskBits) - 1);

  [[nodiscard]] std::uint32_t set_of_line(std::uint64_t addr, std::uint64_t line) const {
    switch (fast_) {
      case Fast::mask: return static_cast<std::uint32_t>(line & sets_mask_);
      case Fast::shift_mask: return static_cast<std::uint32_t>((line >> block_shift_) & sets_mask_);
      case Fast::table_mask: return g_.index.table[line & table_mask_];
      case Fast::none: break;
    }
    return g_.index.set_of(addr, line, sets_);
  }
  // Valid entries of a set; a set last used before the latest reset is empty.
  std::uint32_t fill_of(std::uint32_t set) {
    std::uint64_t m = meta_[set];
    if ((m >> 32) != epoch_) {
      m = static_cast<std::uint64_t>(epoch_) << 32;
      meta_[set] = m;
    }
    return static_cast<std::uint32_t>(m);
  }
  [[nodiscard]] std::uint64_t base_of(std::uint32_t set) const {
    return uniform_ways_ != 0 ? static_cast<std::uint64_t>(set) * uniform_ways_ : set_base_[set];
  }
  [[nodiscard]] std::uint32_t ways_of(std::uint32_t set) const {
    return uniform_ways_ != 0 ? uniform_ways_ : set_ways_[set];
  }
  // lru / fifo: a new line enters at the front of the set (the back line is
  // evicted when the set is full); returns the front entry.
  std::uint64_t* fill_front(std::uint32_t set, std::uint64_t* first, std::uint32_t n) {
    const std::uint32_t ways = ways_of(set);
    std::uint32_t keep = n;
    if (n < ways) ++meta_[set];
    else keep = ways - 1;
    for (std::uint32_t k = keep; k > 0; --k) first[k] = first[k - 1];
    return first;
  }
  // Random policies: index of the way to fill within the set (n valid entries).
  std::uint32_t victim(std::uint32_t set, std::uint32_t n);
  std::uint64_t rng();
  [[nodiscard]] const std::uint64_t* find_entry(std::uint64_t addr, std::uint32_t& set, int& way) const;

  enum class Fast : std::uint8_t { none, mask, shift_mask, table_mask };
  CacheGeometry g_;
  std::uint32_t sets_ = 0;
  Fast fast_ = Fast::none;
  std::uint64_t sets_mask_ = 0, table_mask_ = 0;
  std::uint32_t block_shift_ = 0;
  std::uint32_t line_shift_ = 0, sector_shift_ = 0, sector_mask_ = 0;
  bool lru_ = true;      // hits move to the front
  bool ordered_ = true;  // lru / fifo: sets kept in recency (fill) order
  bool big_ = false;     // larger than the host's caches: prefetch() helps
  std::uint32_t uniform_ways_ = 0;           // all sets equal: base = set * ways
  std::vector<std::uint32_t> set_base_, set_ways_;
  std::vector<std::uint64_t> meta_;          // per set: epoch << 32 | valid entries
  std::vector<std::uint64_t> entries_;  // the first (meta_ & 0xffffffff) entries of a set are valid
  std::vector<std::uint64_t> cumulative_;  // weighted_random
  std::uint32_t epoch_ = 1;
  std::uint64_t rng_state_ = 0;
  std::uint64_t last_line_ = ~0ull;
  std::uint64_t* last_ = nullptr;
  int last_fill_way_ = -1;
  std::uint64_t hits_ = 0, misses_ = 0, sector_misses_ = 0;
};

// splitmix64 step (seeding and hashing helper).
std::uint64_t mix64(std::uint64_t x);

}  // namespace dissect::sim
