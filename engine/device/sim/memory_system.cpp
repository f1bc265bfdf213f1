#include "engine/device/sim/memory_system.hpp"

#include "engine/core/diagnostics.hpp"
#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace dissect::sim {

MemorySystem::MemorySystem(const Profile& profile, int carveout) : profile_(profile) {
  for (std::size_t i = 0; i < profile_.caches.size(); ++i) {
    geometry_.push_back(profile_.geometry_for(i, carveout));
    const auto& c = profile_.caches[i];
    caches_.emplace_back(c.per_sm ? static_cast<std::size_t>(profile_.sm_count) * c.instances_per_sm
                                  : std::max<std::size_t>(1, c.partitions.count));
  }
  for (const auto& t : profile_.tlb) {
    tlbs_.emplace_back(t.per_sm ? profile_.sm_count : 1u);
    tlbs_scattered_.emplace_back(t.per_sm ? profile_.sm_count : 1u);
  }
  scrambled_ = profile_.scrambled;
  page_shift_ = 0;
  while ((1ull << page_shift_) < profile_.translation_page) ++page_shift_;
  // The page mapping belongs to the data, not to a launch: it depends on the
  // profile seed only, so identical points map identically.
  frame_mask_ = page_shift_ >= 47 ? 0 : (1ull << (47 - page_shift_)) - 1;
  scramble_key_ = mix64(profile_.seed) & frame_mask_;
  reset(profile_.seed);
}

std::uint64_t MemorySystem::instance_seed(std::size_t kind, std::size_t idx, std::size_t inst) const {
  return mix64(seed_ ^ mix64((kind << 48) ^ (idx << 32) ^ inst));
}

void MemorySystem::reset(std::uint64_t seed) {
  seed_ = seed;
  for (std::size_t c = 0; c < caches_.size(); ++c)
    for (std::size_t k = 0; k < caches_[c].size(); ++k)
      if (caches_[c][k]) caches_[c][k]->reset(instance_seed(0, c, k));
  for (std::size_t t = 0; t < tlbs_.size(); ++t)
    for (std::size_t k = 0; k < tlbs_[t].size(); ++k) {
      if (tlbs_[t][k]) tlbs_[t][k]->reset(instance_seed(1, t, k));
      if (tlbs_scattered_[t][k]) tlbs_scattered_[t][k]->reset(instance_seed(1, t, k));
    }
}

void MemorySystem::new_launch(std::uint64_t seed) {
  seed_ = seed;
  for (std::size_t c = 0; c < caches_.size(); ++c) {
    if (!profile_.caches[c].per_sm) continue;
    for (std::size_t k = 0; k < caches_[c].size(); ++k)
      if (caches_[c][k]) caches_[c][k]->reset(instance_seed(0, c, k));
  }
}

CacheModel& MemorySystem::instance(std::size_t cache, std::uint32_t sm, std::uint32_t warp) {
  const auto& spec = profile_.caches.at(cache);
  if (spec.partitions.count > 1) return partition_instance(cache, 0);
  std::size_t k = 0;
  if (spec.per_sm) k = static_cast<std::size_t>(sm % profile_.sm_count) * spec.instances_per_sm + warp % spec.instances_per_sm;
  auto& slot = caches_[cache][k];
  if (!slot) slot = std::make_unique<CacheModel>(geometry_[cache], instance_seed(0, cache, k));
  return *slot;
}

CacheModel& MemorySystem::partition_instance(std::size_t cache, std::uint32_t partition) {
  const auto& spec = profile_.caches.at(cache);
  auto& slot = caches_[cache].at(partition);
  if (!slot) slot = std::make_unique<CacheModel>(spec.partition_geometry, instance_seed(0, cache, partition));
  return *slot;
}

CacheModel& MemorySystem::tlb_instance(std::size_t level, std::uint32_t sm, bool scattered_frames) {
  const auto& spec = profile_.tlb.at(level);
  const std::size_t k = spec.per_sm ? sm % profile_.sm_count : 0;
  auto& slot = (scattered_frames ? tlbs_scattered_ : tlbs_)[level][k];
  if (!slot) {
    // Scattered frames: the same entries and sets, each translating one page.
    CacheGeometry g = spec.geometry;
    if (scattered_frames) {
      g.line_bytes = spec.page_bytes;
      g.sector_bytes = std::min(g.sector_bytes, g.line_bytes);
    }
    slot = std::make_unique<CacheModel>(g, instance_seed(1, level, k));
  }
  return *slot;
}

BoundPath MemorySystem::bind(LoadPath path, std::uint32_t sm, std::uint32_t warp, Frames frames,
                             std::uint64_t array_base) {
  BoundPath bp;
  const bool scattered_frames = frames == Frames::scattered;
  if (frames == Frames::aliased) {
    static_assert((kAliasedBlockBytes & (kAliasedBlockBytes - 1)) == 0, "the block is a power of two");
    bp.alias_base = array_base;
    bp.alias_mask = kAliasedBlockBytes - 1;
  }
  if (path == LoadPath::shared) {  // shared memory: a fixed latency, no caches, no translation
    bp.dram_latency = profile_.shared.latency;
    return bp;
  }
  const PathSpec& ps = profile_.path(path);
  if (!ps.defined)
    throw UnsupportedError(std::string("device profile '") + profile_.name + "' does not describe load path '" +
                                to_string(path) + "' (add it under paths:)");
  bp.dram_latency = profile_.dram_latency;
  bool translated = false;
  for (const PathStep& s : ps.steps) {
    BoundStep b;
    if (s.kind == PathStep::Kind::tlb) {
      for (std::size_t l = 0; l < profile_.tlb.size(); ++l) {
        bp.tlb.push_back(&tlb_instance(l, sm, scattered_frames));
        bp.tlb_penalty.push_back(profile_.tlb[l].miss_penalty);
      }
      bp.steps.push_back(b);
      translated = true;
      continue;
    }
    const CacheSpec& c = profile_.caches[s.cache];
    b.hit_latency = std::isnan(s.latency) ? c.latency : s.latency;
    b.miss_cost = c.miss_cost;
    std::uint32_t shift = 0;
    while ((1ull << shift) < geometry_[s.cache].line_bytes) ++shift;
    b.line_shift = shift;
    double spread = 0;
    if (c.partitions.sm_spread > 0) {
      const std::uint64_t h = mix64(profile_.seed ^ (0xabcdefull + sm));
      spread = static_cast<double>(h % (static_cast<std::uint64_t>(c.partitions.sm_spread) + 1));
    }
    b.hit_latency += spread;
    bool large = false;
    if (c.partitions.count > 1) {
      b.kind = BoundStep::Kind::partitioned;
      b.partitions = &c.partitions;
      b.replicate = c.partitions.replicate;
      for (std::uint32_t q = 0; q < c.partitions.count; ++q) b.part.push_back(&partition_instance(s.cache, q));
      large = b.part.front()->large();
      b.copy_latency = c.partitions.copy_latency + (b.hit_latency - c.latency);
      b.far_latency = c.partitions.far_latency + (b.hit_latency - c.latency);
      b.far_extra = c.partitions.far_latency - c.latency;
      // The SM's own partition: SMs are split into `count` consecutive groups.
      bp.sm_partition = static_cast<std::uint32_t>(static_cast<std::uint64_t>(sm % profile_.sm_count) *
                                                   c.partitions.count / profile_.sm_count);
      b.cache = b.part[bp.sm_partition];
    } else {
      b.kind = BoundStep::Kind::cache;
      b.cache = &instance(s.cache, sm, warp);
      large = b.cache->large();
    }
    if (large && bp.planned < 0) {
      bp.planned = static_cast<int>(bp.steps.size());
      bp.planned_line_shift = shift;
      bp.planned_physical = translated;
    }
    bp.steps.push_back(b);
  }
  return bp;
}

}  // namespace dissect::sim
