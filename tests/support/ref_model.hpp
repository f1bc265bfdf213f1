#pragma once
// A tiny, independent reference model of caches and TLBs for analyzer tests:
// set-associative caches (modulo, blocked or table mapping; unequal sets;
// sectors; LRU, FIFO or weighted-random replacement) and a generator of
// pointer-chase traces with noise, outliers and samples cut short. Written for
// the tests only: it shares no code with the product simulator, so a test
// recovering this model's truth checks the analyzers, not a common quirk.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "engine/trace/trace.hpp"

namespace dissect::test {

struct RefCacheConfig {
  std::uint64_t line = 128;
  std::uint64_t sector = 0;                 // 0: the line (no sectors)
  std::vector<std::uint32_t> set_ways;      // ways of each set
  enum class Map { modulo, blocked, table } map = Map::modulo;
  std::uint64_t block = 1;                  // blocked: consecutive lines per set
  std::vector<std::uint32_t> table;         // table: set of line mod table.size()
  enum class Policy { lru, fifo, weighted } policy = Policy::lru;
  std::vector<double> weights;              // weighted: per way
  std::uint64_t seed = 7;

  static RefCacheConfig uniform(std::uint64_t size, std::uint64_t line, std::uint32_t ways) {
    RefCacheConfig c;
    c.line = line;
    c.set_ways.assign(static_cast<std::size_t>(size / line / ways), ways);
    return c;
  }
  [[nodiscard]] std::uint64_t capacity() const {
    std::uint64_t n = 0;
    for (auto w : set_ways) n += w;
    return n * line;
  }
};

class RefCache {
 public:
  explicit RefCache(RefCacheConfig c) : c_(std::move(c)), rng_(c_.seed) {
    sets_.resize(c_.set_ways.size());
    for (std::size_t s = 0; s < sets_.size(); ++s) sets_[s].resize(c_.set_ways[s]);
  }
  // true on a hit; a miss (or sector miss) fills.
  bool access(std::uint64_t addr) {
    const std::uint64_t line = addr / c_.line;
    const std::uint64_t sector_bytes = c_.sector == 0 ? c_.line : c_.sector;
    const std::uint32_t sector_bit = 1u << ((addr % c_.line) / sector_bytes);
    auto& set = sets_[set_of(line)];
    ++tick_;
    for (auto& e : set)
      if (e.valid && e.line == line) {
        if (c_.policy == RefCacheConfig::Policy::lru) e.used = tick_;
        if (e.sectors & sector_bit) return true;
        e.sectors |= sector_bit;
        return false;
      }
    Entry* victim = nullptr;
    for (auto& e : set)
      if (!e.valid) {
        victim = &e;
        break;
      }
    if (!victim) {
      if (c_.policy == RefCacheConfig::Policy::weighted) {
        double total = 0;
        for (std::size_t w = 0; w < set.size(); ++w) total += weight(w);
        double u = std::uniform_real_distribution<double>(0, total)(rng_);
        std::size_t w = 0;
        while (w + 1 < set.size() && u >= weight(w)) u -= weight(w++);
        victim = &set[w];
      } else {
        victim = &set[0];
        for (auto& e : set)
          if (e.used < victim->used) victim = &e;  // LRU: last use; FIFO: fill time
      }
    }
    victim->valid = true;
    victim->line = line;
    victim->used = tick_;
    victim->sectors = sector_bit;
    return false;
  }

 private:
  struct Entry {
    bool valid = false;
    std::uint64_t line = 0, used = 0;
    std::uint32_t sectors = 0;
  };
  [[nodiscard]] std::size_t set_of(std::uint64_t line) const {
    const std::size_t n = c_.set_ways.size();
    switch (c_.map) {
      case RefCacheConfig::Map::modulo: return static_cast<std::size_t>(line % n);
      case RefCacheConfig::Map::blocked: return static_cast<std::size_t>((line / c_.block) % n);
      case RefCacheConfig::Map::table: return c_.table[line % c_.table.size()];
    }
    return 0;
  }
  [[nodiscard]] double weight(std::size_t w) const { return w < c_.weights.size() ? c_.weights[w] : 1.0; }
  RefCacheConfig c_;
  std::vector<std::vector<Entry>> sets_;
  std::mt19937_64 rng_;
  std::uint64_t tick_ = 0;
};

// Latency of one access: hit, or miss at the next level.
struct RefLatency {
  double hit = 30, miss = 300;
};

// What another tool's trace may look like: jitter, rare outliers, a few
// samples cut short (a near-zero latency), runs that end early.
struct RefNoise {
  double jitter = 0;          // normal, standard deviation in cycles
  double outlier_rate = 0;    // share of samples with a large random delay
  double outlier_min = 2000, outlier_max = 20000;
  double short_rate = 0;      // share of samples cut short (latency 0..3)
  double truncate = 0;        // share of the trailing samples missing
  std::uint64_t seed = 11;
};

struct ChaseSpec {
  std::uint64_t size = 0, stride = 4;
  std::uint64_t iterations = 4096;
  std::uint32_t warm_passes = 1;
  bool with_context = true;   // accesses_per_pass and timer overhead set (a bundle) or not (an import)
  std::uint32_t thread = 0;
  std::uint32_t phase = 0;
};

inline double noisy(double v, std::mt19937_64& rng, const RefNoise& n) {
  std::uniform_real_distribution<double> u(0, 1);
  if (n.short_rate > 0 && u(rng) < n.short_rate) return std::floor(u(rng) * 4);
  if (n.jitter > 0) v += std::normal_distribution<double>(0, n.jitter)(rng);
  if (n.outlier_rate > 0 && u(rng) < n.outlier_rate) v += n.outlier_min + u(rng) * (n.outlier_max - n.outlier_min);
  return std::max(0.0, std::round(v));
}

// Appends the timed samples of a sequential chase through `access` (which
// returns the latency of one access at an array offset) to `p`.
template <class Access>
void append_chase(PointTrace& p, const ChaseSpec& cs, Access&& access, const RefNoise& noise) {
  const std::uint64_t slots = cs.size / cs.stride;
  std::mt19937_64 rng(noise.seed + cs.size * 31 + cs.stride * 7 + cs.thread * 1009 + cs.phase * 13);
  std::uint64_t j = 0;
  for (std::uint64_t k = 0; k < cs.warm_passes * slots; ++k) {
    (void)access(j * cs.stride);
    j = (j + 1) % slots;
  }
  const auto keep = static_cast<std::uint64_t>(std::llround(static_cast<double>(cs.iterations) * (1 - noise.truncate)));
  for (std::uint64_t k = 0; k < cs.iterations; ++k) {
    const std::uint64_t off = j * cs.stride;
    const double lat = access(off);
    if (k < keep) {
      Sample s;
      s.thread = cs.thread;
      s.seq = k;
      s.offset_bytes = off;
      s.latency = noisy(lat, rng, noise);
      s.phase = cs.phase;
      p.samples.push_back(s);
    }
    j = (j + 1) % slots;
  }
}

inline PointTrace make_point(std::size_t id, const ChaseSpec& cs) {
  PointTrace p;
  p.point_id = id;
  p.params["size_bytes"] = std::to_string(cs.size);
  p.params["stride_bytes"] = std::to_string(cs.stride);
  if (cs.with_context) {
    p.params["kernel"] = "pchase";
    p.accesses_per_pass = cs.size / cs.stride;
    p.timer_overhead_cycles = 0;
  }
  return p;
}

// One point of a chase over a fresh cache: hits cost lat.hit, misses lat.miss.
inline PointTrace cache_chase(std::size_t id, const RefCacheConfig& cfg, const ChaseSpec& cs,
                              const RefLatency& lat = {}, const RefNoise& noise = {}) {
  PointTrace p = make_point(id, cs);
  RefCache cache(cfg);
  append_chase(p, cs, [&](std::uint64_t off) { return cache.access(off) ? lat.hit : lat.miss; }, noise);
  return p;
}

// A TLB hierarchy: each level a cache whose line is a page; a miss in level k
// adds penalty[k].
struct RefTlb {
  std::vector<RefCacheConfig> levels;
  std::vector<double> penalty;
  double base = 400;
};

inline PointTrace tlb_chase(std::size_t id, const RefTlb& tlb, const ChaseSpec& cs, const RefNoise& noise = {}) {
  PointTrace p = make_point(id, cs);
  std::vector<RefCache> caches;
  for (const auto& c : tlb.levels) caches.emplace_back(c);
  append_chase(p, cs, [&](std::uint64_t off) {
    double v = tlb.base;
    for (std::size_t k = 0; k < caches.size(); ++k) {
      if (caches[k].access(off)) break;
      v += tlb.penalty[k];
    }
    return v;
  }, noise);
  return p;
}

// The trace import format (size_bytes, stride_bytes, seq, offset_bytes, latency).
inline std::string to_import_csv(const TraceSet& t) {
  std::ostringstream o;
  o << "size_bytes,stride_bytes,seq,offset_bytes,latency\n";
  for (const auto& p : t.points)
    for (const auto& s : p.samples)
      o << p.size_bytes() << ',' << p.stride_bytes() << ',' << s.seq << ',' << s.offset_bytes << ',' << s.latency
        << '\n';
  return o.str();
}

}  // namespace dissect::test
