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
#include <cstdint>
#include <memory>
#include <vector>

#include "engine/device/sim/cache_model.hpp"
#include "engine/device/sim/sim_profile.hpp"

namespace dissect::sim {

inline constexpr std::size_t kMaxPartitions = 64;

struct BoundStep {
  CacheModel* cache = nullptr;  // nullptr: the translation step
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
};

class MemorySystem {
 public:
  MemorySystem(const Profile& profile, int carveout);

  // Cold start: every cache and TLB empty (a fresh array in a fresh launch).
  void reset(std::uint64_t seed);
  // A new launch on the same data: SM-level caches are emptied (GPUs do not
  // keep L1 contents across kernel launches), L2 and TLBs keep theirs.
  void new_launch(std::uint64_t seed);

  // Throws std::invalid_argument when the profile does not describe the path.
  BoundPath bind(LoadPath path, std::uint32_t sm, std::uint32_t warp);

  // Cycles of one load at virtual address `vaddr`.
  double load(const BoundPath& bp, std::uint64_t vaddr) {
    double extra = 0, dram_extra = 0;
    std::uint64_t addr = vaddr;
    int level = 0;
    for (const BoundStep& st : bp.steps) {
      if (st.cache == nullptr && st.partitions == nullptr) {
        for (std::size_t l = 0; l < bp.tlb.size(); ++l) {
          if (bp.tlb[l]->access(vaddr) == CacheModel::Outcome::hit) break;
          extra += bp.tlb_penalty[l];
        }
        addr = physical(vaddr);
        continue;
      }
      if (st.partitions != nullptr) {
        double lat = 0;
        if (partitioned_hit(st, bp, addr, lat, dram_extra)) {
          last_level_ = level;
          return extra + lat;
        }
      } else if (st.cache->access(addr) == CacheModel::Outcome::hit) {
        last_level_ = level;
        return extra + st.hit_latency;
      }
      extra += st.miss_cost;
      ++level;
    }
    last_level_ = -1;
    return extra + bp.dram_latency + dram_extra;
  }

  // Hint: `vaddr` will be loaded soon through `bp` (warms the host's caches
  // for the large simulated ones). Changes nothing in the model.
  void prefetch(const BoundPath& bp, std::uint64_t vaddr) const {
    const std::uint64_t addr = physical(vaddr);
    for (const BoundStep& st : bp.steps) {
      if (st.cache != nullptr) st.cache->prefetch(addr);
      else if (st.partitions != nullptr) {
        st.part[bp.sm_partition]->prefetch(addr);
        const std::uint32_t home = st.partitions->index.set_of(addr, addr >> st.line_shift, st.partitions->count);
        if (home != bp.sm_partition) st.part[home]->prefetch(addr);
      }
    }
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
  CacheModel& tlb_instance(std::size_t level, std::uint32_t sm);
  // One partition of a partitioned (device-level) cache.
  CacheModel& partition_instance(std::size_t cache, std::uint32_t partition);
  [[nodiscard]] const CacheGeometry& geometry(std::size_t cache) const { return geometry_[cache]; }
  [[nodiscard]] const Profile& profile() const { return profile_; }
  // Caches looked up before the hit in the last load (0: first cache hit), -1: DRAM.
  [[nodiscard]] int last_level() const { return last_level_; }

 private:
  // Looks an address up in a partitioned cache; true on a hit (latency set).
  static bool partitioned_hit(const BoundStep& st, const BoundPath& bp, std::uint64_t addr, double& lat,
                              double& dram_extra) {
    const PartitionSpec& ps = *st.partitions;
    const std::uint32_t home = ps.index.set_of(addr, addr >> st.line_shift, ps.count);
    const std::uint32_t own = bp.sm_partition;
    if (!ps.replicate) {
      if (st.part[home]->access(addr) == CacheModel::Outcome::hit) {
        lat = home == own ? st.hit_latency : st.far_latency;
        return true;
      }
    } else {
      if (st.part[own]->access(addr) == CacheModel::Outcome::hit) {
        lat = home == own ? st.hit_latency : st.copy_latency;
        return true;
      }
      if (home != own && st.part[home]->access(addr) == CacheModel::Outcome::hit) {
        lat = st.far_latency;
        return true;
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
  std::uint64_t seed_ = 0;
  bool scrambled_ = false;
  std::uint32_t page_shift_ = 21;
  std::uint64_t scramble_key_ = 0;
  std::uint64_t frame_mask_ = 0;
  int last_level_ = 0;
};

}  // namespace dissect::sim
