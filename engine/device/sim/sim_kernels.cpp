#include "engine/device/sim/sim_kernels.hpp"

#if defined(__linux__)
#include "engine/core/diagnostics.hpp"
#include <sys/mman.h>
#endif

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <tuple>

#include "engine/spec/point_params.hpp"
#include "engine/device/chase_order.hpp"
#include "engine/device/cuda/template_abi.hpp"  // DISSECT_ON_CHIP_MAX
#include "engine/device/kernel_family.hpp"
#include "engine/device/sim/noise.hpp"

namespace dissect::sim {

std::uint32_t first_sm(const Experiment& e, std::size_t point_id, std::uint32_t sm_count) {
  if (sm_count == 0) return 0;
  return (is_sm_private(e.target) && e.parallel) ? static_cast<std::uint32_t>(point_id % sm_count) : 0u;
}

namespace {

constexpr std::uint64_t kArrayAlign = 2ull << 20;
// Planned loads (see PlannedChase): how far ahead, and the fewest lines of
// the planned cache a chase must touch to be planned.
constexpr unsigned kLookahead = 8;
constexpr std::uint64_t kPlanMinLines = 16384;

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

// Reserves room for n samples. Large traces ask the kernel for huge pages: a
// fresh 4 KiB page per hundred samples otherwise costs as much as simulating them.
void reserve_samples(std::vector<Sample>& v, std::uint64_t n) {
  v.reserve(n);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  const std::uint64_t bytes = n * sizeof(Sample);
  if (bytes >= (8ull << 20)) {
    const auto begin = reinterpret_cast<std::uintptr_t>(v.data());
    const std::uintptr_t lo = (begin + (2u << 20) - 1) & ~std::uintptr_t{(2u << 20) - 1};
    const std::uintptr_t hi = (begin + bytes) & ~std::uintptr_t{(2u << 20) - 1};
    if (hi > lo) ::madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_HUGEPAGE);  // advisory: failure is harmless
  }
#endif
}

using Ctx = KernelContext;

// ---- pchase -----------------------------------------------------------------

// The loads of one chaser, each planned kLookahead loads before it is made
// (MemorySystem::plan: its set in the large cache of the path worked out, the
// host memory of that set prefetched meanwhile; the addresses of a chase do
// not depend on the results).
class PlannedChase {
 public:
  PlannedChase(const MemorySystem& mem, const BoundPath& bp, const ChaseOrder& order, std::uint64_t start,
               std::uint64_t base)
      : mem_(mem), bp_(bp), ahead_(order, start), base_(base) {
    for (auto& p : ring_) p = mem_.plan(bp_, base_ + ahead_.next());
  }
  // The plan of the next load of the chase.
  [[gnu::always_inline]] LoadPlan next() {
    LoadPlan& slot = ring_[i_++ % kLookahead];
    const LoadPlan p = slot;
    slot = mem_.plan(bp_, base_ + ahead_.next());
    return p;
  }

 private:
  const MemorySystem& mem_;
  const BoundPath& bp_;
  ChaseWalker ahead_;
  std::uint64_t base_;
  std::array<LoadPlan, kLookahead> ring_{};
  unsigned i_ = 0;
};

// layout.array per_block: where block b's copy of the array starts, from the array's
// start (as the CUDA device places them: chase_order.hpp).
std::uint64_t block_array_offset(const Experiment& e, std::uint32_t block) {
  return e.layout.array == BlockArrays::per_block ? block * per_block_array_stride(e) : 0;
}

// warmup_by block: every thread of each block loads the slots of one pass, (offset +
// k s) mod N (chase_order.hpp's sequential and random passes), in the order of k, `warmup`
// times, load number q (over all passes) by thread q mod threads, through its warp's
// instance of a cache with several per SM, as the kernel does; the loads overlap, so each
// of the block's chasers is charged the block's cycles over its threads.
template <class Charge>
void warm_by_block(Ctx& c, std::uint64_t pass_length, std::size_t chasers_per_block, Charge charge) {
  const Experiment& e = c.e;
  const std::uint32_t warps = (e.layout.threads + c.prof.warp_size - 1) / c.prof.warp_size;
  const std::uint64_t n = e.array.size_bytes, stride = e.array.stride_bytes % n;
  for (std::uint32_t b = 0; b < e.layout.blocks; ++b) {
    std::vector<BoundPath> by_warp;
    for (std::uint32_t w = 0; w < warps; ++w)
      by_warp.push_back(c.mem.bind(e.path, c.sm_of_block(b), w, e.array.frames, c.prof.address_base));
    const std::uint64_t copy_base = c.prof.address_base + block_array_offset(e, b);
    double cycles = 0;
    std::uint64_t load = 0;  // the kernel's k over all passes: thread k mod threads makes it
    for (std::uint32_t p = 0; p < e.warmup; ++p) {
      std::uint64_t off = e.array.offset_bytes % n;
      for (std::uint64_t k = 0; k < pass_length; ++k, ++load, off = off >= n - stride ? off - (n - stride) : off + stride)
        cycles += c.mem.load(by_warp[(load % e.layout.threads) / c.prof.warp_size], copy_base + off);
    }
    for (std::size_t i = 0; i < chasers_per_block; ++i) charge(b * chasers_per_block + i, cycles / e.layout.threads);
  }
}

void run_pchase(Ctx& c) {
  const Experiment& e = c.e;
  if (e.layout.array == BlockArrays::per_block && e.layout.blocks > c.prof.sm_count)
    throw RunError("layout.blocks " + std::to_string(e.layout.blocks) + " with layout.array per_block: the device has " +
                   std::to_string(c.prof.sm_count) + " SMs, and every block must run on an SM of its own, at once");
  const ChaseOrder order(e.array, e.elem_bytes());
  const std::uint64_t app = order.pass_length();
  const std::size_t nc = e.layout.chasers.size();
  const std::size_t g_count = nc * e.layout.blocks;
  const std::uint64_t base = c.prof.address_base;
  const bool chain = e.timing.mode == TimingMode::chain;
  const bool on_chip = e.timing.mode == TimingMode::on_chip;
  const double overhead = c.prof.timer_overhead;
  // A clock reading as the kernel records it: on_chip keeps whole units, saturating.
  const double unit = e.timing.unit;
  auto recorded = [on_chip, unit](double lat) {
    const double v = Ctx::cycles(lat);
    if (!on_chip) return v;
    const double units = std::min(std::floor(v / unit + 0.5), double{DISSECT_ON_CHIP_MAX});
    return units * unit;
  };

  struct Chaser {
    BoundPath bp;
    std::uint64_t start = 0;
    std::uint64_t copy = 0;  // address of the block's array (layout.array per_block: its copy)
    std::int32_t sm = 0;
    double cycles = 0;
  };
  std::vector<Chaser> ch(g_count);
  for (std::size_t g = 0; g < g_count; ++g) {
    const auto b = static_cast<std::uint32_t>(g / nc);
    const std::uint32_t t = e.layout.chasers[g % nc];
    ch[g].sm = static_cast<std::int32_t>(c.sm_of_block(b));
    ch[g].bp = c.mem.bind(e.path, c.sm_of_block(b), t / c.prof.warp_size, e.array.frames, base);
    ch[g].start = chaser_start_offset(e, g);
    ch[g].copy = base + block_array_offset(e, b);
  }

  // Planning (one chaser) pays when the chase touches more lines of a large
  // simulated cache than the host's caches hold sets of: a random chase over
  // most of an H100 L2, not a walk over a few hundred lines.
  const bool planned = g_count == 1 && ch[0].bp.planned >= 0 &&
                       std::min(app, (e.array.size_bytes >> ch[0].bp.planned_line_shift) + 1) > kPlanMinLines;

  auto& samples = c.out.trace.samples;
  const std::uint64_t per_repeat = chain ? g_count : g_count * e.iterations;
  // One chaser: samples are appended in order (no zero-filling of a large buffer).
  const bool append = g_count == 1 && !chain;
  reserve_samples(samples, per_repeat * e.repeats);
  if (!append) samples.resize(per_repeat * e.repeats);
  double total_cycles = 0;

  for (std::uint32_t r = 0; r < e.repeats; ++r) {
    c.start_launch(r);
    Noise noise(c.prof.noise, c.noise_stream(r));
    std::vector<ChaseWalker> walkers;
    walkers.reserve(g_count);
    for (auto& x : ch) {
      walkers.emplace_back(order, x.start);
      x.cycles = 0;
    }
    std::optional<PlannedChase> plans;
    if (planned) plans.emplace(c.mem, ch[0].bp, order, ch[0].start, base);
    // One chaser: its next load (offset `off`), planned or not.
    ChaseWalker* const walker0 = g_count == 1 ? &walkers[0] : nullptr;
    const BoundPath* const bp0 = g_count == 1 ? &ch[0].bp : nullptr;
    auto load_next = [&](std::uint64_t& off) __attribute__((always_inline)) {
      if (planned) {
        const LoadPlan p = plans->next();
        off = p.vaddr - base;
        return c.mem.load(*bp0, p);
      }
      off = walker0->next();
      return c.mem.load(*bp0, base + off);
    };
    // Warm-up: whole passes, untimed.
    const std::uint64_t warm = static_cast<std::uint64_t>(e.warmup) * app;
    if (e.warmup_by == WarmupBy::block) {
      warm_by_block(c, app, ch.size() / e.layout.blocks, [&](std::size_t g, double cycles) { ch[g].cycles += cycles; });
    } else if (g_count == 1) {
      std::uint64_t off = 0;
      for (std::uint64_t k = 0; k < warm; ++k) ch[0].cycles += load_next(off);
    } else {
      for (std::uint64_t k = 0; k < warm; ++k)
        for (std::size_t g = 0; g < g_count; ++g) ch[g].cycles += c.mem.load(ch[g].bp, ch[g].copy + walkers[g].next());
    }
    // Timed accesses.
    if (append) {
      Chaser& x = ch[0];
      const bool noisy = noise.enabled();
      for (std::uint64_t k = 0; k < e.iterations; ++k) {
        std::uint64_t off = 0;
        double lat = load_next(off) + overhead;
        if (noisy) lat += noise.sample();
        const double v = recorded(lat);
        x.cycles += v;
        // Each launch (repeat) is a chasing stream of its own, numbered as the CUDA device does.
        samples.push_back(Sample{r, k, off, v, x.sm, 0});
      }
      total_cycles += x.cycles;
      continue;
    }
    Sample* out = samples.data() + r * per_repeat;
    std::vector<double> chain_sum(g_count, 0.0);
    for (std::uint64_t k = 0; k < e.iterations; ++k) {
      for (std::size_t g = 0; g < g_count; ++g) {
        std::uint64_t off = 0;
        double lat;
        if (g_count == 1) {
          lat = load_next(off);
        } else {
          off = walkers[g].next();
          lat = c.mem.load(ch[g].bp, ch[g].copy + off);
        }
        lat += noise.sample();
        if (chain) {
          chain_sum[g] += lat;
          ch[g].cycles += lat;
        } else {
          const double v = recorded(lat + overhead);
          ch[g].cycles += v;
          Sample& s = out[g * e.iterations + k];
          s.thread = static_cast<std::uint32_t>(r * g_count + g);  // the stream, as the CUDA device numbers it
          s.seq = k;
          s.offset_bytes = off;
          s.latency = v;
          s.sm_id = ch[g].sm;
        }
      }
    }
    if (chain) {
      for (std::size_t g = 0; g < g_count; ++g) {
        const double total = std::round(chain_sum[g] + overhead);
        Sample& s = out[g];
        s.thread = static_cast<std::uint32_t>(g);
        s.seq = r;
        s.offset_bytes = ch[g].start;
        s.latency = total / static_cast<double>(e.iterations);
        s.sm_id = ch[g].sm;
        ch[g].cycles += overhead;
      }
    }
    double launch = 0;
    for (const auto& x : ch) launch = std::max(launch, x.cycles);
    total_cycles += launch;
  }
  c.out.cycles = total_cycles;
}

// ---- phases -----------------------------------------------------------------

void run_phases(Ctx& c) {
  const Experiment& e = c.e;
  struct Arr {
    const PhaseArray* spec;
    std::unique_ptr<ChaseOrder> order;
    std::uint64_t base;
  };
  std::map<std::string, Arr> arrays;
  std::uint64_t next_base = c.prof.address_base;
  for (const auto& pa : e.arrays) {
    Arr a{&pa, std::make_unique<ChaseOrder>(pa.array, e.elem_bytes()), next_base};
    next_base = align_up(next_base + pa.array.size_bytes, kArrayAlign);
    arrays.emplace(pa.name, std::move(a));
  }
  for (const auto& ph : e.phases)
    if (!arrays.count(ph.array)) throw std::invalid_argument("phases: no array named '" + ph.array + "'");

  // Bind every (array path, SM, warp) combination before the first reset.
  struct Key {
    LoadPath path;
    std::uint32_t sm, warp;
    bool operator<(const Key& o) const {
      return std::tie(path, sm, warp) < std::tie(o.path, o.sm, o.warp);
    }
  };
  // One block: the phases program is about the caches of one SM.
  std::map<Key, BoundPath> bound;
  for (const auto& ph : e.phases) {
    const Key k{arrays.at(ph.array).spec->path, c.sm_of_block(0), ph.thread / c.prof.warp_size};
    if (!bound.count(k)) bound.emplace(k, c.mem.bind(k.path, k.sm, k.warp));
  }

  // accesses_per_pass: of the first measured array.
  for (const auto& ph : e.phases)
    if (ph.action == Phase::Action::measure) {
      c.out.trace.accesses_per_pass = arrays.at(ph.array).order->pass_length();
      break;
    }

  const double overhead = c.prof.timer_overhead;
  auto& samples = c.out.trace.samples;
  double total_cycles = 0;
  for (std::uint32_t r = 0; r < e.repeats; ++r) {
    c.start_launch(r);
    Noise noise(c.prof.noise, c.noise_stream(r));
    double launch = 0;
    for (std::uint32_t b = 0; b < 1; ++b) {
      const std::uint32_t sm = c.sm_of_block(b);
      std::uint32_t measure_index = 0;
      double block_cycles = 0;
      for (const auto& ph : e.phases) {
        const Arr& a = arrays.at(ph.array);
        const BoundPath& bp = bound.at(Key{a.spec->path, sm, ph.thread / c.prof.warp_size});
        ChaseWalker w(*a.order, chaser_start_offset(a.spec->array, 0, 0));
        const std::uint64_t n = static_cast<std::uint64_t>(ph.passes) * a.order->pass_length();
        if (ph.action == Phase::Action::warm) {
          for (std::uint64_t k = 0; k < n; ++k) block_cycles += c.mem.load(bp, a.base + w.next());
          continue;
        }
        for (std::uint64_t k = 0; k < n; ++k) {
          const std::uint64_t off = w.next();
          const double v = Ctx::cycles(c.mem.load(bp, a.base + off) + noise.sample() + overhead);
          block_cycles += v;
          Sample s;
          s.thread = b * e.layout.threads + ph.thread;
          s.seq = k;
          s.offset_bytes = off;
          s.latency = v;
          s.sm_id = static_cast<std::int32_t>(sm);
          s.phase = measure_index;
          samples.push_back(s);
        }
        ++measure_index;
      }
      launch = std::max(launch, block_cycles);
    }
    total_cycles += launch;
  }
  c.out.cycles = total_cycles;
}

// ---- shared_stride ----------------------------------------------------------

// Largest number of distinct bank words that one bank must serve for the warp
// `warp` (threads warp*W .. warp*W+W-1 of the block).
std::uint32_t conflict_degree(const Experiment& e, const SharedSpec& sh, std::uint32_t warp, std::uint32_t warp_size) {
  const std::uint64_t size = std::max<std::uint64_t>(e.array.size_bytes, 1);
  std::map<std::uint64_t, std::set<std::uint64_t>> words_of_bank;
  const std::uint32_t first = warp * warp_size;
  const std::uint32_t last = std::min(e.layout.threads, first + warp_size);
  for (std::uint32_t t = first; t < last; ++t) {
    const std::uint64_t addr = (e.array.offset_bytes + static_cast<std::uint64_t>(t) * e.array.stride_bytes) % size;
    const std::uint64_t word = addr / sh.bank_width;
    words_of_bank[word % sh.banks].insert(word);
  }
  std::size_t d = 1;
  for (const auto& [bank, words] : words_of_bank) d = std::max(d, words.size());
  return static_cast<std::uint32_t>(d);
}

void run_shared_stride(Ctx& c) {
  const Experiment& e = c.e;
  const SharedSpec& sh = c.prof.shared;
  const std::uint32_t lanes = e.layout.threads;
  const double overhead = c.prof.timer_overhead;
  const double n = static_cast<double>(e.iterations);
  const std::uint64_t size = std::max<std::uint64_t>(e.array.size_bytes, 1);
  auto& samples = c.out.trace.samples;
  samples.reserve(static_cast<std::size_t>(lanes) * e.layout.blocks * e.repeats);
  std::vector<double> lane_latency(lanes);
  for (std::uint32_t t = 0; t < lanes; ++t) {
    const std::uint32_t d = conflict_degree(e, sh, t / c.prof.warp_size, c.prof.warp_size);
    lane_latency[t] = sh.latency + (d - 1) * sh.conflict_cycles;
  }
  double total = 0;
  for (std::uint32_t r = 0; r < e.repeats; ++r) {
    c.start_launch(r);
    Noise noise(c.prof.noise, c.noise_stream(r));
    double launch = 0;
    for (std::uint32_t b = 0; b < e.layout.blocks; ++b) {
      for (std::uint32_t t = 0; t < lanes; ++t) {
        // Timed as a whole: `iterations` dependent reads between two clock reads.
        double sum = overhead;
        for (std::uint64_t k = 0; k < e.iterations; ++k) sum += lane_latency[t] + noise.sample();
        sum = std::round(sum);
        Sample s;
        s.thread = b * lanes + t;
        s.seq = r;
        s.offset_bytes = (e.array.offset_bytes + static_cast<std::uint64_t>(t) * e.array.stride_bytes) % size;
        s.latency = sum / n;
        s.sm_id = static_cast<std::int32_t>(c.sm_of_block(b));
        samples.push_back(s);
        launch = std::max(launch, sum);
      }
    }
    total += launch;
  }
  c.out.cycles = total;
}

// ---- throughput -------------------------------------------------------------

void run_throughput(Ctx& c) {
  const Experiment& e = c.e;
  const Profile& p = c.prof;
  const double elem = static_cast<double>(e.elem_bytes());
  const double warp_size = p.warp_size;
  const double warps = std::ceil(static_cast<double>(e.layout.threads) / warp_size);
  const std::uint32_t active_sms = std::min(e.layout.blocks, p.sm_count);
  const double blocks_per_sm = std::ceil(static_cast<double>(e.layout.blocks) / static_cast<double>(p.sm_count));

  // Latency and bandwidth limit (bytes/cycle per SM) of the level the array fits in.
  // Stores end in the first write-back cache that holds the array (else DRAM) and
  // pass every write-through cache before it, limited by each one's store bandwidth.
  const bool store = e.access == Access::store;
  double latency = 0, limit = 0;
  auto tighten = [&](double per_sm) {
    if (per_sm > 0) limit = limit == 0 ? per_sm : std::min(limit, per_sm);
  };
  if (e.path == LoadPath::shared) {
    latency = p.shared.latency;
    tighten(store ? p.shared.store_bandwidth() : p.shared.load_bandwidth());
  } else {
    const PathSpec& ps = p.path(e.path);
    if (!ps.defined)
      throw UnsupportedError(std::string("device profile '") + p.name + "' does not describe load path '" +
                                  to_string(e.path) + "'");
    double extra = 0;
    bool hit = false;
    for (const auto& st : ps.steps) {
      if (st.kind == PathStep::Kind::tlb) continue;
      const CacheSpec& cs = p.caches[st.cache];
      const double cap = static_cast<double>(c.mem.geometry(st.cache).capacity_bytes());
      const double bw = store ? cs.store_bandwidth() : cs.bandwidth;
      tighten(cs.per_sm ? bw * cs.instances_per_sm : bw / active_sms);
      if (store && !cs.write_back) continue;
      if (cap >= static_cast<double>(e.array.size_bytes)) {
        latency = extra + (std::isnan(st.latency) ? cs.latency : st.latency);
        hit = true;
        break;
      }
      extra += cs.miss_cost;
    }
    if (!hit) {
      latency = extra + p.dram_latency;
      tighten((store ? p.dram_store_bandwidth() : p.dram_bandwidth) / active_sms);
    }
  }
  latency = std::max(latency, 1.0);
  const double in_flight = blocks_per_sm * warps * e.ilp * warp_size * elem;
  double rate = in_flight / latency;  // bytes/cycle per SM (Little's law)
  if (limit > 0) rate = std::min(rate, limit);
  const double block_bytes = static_cast<double>(e.layout.threads) * static_cast<double>(e.iterations) * e.ilp * elem;
  const double sm_cycles = latency + block_bytes * blocks_per_sm / rate;

  auto& samples = c.out.trace.samples;
  const auto warp_count = static_cast<std::uint32_t>(warps);
  double total = 0;
  for (std::uint32_t r = 0; r < e.repeats; ++r) {
    c.start_launch(r);
    Noise noise(c.prof.noise, c.noise_stream(r));
    for (std::uint32_t b = 0; b < e.layout.blocks; ++b) {
      for (std::uint32_t w = 0; w < warp_count; ++w) {
        const std::uint32_t threads_in_warp = std::min(p.warp_size, e.layout.threads - w * p.warp_size);
        Sample s;
        s.thread = b * warp_count + w;
        s.seq = r;
        s.offset_bytes = static_cast<std::uint64_t>(threads_in_warp) * e.iterations * e.ilp * e.elem_bytes();
        s.latency = Ctx::cycles(sm_cycles + noise.sample() + p.timer_overhead);
        s.sm_id = static_cast<std::int32_t>(c.sm_of_block(b));
        samples.push_back(s);
      }
    }
    total += sm_cycles;
  }
  c.out.cycles = total;
}

// ---- coalescing -------------------------------------------------------------

void run_coalescing(Ctx& c) {
  const Experiment& e = c.e;
  const Profile& p = c.prof;
  const std::uint32_t lanes = std::min(e.layout.threads, p.warp_size);
  const std::uint64_t size = std::max<std::uint64_t>(e.array.size_bytes, 1);
  const std::uint64_t base = p.address_base;
  std::vector<BoundPath> bp;
  for (std::uint32_t b = 0; b < e.layout.blocks; ++b) bp.push_back(c.mem.bind(e.path, c.sm_of_block(b), 0));

  // Granularity: the first cache of the path (32 B sectors of 128 B lines without one).
  std::uint64_t line = 128, sector = 32;
  if (e.path != LoadPath::shared)
    for (const auto& st : p.path(e.path).steps)
      if (st.kind == PathStep::Kind::cache) {
        line = c.mem.geometry(st.cache).line_bytes;
        sector = c.mem.geometry(st.cache).sector_bytes;
        break;
      }
  std::set<std::uint64_t> lines, sectors;
  for (std::uint32_t i = 0; i < lanes; ++i) {
    const std::uint64_t a = base + (e.array.offset_bytes + static_cast<std::uint64_t>(i) * e.array.stride_bytes) % size;
    lines.insert(a / line);
    sectors.insert(a / sector);
  }
  // The L1 serves one line per cycle, then one sector per cycle (seed 001, ch. 4).
  const double serial = static_cast<double>(lines.size() - 1) * p.coalesce_line_cycles +
                        static_cast<double>(sectors.size() - lines.size()) * p.coalesce_sector_cycles;
  auto request = [&](const BoundPath& path) {
    double worst = 0;
    for (auto s : sectors) worst = std::max(worst, c.mem.load(path, s * sector));
    return worst + serial;
  };
  auto& samples = c.out.trace.samples;
  samples.reserve(e.iterations * e.layout.blocks * e.repeats);
  double total = 0;
  const std::uint64_t lane0 = e.array.offset_bytes % size;
  for (std::uint32_t r = 0; r < e.repeats; ++r) {
    c.start_launch(r);
    Noise noise(p.noise, c.noise_stream(r));
    double launch = 0;
    for (std::uint32_t b = 0; b < e.layout.blocks; ++b) {
      double cyc = 0;
      for (std::uint32_t k = 0; k < e.warmup; ++k) cyc += request(bp[b]);
      for (std::uint64_t k = 0; k < e.iterations; ++k) {
        Sample s;
        s.thread = b;
        s.seq = k;
        s.offset_bytes = lane0;
        s.latency = Ctx::cycles(request(bp[b]) + noise.sample() + p.timer_overhead);
        s.sm_id = static_cast<std::int32_t>(c.sm_of_block(b));
        cyc += s.latency;
        samples.push_back(s);
      }
      launch = std::max(launch, cyc);
    }
    total += launch;
  }
  c.out.cycles = total;
}

}  // namespace

void simulate_pchase(KernelContext& c) { run_pchase(c); }
void simulate_phases(KernelContext& c) { run_phases(c); }
void simulate_shared_stride(KernelContext& c) { run_shared_stride(c); }
void simulate_throughput(KernelContext& c) { run_throughput(c); }
void simulate_coalescing(KernelContext& c) { run_coalescing(c); }

KernelRun simulate_point(MemorySystem& memory, const Point& point) {
  const Experiment& e = point.experiment;
  const Profile& prof = memory.profile();
  KernelRun out;
  PointTrace& t = out.trace;
  t.point_id = point.id;
  for (const auto& [k, v] : point_params(point)) t.params[k] = v;
  if (e.array.frames != Frames::contiguous) t.params["frames"] = to_string(e.array.frames);
  if (e.layout.array == BlockArrays::per_block) {
    t.params["block_arrays"] = "per_block";
    t.params["copy_stride_bytes"] = std::to_string(per_block_array_stride(e));
  }
  // The correction per sample (engine/trace/trace.hpp): samples that average K
  // loads (chains, shared_stride) carry 1/K of the timer overhead, as on a GPU.
  t.timer_overhead_cycles =
      kernel_family(e).sample_averages_iterations(e) ? prof.timer_overhead / static_cast<double>(std::max<std::uint64_t>(1, e.iterations)) : prof.timer_overhead;
  t.sm_clock_khz = prof.clock_khz;
  t.accesses_per_pass = e.accesses_per_pass();
  t.discard_passes = e.discard;
  const std::uint32_t sm0 = first_sm(e, point.id, prof.sm_count);
  t.sm_id = static_cast<std::int32_t>(sm0);
  const KernelFamily& family = kernel_family(e);
  KernelContext c{memory, prof, point, e, out, sm0, mix64(prof.seed ^ mix64(point.id))};
  family.simulate(c);
  t.kernel_ms = out.cycles / prof.clock_khz;
  return out;
}

}  // namespace dissect::sim
