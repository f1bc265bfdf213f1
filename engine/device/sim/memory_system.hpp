#pragma once
// The simulated memory hierarchy of one GPU under one carveout: the cache
// instances of a profile (per SM where private, shared where not), the TLB
// levels, and the latency of one load through a load path.
//
// Latency of a load (cycles, without timer overhead or noise):
//   sum of miss_cost of every cache looked up that missed
// + hit latency of the cache that hit (the path's override if it gives one;
//   partitioned L2s: see PartitionSpec; plus a fixed per-SM offset in
//   [0, sm_spread]), or the DRAM latency when every cache missed (plus
//   far_latency - latency for data homed in another L2 partition)
// + miss_penalty of every TLB level that missed (translation happens at the
//   path's 'tlb' step, before the first cache unless the path places it).
// Every level that misses is filled (allocate on miss, all levels).
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/device/sim/cache_model.hpp"
#include "engine/device/sim/sim_profile.hpp"

namespace dissect::sim {

inline constexpr std::size_t kMaxPartitions = 64;

struct BoundStep {
  enum class Kind : std::uint8_t { translate, cache, partitioned };
  Kind kind = Kind::translate;
  bool replicate = false;       // partitioned: PartitionSpec::replicate
  CacheModel* cache = nullptr;  // cache: the cache; partitioned: the SM's own partition
  double hit_latency = 0;
  double miss_cost = 0;
  // Partitioned cache: one CacheModel per partition.
  const PartitionSpec* partitions = nullptr;
  std::vector<CacheModel*> part;
  std::uint32_t line_shift = 0;
  double copy_latency = 0, far_latency = 0, far_extra = 0;
};

// A load path resolved for one SM and warp.
struct BoundPath {
  std::vector<BoundStep> steps;
  std::vector<CacheModel*> tlb;
  std::vector<double> tlb_penalty;
  std::uint32_t sm_partition = 0;
  double dram_latency = 0;
  // The first step whose cache is larger than the host's caches (-1: none):
  // the one MemorySystem::plan prepares; its line size; whether it sees
  // physical addresses (a translation step comes before it).
  int planned = -1;
  std::uint32_t planned_line_shift = 0;
  bool planned_physical = false;
  // Frames::aliased: one block mapped again and again from alias_base, so the
  // caches see an address modulo the block (the identity otherwise). TLBs see
  // the virtual address.
  std::uint64_t alias_base = 0, alias_mask = ~std::uint64_t{0};
  [[nodiscard]] std::uint64_t frame_address(std::uint64_t vaddr) const {
    return alias_base + ((vaddr - alias_base) & alias_mask);
  }
};

// What a load needs to know about its address before it looks anything up,
// worked out a few loads ahead (MemorySystem::plan) while the host memory that
// the planned step will touch is prefetched.
struct LoadPlan {
  std::uint64_t vaddr = 0;
  std::uint32_t set = 0;   // the address's set in the planned step
  std::uint32_t home = 0;  // partitioned planned step: the home partition
};

// Thrown by MemorySystem::load when the flag it watches is set: a point of a huge
// array can take minutes of loads, and Ctrl-C must not wait for it to end.
struct PointInterrupted {};

class MemorySystem {
 public:
  MemorySystem(const Profile& profile, int carveout);

  // Cold start: every cache and TLB empty (a fresh array in a fresh launch).
  void reset(std::uint64_t seed);
  // A new launch on the same data: SM-level caches are emptied (GPUs do not
  // keep L1 contents across kernel launches), L2 and TLBs keep theirs.
  void new_launch(std::uint64_t seed);

  // Throws std::invalid_argument when the profile does not describe the path.
  // `frames` (ArraySpec::frames): scattered, the array's pages lie in frames no
  // entry can coalesce, so every TLB entry translates one page; aliased, one
  // block of kAliasedBlockBytes from `array_base` backs the whole range.
  BoundPath bind(LoadPath path, std::uint32_t sm, std::uint32_t warp, Frames frames = Frames::contiguous,
                 std::uint64_t array_base = 0);

  // Every kStopCheckLoads loads, `stop` (when not null) is read; once set, the next
  // check throws PointInterrupted. The device sets it for the points of a run.
  void watch(const std::atomic<bool>* stop) {
    stop_ = stop;
    until_stop_check_ = kStopCheckLoads;
  }

  // Cycles of one load at virtual address `vaddr`.
  double load(const BoundPath& bp, std::uint64_t vaddr) { return load_impl<false>(bp, vaddr, nullptr); }
  // The same for a planned load (the plan of `vaddr` through `bp`).
  double load(const BoundPath& bp, const LoadPlan& plan) { return load_impl<true>(bp, plan.vaddr, &plan); }

  // Plans a load of `vaddr` through `bp` (bp.planned >= 0) and prefetches the
  // host memory of the planned step's sets; changes nothing in the model.
  [[gnu::always_inline]] LoadPlan plan(const BoundPath& bp, std::uint64_t vaddr) const {
    LoadPlan p;
    p.vaddr = vaddr;
    const std::uint64_t addr = bp.planned_physical ? physical(bp.frame_address(vaddr)) : bp.frame_address(vaddr);
    const BoundStep& st = bp.steps[static_cast<std::size_t>(bp.planned)];
    if (st.kind == BoundStep::Kind::partitioned) {
      // The SM's own partition and the home one (the same one half the
      // time: fetching it twice is cheaper than a branch that guesses
      // wrong). Partitions share one geometry: the address has one set.
      const CacheModel& own = *st.cache;
      p.set = own.set_of(addr);
      p.home = home_of(st, addr);
      own.prefetch_set(p.set);
      st.part[p.home]->prefetch_set(p.set);
    } else {
      p.set = st.cache->set_of(addr);
      st.cache->prefetch_set(p.set);
    }
    return p;
  }

  [[nodiscard]] std::uint64_t physical(std::uint64_t vaddr) const {
    if (!scrambled_) return vaddr;
    // A bijection on the page numbers of a 2^47-byte space (odd multiplier).
    const std::uint64_t page = vaddr >> page_shift_;
    const std::uint64_t frame = ((page ^ scramble_key_) * 0x9e3779b97f4a7c15ull) & frame_mask_;
    return (frame << page_shift_) | (vaddr & ((1ull << page_shift_) - 1));
  }

  // Cache instance (created on first use). `warp` picks among per_sm copies.
  CacheModel& instance(std::size_t cache, std::uint32_t sm, std::uint32_t warp);
  CacheModel& tlb_instance(std::size_t level, std::uint32_t sm, bool scattered_frames = false);
  // One partition of a partitioned (device-level) cache.
  CacheModel& partition_instance(std::size_t cache, std::uint32_t partition);
  [[nodiscard]] const CacheGeometry& geometry(std::size_t cache) const { return geometry_[cache]; }
  [[nodiscard]] const Profile& profile() const { return profile_; }
  // Caches looked up before the hit in the last load (0: first cache hit), -1: DRAM.
  [[nodiscard]] int last_level() const { return last_level_; }

 private:
  static constexpr std::uint32_t kStopCheckLoads = 1u << 16;  // ~a millisecond of loads
  [[gnu::noinline]] void check_stop() {
    until_stop_check_ = kStopCheckLoads;
    if (stop_->load(std::memory_order_relaxed)) throw PointInterrupted{};
  }
  template <bool Planned>
  double load_impl(const BoundPath& bp, std::uint64_t vaddr, const LoadPlan* plan) {
    if (stop_ != nullptr && --until_stop_check_ == 0) check_stop();
    double extra = 0, dram_extra = 0;
    std::uint64_t addr = bp.frame_address(vaddr);
    int level = 0;
    const BoundStep* const planned = Planned ? bp.steps.data() + bp.planned : nullptr;
    for (const BoundStep& st : bp.steps) {
      // The planned step: always the same one, the branch is predicted.
      const LoadPlan* p = Planned && &st == planned ? plan : nullptr;
      switch (st.kind) {
        case BoundStep::Kind::translate: {
          CacheModel* const* tlb = bp.tlb.data();
          for (std::size_t l = 0, n = bp.tlb.size(); l < n; ++l) {
            if (tlb[l]->access(vaddr) == CacheModel::Outcome::hit) break;
            extra += bp.tlb_penalty[l];
          }
          addr = physical(addr);
          continue;
        }
        case BoundStep::Kind::cache:
          if ((p != nullptr ? st.cache->access(addr, p->set) : st.cache->access(addr)) == CacheModel::Outcome::hit) {
            last_level_ = level;
            return extra + st.hit_latency;
          }
          break;
        case BoundStep::Kind::partitioned: {
          double lat = 0;
          if (partitioned_hit(st, bp, addr, p, lat, dram_extra)) {
            last_level_ = level;
            return extra + lat;
          }
          break;
        }
      }
      extra += st.miss_cost;
      ++level;
    }
    last_level_ = -1;
    return extra + bp.dram_latency + dram_extra;
  }

  [[gnu::always_inline]] static std::uint32_t home_of(const BoundStep& st, std::uint64_t addr) {
    return st.partitions->index.set_of(addr, addr >> st.line_shift, st.partitions->count);
  }

  // Looks an address up in a partitioned cache (`plan`: its set and home
  // partition, if planned); true on a hit (latency set).
  [[gnu::always_inline]] static bool partitioned_hit(const BoundStep& st, const BoundPath& bp, std::uint64_t addr,
                                                     const LoadPlan* plan, double& lat, double& dram_extra) {
    const std::uint32_t home = plan != nullptr ? plan->home : home_of(st, addr);
    const std::uint32_t own = bp.sm_partition;
    if (!st.replicate) {
      CacheModel& h = *st.part[home];
      if ((plan != nullptr ? h.access(addr, plan->set) : h.access(addr)) == CacheModel::Outcome::hit) {
        lat = *(home == own ? &st.hit_latency : &st.far_latency);
        return true;
      }
    } else {
      // Partitions share one geometry: the address has one set in both (found
      // once, and not at all when the own partition needs none).
      CacheModel& o = *st.cache;
      const bool known = plan != nullptr || !o.is_last(addr);
      const std::uint32_t set = plan != nullptr ? plan->set : known ? o.set_of(addr) : 0;
      if (o.access(addr, set) == CacheModel::Outcome::hit) {
        lat = *(home == own ? &st.hit_latency : &st.copy_latency);  // a select, not a branch: home is random
        return true;
      }
      if (home != own) {
        CacheModel& h = *st.part[home];
        if (h.access(addr, known ? set : h.set_of(addr)) == CacheModel::Outcome::hit) {
          lat = st.far_latency;
          return true;
        }
      }
    }
    if (home != own) dram_extra = st.far_extra;
    return false;
  }
  std::uint64_t instance_seed(std::size_t kind, std::size_t idx, std::size_t inst) const;

  const Profile& profile_;
  std::vector<CacheGeometry> geometry_;
  // caches_[c][sm * per_sm + k] (SM scope) or caches_[c][0] (device scope)
  std::vector<std::vector<std::unique_ptr<CacheModel>>> caches_;
  std::vector<std::vector<std::unique_ptr<CacheModel>>> tlbs_;
  std::vector<std::vector<std::unique_ptr<CacheModel>>> tlbs_scattered_;  // entries of one page each
  const std::atomic<bool>* stop_ = nullptr;  // watch()
  std::uint32_t until_stop_check_ = kStopCheckLoads;
  std::uint64_t seed_ = 0;
  bool scrambled_ = false;
  std::uint32_t page_shift_ = 21;
  std::uint64_t scramble_key_ = 0;
  std::uint64_t frame_mask_ = 0;
  int last_level_ = 0;
};

}  // namespace dissect::sim
