#include "engine/device/sim/cache_model.hpp"

#include <algorithm>
#include <new>
#include <numeric>
#include <stdexcept>
#include <utility>

namespace dissect::sim {

std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

namespace {
std::uint32_t log2_exact(std::uint64_t v) {
  std::uint32_t s = 0;
  while ((1ull << s) < v) ++s;
  return s;
}
bool is_pow2(std::uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
}  // namespace

const char* to_string(IndexFunction::Kind k) {
  switch (k) {
    case IndexFunction::Kind::modulo: return "modulo";
    case IndexFunction::Kind::blocked: return "blocked";
    case IndexFunction::Kind::bits: return "bits";
    case IndexFunction::Kind::xor_hash: return "xor";
    case IndexFunction::Kind::table: return "table";
  }
  return "?";
}

const char* to_string(Replacement::Kind k) {
  switch (k) {
    case Replacement::Kind::lru: return "lru";
    case Replacement::Kind::fifo: return "fifo";
    case Replacement::Kind::random: return "random";
    case Replacement::Kind::weighted_random: return "weighted_random";
  }
  return "?";
}

std::string IndexFunction::describe() const {
  std::string s = to_string(kind);
  if (kind == Kind::blocked) s += " (" + std::to_string(block_lines) + " consecutive lines per set)";
  if (kind == Kind::bits) {
    s += " [";
    for (std::size_t i = 0; i < bits.size(); ++i) s += (i ? ", " : "") + std::to_string(bits[i]);
    s += "]";
  }
  if (kind == Kind::table) s += " (" + std::to_string(table.size()) + " entries)";
  return s;
}

IndexFunction IndexFunction::xor_fold(std::uint32_t sets, std::uint32_t line_shift) {
  IndexFunction f;
  f.kind = Kind::xor_hash;
  const std::uint32_t w = log2_exact(sets);
  for (std::uint32_t i = 0; i < w; ++i) {
    std::uint64_t m = 0;
    for (std::uint32_t b = line_shift + i; b < 64; b += w) m |= 1ull << b;
    f.xor_masks.push_back(m);
  }
  return f;
}

std::string Replacement::describe() const {
  std::string s = to_string(kind);
  if (kind == Kind::weighted_random) {
    s += " [";
    for (std::size_t i = 0; i < weights.size(); ++i) s += (i ? ", " : "") + std::to_string(weights[i]);
    s += "]";
  }
  return s;
}

std::uint64_t CacheGeometry::lines() const {
  return std::accumulate(set_ways.begin(), set_ways.end(), std::uint64_t{0});
}

std::uint32_t CacheGeometry::uniform_ways() const {
  if (set_ways.empty()) return 0;
  const auto w = set_ways.front();
  return std::all_of(set_ways.begin(), set_ways.end(), [w](std::uint32_t x) { return x == w; }) ? w : 0;
}

CacheGeometry CacheGeometry::uniform(std::uint64_t size_bytes, std::uint64_t line_bytes, std::uint32_t ways) {
  CacheGeometry g;
  g.line_bytes = line_bytes;
  g.sector_bytes = line_bytes;
  const std::uint64_t sets = size_bytes / (line_bytes * ways);
  g.set_ways.assign(sets, ways);
  return g;
}

std::uint32_t IndexFunction::set_of_general(std::uint64_t addr, std::uint64_t line, std::uint32_t sets) const {
  std::uint32_t s = 0;
  switch (eval) {
    case Eval::parity: s = static_cast<std::uint32_t>(__builtin_parityll(addr & eval_mask)); break;
    case Eval::fold: s = fold(addr, eval_shift, eval_width, eval_mask); break;
    case Eval::shift: s = static_cast<std::uint32_t>((addr >> eval_shift) & eval_mask); break;
    case Eval::lut: {
      const std::uint32_t* t = lut.data();
      for (int byte = 0; byte < 8; ++byte) s ^= t[256 * byte + ((addr >> (8 * byte)) & 0xff)];
      break;
    }
    case Eval::by_kind:
      switch (kind) {
        case Kind::modulo: return static_cast<std::uint32_t>(line % sets);
        case Kind::blocked: return static_cast<std::uint32_t>((line / block_lines) % sets);
        case Kind::bits:
        case Kind::xor_hash: s = linear_slow(addr); break;
        case Kind::table: return table[line % table.size()];
      }
      break;
  }
  return s < sets ? s : s % sets;  // checked profiles select exactly `sets` sets
}

std::uint64_t IndexFunction::fold_rest(std::uint64_t x, std::uint32_t width) {
  std::uint64_t s = 0;
  for (; x != 0; x >>= width) s ^= x;
  return s;
}

std::uint32_t IndexFunction::linear_slow(std::uint64_t addr) const {
  std::uint32_t s = 0;
  if (kind == Kind::bits) {
    for (std::size_t i = 0; i < bits.size(); ++i) s |= static_cast<std::uint32_t>((addr >> bits[i]) & 1u) << i;
  } else {
    for (std::size_t i = 0; i < xor_masks.size(); ++i)
      s |= static_cast<std::uint32_t>(__builtin_popcountll(addr & xor_masks[i]) & 1) << i;
  }
  return s;
}

void IndexFunction::prepare() {
  lut.clear();
  eval = Eval::by_kind;
  eval_shift = eval_width = 0;
  eval_mask = 0;
  if (kind != Kind::bits && kind != Kind::xor_hash) return;
  // Consecutive bits (or none): a shift and a mask.
  const std::vector<std::uint64_t> single = [&] {
    std::vector<std::uint64_t> m;  // the function as one mask per set bit
    if (kind == Kind::bits)
      for (auto b : bits) m.push_back(1ull << b);
    else
      m = xor_masks;
    return m;
  }();
  const auto w = static_cast<std::uint32_t>(single.size());
  bool consecutive = w < 32;
  for (std::uint32_t i = 0; consecutive && i < w; ++i)
    consecutive = single[i] == single[0] << i && std::has_single_bit(single[i]);
  if (consecutive) {
    eval = Eval::shift;
    eval_shift = w == 0 ? 0 : static_cast<std::uint32_t>(std::countr_zero(single[0]));
    eval_mask = (1ull << w) - 1;
    return;
  }
  if (kind == Kind::xor_hash && w == 1) {
    eval = Eval::parity;
    eval_mask = single[0];
    return;
  }
  if (kind == Kind::xor_hash && w <= 15 && single[0] != 0) {  // fold() inlines four chunks: shifts below 64
    const auto shift = static_cast<std::uint32_t>(std::countr_zero(single[0]));
    if (xor_fold(1u << w, shift).xor_masks == single) {
      eval = Eval::fold;
      eval_shift = shift;
      eval_width = w;
      eval_mask = (1ull << w) - 1;
      return;
    }
  }
  // Anything else is still linear over GF(2): the set of an address is the XOR
  // of what each of its bytes contributes.
  eval = Eval::lut;
  lut.assign(8 * 256, 0);
  for (int byte = 0; byte < 8; ++byte)
    for (std::uint32_t v = 0; v < 256; ++v)
      lut[static_cast<std::size_t>(byte) * 256 + v] = linear_slow(static_cast<std::uint64_t>(v) << (8 * byte));
}

CacheModel::CacheModel(CacheGeometry geometry, std::uint64_t seed) : g_(std::move(geometry)) {
  if (g_.set_ways.empty()) throw std::invalid_argument("cache with no sets");
  if (!is_pow2(g_.line_bytes) || !is_pow2(g_.sector_bytes) || g_.sector_bytes > g_.line_bytes ||
      g_.line_bytes / g_.sector_bytes > 16)
    throw std::invalid_argument("cache line/sector sizes must be powers of two, at most 16 sectors per line");
  g_.index.prepare();
  sets_ = g_.sets();
  sets_mask_ = sets_ - 1;
  // Index functions that reduce to a few operations.
  const auto& f = g_.index;
  if (is_pow2(sets_) && f.kind == IndexFunction::Kind::modulo) fast_ = Fast::shift_mask;  // block_shift_ 0
  if (is_pow2(sets_) && f.kind == IndexFunction::Kind::blocked && is_pow2(f.block_lines)) {
    fast_ = Fast::shift_mask;
    block_shift_ = log2_exact(f.block_lines);
  }
  if (f.eval == IndexFunction::Eval::fold && sets_ == (1ull << f.eval_width)) fast_ = Fast::fold;
  if (f.kind == IndexFunction::Kind::table && is_pow2(f.table.size())) {
    fast_ = Fast::table_mask;
    table_mask_ = f.table.size() - 1;
  }
  line_shift_ = log2_exact(g_.line_bytes);
  sector_shift_ = log2_exact(g_.sector_bytes);
  sector_mask_ = static_cast<std::uint32_t>(g_.line_bytes / g_.sector_bytes - 1);
  lru_ = g_.replacement.kind == Replacement::Kind::lru;
  ordered_ = lru_ || g_.replacement.kind == Replacement::Kind::fifo;
  set_ways_ = g_.set_ways;
  std::uint64_t lines = 0;
  for (auto w : set_ways_) {
    if (w == 0) throw std::invalid_argument("cache set with zero ways");
    lines += w;
  }
  if (lines >= 0xffffffffull) throw std::invalid_argument("cache with more than 2^32 lines");
  uniform_ways_ = g_.uniform_ways();
  std::uint64_t words = 0;
  if (uniform_ways_ != 0) {
    stride_ = block_words(uniform_ways_);
    ways_at_ = ways_at(uniform_ways_);
    words = stride_ * sets_;
  } else {
    set_base_.resize(sets_);
    for (std::uint32_t s = 0; s < sets_; ++s) {
      const std::uint64_t size = block_words(set_ways_[s]);
      if (size >= 8) words = (words + 7) & ~std::uint64_t{7};  // line-aligned (half-line blocks fit anywhere)
      set_base_[s] = words;
      words += size;
    }
  }
  // Larger than the host's caches: worth a prefetch_set() before a lookup.
  large_ = words * sizeof(std::uint64_t) > (256u << 10);
  words += kSlackWords;
  storage_.reset(std::calloc(words * sizeof(std::uint64_t) + 64, 1));  // zero: epoch 0, every set empty
  if (!storage_) throw std::bad_alloc();
  const auto at = reinterpret_cast<std::uintptr_t>(storage_.get());
  blocks_ = reinterpret_cast<std::uint64_t*>((at + 63) & ~std::uintptr_t{63});
  if (g_.replacement.kind == Replacement::Kind::weighted_random) {
    if (g_.replacement.weights.empty()) throw std::invalid_argument("weighted_random replacement without weights");
    std::uint64_t c = 0;
    for (auto w : g_.replacement.weights) cumulative_.push_back(c += w);
    if (c == 0) throw std::invalid_argument("weighted_random replacement with all weights zero");
    // Small totals (the usual case): the way of each draw, looked up without a search.
    if (c <= 4096)
      for (std::uint64_t r = 0; r < c; ++r) {
        std::uint32_t w = 0;
        while (w + 1 < cumulative_.size() && r >= cumulative_[w]) ++w;
        pick_.push_back(w);
      }
  }
  if (g_.index.kind == IndexFunction::Kind::table) {
    if (g_.index.table.empty()) throw std::invalid_argument("table index function without a table");
    for (auto t : g_.index.table)
      if (t >= sets_) throw std::invalid_argument("table index function names a set that does not exist");
  }
  if (g_.index.kind == IndexFunction::Kind::blocked && g_.index.block_lines == 0)
    throw std::invalid_argument("blocked index function with zero lines per set");
  reset(seed);
}

void CacheModel::reset(std::uint64_t seed) {
  if (++epoch_ == 0) {  // wrapped: forget every set's epoch
    for (std::uint32_t s = 0; s < sets_; ++s) set_ref(s).block[0] = 0;
    epoch_ = 1;
  }
  rng_state_ = mix64(seed ^ 0x5bd1e9955bd1e995ull);
  last_line_ = ~0ull;
  last_ = nullptr;
  last_fill_way_ = -1;
  // Every set is empty: no stamp of the previous epoch is ever compared again.
  accesses_ = misses_ = sector_misses_ = 0;
}

std::uint64_t CacheModel::rng() {
  // xorshift64*: fast, deterministic, good enough for victim choice.
  rng_state_ ^= rng_state_ >> 12;
  rng_state_ ^= rng_state_ << 25;
  rng_state_ ^= rng_state_ >> 27;
  return rng_state_ * 0x2545f4914f6cdd1dull;
}

std::uint32_t CacheModel::victim(std::uint32_t ways) {
  // Random policies, full set: lines keep their physical way.
  std::uint32_t way;
  if (g_.replacement.kind == Replacement::Kind::weighted_random) {
    // r uniform in [0, total): the high half of the draw scaled (no division).
    const std::uint64_t r = ((rng() >> 32) * cumulative_.back()) >> 32;
    std::uint32_t w = 0;
    if (!pick_.empty()) {
      w = pick_[r];
    } else {
      while (w + 1 < cumulative_.size() && r >= cumulative_[w]) ++w;
    }
    way = std::min(w, ways - 1);
  } else {
    way = static_cast<std::uint32_t>(((rng() >> 32) * ways) >> 32);
  }
  return way;
}

const std::uint64_t* CacheModel::find_entry(std::uint64_t addr, int& way) const {
  const std::uint64_t line = addr >> line_shift_;
  way = -1;
  const SetRef r = set_ref(set_of_line(addr, line));
  if ((r.block[0] >> 32) != epoch_) return nullptr;
  const auto n = static_cast<std::uint32_t>(r.block[0]);
  for (std::uint32_t w = 0; w < n; ++w)
    if ((r.way[2 * w] & kTagBits) == (line + 1) << kMaskBits) {
      way = static_cast<int>(w);
      if (ordered_) {  // the position in recency (fill) order: ways with a newer stamp come first
        way = 0;
        for (std::uint32_t v = 0; v < n; ++v) way += r.way[2 * v + 1] > r.way[2 * w + 1] ? 1 : 0;
      }
      return r.way + 2 * w;
    }
  return nullptr;
}

bool CacheModel::contains(std::uint64_t addr) const {
  int way = 0;
  const std::uint64_t* e = find_entry(addr, way);
  return e != nullptr && (*e & (1ull << ((addr >> sector_shift_) & sector_mask_))) != 0;
}

int CacheModel::way_of(std::uint64_t addr) const {
  int way = 0;
  (void)find_entry(addr, way);
  return way;
}

}  // namespace dissect::sim
