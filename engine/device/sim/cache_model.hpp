#pragma once
// One set-associative cache (or TLB level: a cache whose line is a page) of the
// simulated GPU: set-index functions, replacement policies, sectors, unequal
// set sizes. One flat array, no allocation and no virtual calls per access.
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

  // How prepare() evaluates the linear functions (bits, xor): the same sets as
  // their definitions above, by the cheapest means that applies.
  //   by_kind  from the definition (modulo, blocked, table; or not prepared)
  //   lut      per address byte, the set bits it contributes (8 x 256 entries)
  //   shift    consecutive bits: (addr >> shift) & mask
  //   parity   one xor mask (e.g. two L2 partitions): parity of addr & mask
  //   fold     the masks are xor_fold(2^width, shift), width <= 15: XOR of
  //            the width-bit chunks of addr >> shift
  enum class Eval : std::uint8_t { by_kind, lut, shift, parity, fold };
  Eval eval = Eval::by_kind;
  std::uint32_t eval_shift = 0, eval_width = 0;
  std::uint64_t eval_mask = 0;
  std::vector<std::uint32_t> lut;

  // Chooses the evaluation of the linear (bits, xor) functions; call once after editing.
  void prepare();

  // The cheap evaluations are inlined; the others (and unprepared functions)
  // are a call away, which keeps the simulator's hot loops small.
  [[nodiscard, gnu::always_inline]] std::uint32_t set_of(std::uint64_t addr, std::uint64_t line,
                                                        std::uint32_t sets) const {
    std::uint32_t s;
    if (eval == Eval::parity) s = static_cast<std::uint32_t>(__builtin_parityll(addr & eval_mask));
    else if (eval == Eval::fold) s = fold(addr, eval_shift, eval_width, eval_mask);
    else if (eval == Eval::shift) s = static_cast<std::uint32_t>((addr >> eval_shift) & eval_mask);
    else return set_of_general(addr, line, sets);
    return s < sets ? s : s % sets;  // checked profiles select exactly `sets` sets
  }
  // Any function, prepared or not.
  [[nodiscard, gnu::noinline]] std::uint32_t set_of_general(std::uint64_t addr, std::uint64_t line,
                                                            std::uint32_t sets) const;
  // XOR of the `width`-bit chunks of addr >> shift (0 < width <= 15), masked.
  [[nodiscard, gnu::always_inline]] static std::uint32_t fold(std::uint64_t addr, std::uint32_t shift,
                                                             std::uint32_t width, std::uint64_t mask) {
    std::uint64_t x = addr >> shift;
    std::uint64_t s = x ^ (x >> width) ^ (x >> 2 * width) ^ (x >> 3 * width);  // four chunks cover most addresses...
    x >>= 4 * width;
    if (x != 0) [[unlikely]] s ^= fold_rest(x, width);  // ...the rest, rarely
    return static_cast<std::uint32_t>(s & mask);
  }
  [[nodiscard, gnu::noinline]] static std::uint64_t fold_rest(std::uint64_t x, std::uint32_t width);
  // bits / xor_hash from the definition (no preparation needed).
  [[nodiscard]] std::uint32_t linear_slow(std::uint64_t addr) const;
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
  // Layout: each set is one contiguous block of words (whole host cache lines,
  // or half a line for the smallest):
  //   meta          epoch << 32 | n: ways 0 .. n-1 are valid
  //   fingerprints  one byte per way (a hash of its line), 8 to a word
  //   ways          two words per way: its tag, (line number + 1) << kMaskBits
  //                 | valid-sector mask, and its stamp (the cache's access
  //                 count at the way's last use under lru, at its fill under
  //                 fifo)
  // A lookup compares fingerprints, up to 32 at once, and reads only the ways that
  // match: a hit touches the set's first host cache line and the one of its
  // way. Lines never move: a miss fills way n while the set has a free way,
  // else the way with the oldest stamp (lru, fifo) or a random way; an lru hit
  // only restamps its way. The order of a set's stamps is exactly that of a
  // move-to-front recency list (stamps are 64-bit: they never wrap).
  [[gnu::always_inline]] Outcome access(std::uint64_t addr) {
    const std::uint64_t line = addr >> line_shift_;
    if (line == last_line_) return touch_last(addr);
    return lookup(addr, line, set_of_line(addr, line));
  }
  // The same, the set of the address being known: set_of(addr) of this cache
  // or of one of the same geometry (the partitions of an L2).
  [[gnu::always_inline]] Outcome access(std::uint64_t addr, std::uint32_t set) {
    const std::uint64_t line = addr >> line_shift_;
    if (line == last_line_) return touch_last(addr);
    return lookup(addr, line, set);
  }
  // The address is in the line looked up last (access() needs no set).
  [[nodiscard]] bool is_last(std::uint64_t addr) const { return (addr >> line_shift_) == last_line_; }

  // Larger than the host's caches: prefetch_set() does something.
  [[nodiscard]] bool large() const { return large_; }
  // Hint: an address of `set` will be looked up soon (large caches only:
  // their sets do not stay in the host's caches). No effect on the model.
  [[gnu::always_inline]] void prefetch_set(std::uint32_t set) const {
    if (!large_) return;
    // The set's first host cache line: its meta word and fingerprints. (The
    // line of the way a lookup will read is not known yet.)
    __builtin_prefetch(set_ref(set).block);
  }

  // Whether the address's sector is present (no side effects).
  [[nodiscard]] bool contains(std::uint64_t addr) const;
  // Position in its set of the address's line, or -1 (lru/fifo: 0 = most
  // recently used / filled; random policies: the physical way).
  [[nodiscard]] int way_of(std::uint64_t addr) const;
  [[nodiscard]] std::uint32_t set_of(std::uint64_t addr) const { return set_of_line(addr, addr >> line_shift_); }
  // Physical way filled by the most recent miss under the random policies
  // (-1 before any, and under lru/fifo).
  [[nodiscard]] int last_fill_way() const { return last_fill_way_; }

  // Empties the cache (O(1)) and reseeds the random policies.
  void reset(std::uint64_t seed);

  [[nodiscard]] const CacheGeometry& geometry() const { return g_; }
  [[nodiscard]] std::uint64_t hits() const { return accesses_ - misses_ - sector_misses_; }
  [[nodiscard]] std::uint64_t misses() const { return misses_; }
  [[nodiscard]] std::uint64_t sector_misses() const { return sector_misses_; }

 private:
  static constexpr int kMaskBits = 16;
  static constexpr std::uint64_t kTagBits = ~((1ull << kMaskBits) - 1);
  static constexpr std::uint32_t kNotFound = ~0u;
  static constexpr std::uint64_t kOnes = 0x0101010101010101ull, kHighs = 0x8080808080808080ull;

  // The last line used again: no state but its sectors changes (under lru it
  // is already the newest of its set).
  [[gnu::always_inline]] Outcome touch_last(std::uint64_t addr) {
    const std::uint64_t sbit = 1ull << ((addr >> sector_shift_) & sector_mask_);
    ++accesses_;
    if ((*last_ & sbit) != 0) return Outcome::hit;
    *last_ |= sbit;
    ++sector_misses_;
    return Outcome::sector_miss;
  }
  // Looks `line` up in `set`; fills it on a miss.
  [[gnu::always_inline]] Outcome lookup(std::uint64_t addr, std::uint64_t line, std::uint32_t set) {
    const std::uint64_t sbit = 1ull << ((addr >> sector_shift_) & sector_mask_);
    const SetRef r = set_ref(set);
    const std::uint32_t n = fill_of(r.block);
    const std::uint64_t want = (line + 1) << kMaskBits;
    const std::uint64_t fp = fingerprint(line);
    std::uint32_t w = find(reinterpret_cast<const unsigned char*>(r.block + 1), r.way, n, fp, want);
    last_line_ = line;
    const std::uint64_t stamp = ++accesses_;
    if (w == kNotFound) {
      if (n < r.ways) {
        w = n;  // invalid ways fill first, lowest first
        ++r.block[0];
      } else {
        w = ordered_ ? oldest(r.way, r.ways) : victim(r.ways);
      }
      if (!ordered_) last_fill_way_ = static_cast<int>(w);
      reinterpret_cast<unsigned char*>(r.block + 1)[w] = static_cast<unsigned char>(fp);
      std::uint64_t* const e = r.way + 2 * w;
      e[0] = want | sbit;
      if (ordered_) e[1] = stamp;
      last_ = e;
      ++misses_;
      return Outcome::miss;
    }
    std::uint64_t* const e = r.way + 2 * w;
    if (lru_) e[1] = stamp;
    last_ = e;
    if ((*e & sbit) != 0) return Outcome::hit;
    *e |= sbit;
    ++sector_misses_;
    return Outcome::sector_miss;
  }

  // Where a set lives.
  struct SetRef {
    std::uint64_t* block;  // meta word, then the fingerprints
    std::uint64_t* way;    // way w: way[2w] its tag, way[2w + 1] its stamp
    std::uint32_t ways;
  };

  // Set-index functions that reduce to a few operations, checked first:
  //   shift_mask  modulo (shift 0) or blocked, power-of-two sets and blocks
  //   fold        xor fold onto all the sets
  //   table_mask  table of a power-of-two length
  enum class Fast : std::uint8_t { shift_mask, fold, table_mask, other };
  [[nodiscard, gnu::always_inline]] std::uint32_t set_of_line(std::uint64_t addr, std::uint64_t line) const {
    if (fast_ == Fast::shift_mask) return static_cast<std::uint32_t>((line >> block_shift_) & sets_mask_);
    if (fast_ == Fast::fold) return IndexFunction::fold(addr, g_.index.eval_shift, g_.index.eval_width, sets_mask_);
    if (fast_ == Fast::table_mask) return g_.index.table[line & table_mask_];
    return g_.index.set_of_general(addr, line, sets_);
  }

  // Block layout, in words, of a set of `ways` ways: meta, fingerprints, then
  // two words per way; half a host cache line when that holds it, else whole
  // lines, placed so that a block spans no more lines than it fills. find()
  // reads fingerprints 16 or 32 at a time, past the set's own: the allocation
  // has room (kSlackWords) after the last set.
  static std::uint64_t ways_at(std::uint32_t ways) { return 1 + (ways + 7) / 8; }
  static std::uint64_t block_words(std::uint32_t ways) {
    const std::uint64_t words = ways_at(ways) + 2ull * ways;
    return words <= 4 ? 4 : (words + 7) & ~std::uint64_t{7};
  }
  static constexpr std::uint64_t kSlackWords = 4;
  [[nodiscard, gnu::always_inline]] SetRef set_ref(std::uint32_t set) const {
    if (uniform_ways_ != 0) {  // offsets computed once
      std::uint64_t* const b = blocks_ + static_cast<std::uint64_t>(set) * stride_;
      return {b, b + ways_at_, uniform_ways_};
    }
    std::uint64_t* const b = blocks_ + set_base_[set];
    return {b, b + ways_at(set_ways_[set]), set_ways_[set]};
  }
  // Valid ways of a set (its meta word `b[0]`); a set last used before the latest reset is empty.
  std::uint32_t fill_of(std::uint64_t* b) const {
    std::uint64_t m = b[0];
    if ((m >> 32) != epoch_) {
      m = static_cast<std::uint64_t>(epoch_) << 32;
      b[0] = m;
    }
    return static_cast<std::uint32_t>(m);
  }
  // One byte of the line number's hash: tells the lines of one set apart at a glance.
  static std::uint64_t fingerprint(std::uint64_t line) { return (line * 0x9e3779b97f4a7c15ull) >> 56; }

  // A fingerprint repeated in every byte of a vector.
#if defined(__SSE2__)
  using Pattern = __m128i;
  static Pattern pattern(std::uint64_t fp) { return _mm_set1_epi64x(static_cast<long long>(fp * kOnes)); }
#else
  using Pattern = std::uint64_t;
  static Pattern pattern(std::uint64_t fp) { return fp * kOnes; }
#endif
  // Bit i set: the fingerprint of way i of the 16 at `p` is the pattern's (may
  // flag ways that do not match, or that do not exist: callers mask and confirm).
  [[gnu::always_inline]] static std::uint32_t match16(const unsigned char* p, Pattern pat) {
#if defined(__SSE2__)
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, pat)));
#else
    std::uint32_t m = 0;
    for (int half = 0; half < 2; ++half) {
      std::uint64_t x;
      std::memcpy(&x, p + 8 * half, 8);
      x ^= pat;
      if constexpr (std::endian::native == std::endian::big) x = __builtin_bswap64(x);  // way 0 first
      // Zero bytes of x: exact up to the first one, may flag a few above it.
      const std::uint64_t z = ((x - kOnes) & ~x & kHighs) >> 7;
      m |= static_cast<std::uint32_t>((z * 0x0102040810204080ull) >> 56) << (8 * half);  // byte flags -> bits
    }
    return m;
#endif
  }
  // The way among the first n whose tag is `want`, or kNotFound: compares 16
  // or 32 fingerprints per step (one decision per step whether any way is a
  // candidate) and reads the tags of the candidates only; with one or two
  // ways in use, reads their tags straight away (a shorter chain of loads).
  [[gnu::always_inline]] static std::uint32_t find(const unsigned char* fps, const std::uint64_t* way,
                                                   std::uint32_t n, std::uint64_t fp, std::uint64_t want) {
    if (n <= 2) {
      if (n != 0 && (way[0] & kTagBits) == want) return 0;
      return n == 2 && (way[2] & kTagBits) == want ? 1 : kNotFound;
    }
    const Pattern pat = pattern(fp);
    for (std::uint32_t k = 0; k < n; k += 32) {
      const std::uint32_t left = n - k;
      std::uint32_t m = match16(fps + k, pat);
      if (left > 16) m |= match16(fps + k + 16, pat) << 16;
      m &= left >= 32 ? ~0u : (1u << left) - 1;  // valid ways only
      for (; m != 0; m &= m - 1) {
        const std::uint32_t w = k + static_cast<std::uint32_t>(__builtin_ctz(m));
        if ((way[2 * w] & kTagBits) == want) return w;
      }
    }
    return kNotFound;
  }
  // lru / fifo: the way of a full set with the smallest (oldest) stamp (they
  // are unique). Selects, no branches (the oldest way is anywhere), and two
  // independent chains of them (even and odd ways): half the latency of one.
  [[gnu::noinline]] static std::uint32_t oldest(const std::uint64_t* way, std::uint32_t ways) {
    std::uint64_t min_even = way[1], min_odd = ~0ull;
    std::uint32_t even = 0, odd = 0, w = 1;
    for (; w + 1 < ways; w += 2) {
      const std::uint64_t s_odd = way[2 * w + 1], s_even = way[2 * w + 3];
      odd = s_odd < min_odd ? w : odd;
      min_odd = s_odd < min_odd ? s_odd : min_odd;
      even = s_even < min_even ? w + 1 : even;
      min_even = s_even < min_even ? s_even : min_even;
    }
    if (w < ways) {  // an even number of ways: the last one is odd
      const std::uint64_t s_odd = way[2 * w + 1];
      odd = s_odd < min_odd ? w : odd;
      min_odd = s_odd < min_odd ? s_odd : min_odd;
    }
    return min_odd < min_even ? odd : even;
  }
  // Random policies: the way to replace in a full set.
  std::uint32_t victim(std::uint32_t ways);
  std::uint64_t rng();
  [[nodiscard]] const std::uint64_t* find_entry(std::uint64_t addr, int& way) const;

  struct Free {
    void operator()(void* p) const { std::free(p); }
  };

  CacheGeometry g_;
  std::uint32_t sets_ = 0;
  Fast fast_ = Fast::other;
  std::uint64_t sets_mask_ = 0, table_mask_ = 0;
  std::uint32_t block_shift_ = 0;
  std::uint32_t line_shift_ = 0, sector_shift_ = 0, sector_mask_ = 0;
  bool lru_ = true;      // hits restamp their way
  bool ordered_ = true;  // lru / fifo: victims by stamp
  bool large_ = false;   // larger than the host's caches
  std::uint32_t uniform_ways_ = 0;    // all sets equal: block = set * stride_
  std::uint64_t stride_ = 0, ways_at_ = 0;
  std::vector<std::uint64_t> set_base_;  // unequal sets: word offset of each block
  std::vector<std::uint32_t> set_ways_;
  // The sets, from calloc: the system hands out zeroed pages as they are
  // first touched, so a large cache costs nothing for the sets a run never
  // uses (a zero meta word is an empty set). blocks_ is 64-byte aligned in it.
  std::unique_ptr<void, Free> storage_;
  std::uint64_t* blocks_ = nullptr;
  std::vector<std::uint64_t> cumulative_;  // weighted_random
  std::vector<std::uint32_t> pick_;        // weighted_random: way of each draw in [0, total)
  std::uint32_t epoch_ = 1;
  std::uint64_t rng_state_ = 0;
  std::uint64_t last_line_ = ~0ull;
  std::uint64_t* last_ = nullptr;
  int last_fill_way_ = -1;
  // Accesses since the last reset; also the clock of the lru / fifo stamps
  // (unique, increasing within an epoch): one counter updated per access.
  std::uint64_t accesses_ = 0, misses_ = 0, sector_misses_ = 0;
};

// splitmix64 step (seeding and hashing helper).
std::uint64_t mix64(std::uint64_t x);

}  // namespace dissect::sim
