#include "engine/device/cuda/smem_plan.hpp"

#include <algorithm>

#include "engine/core/diagnostics.hpp"

namespace dissect {

std::vector<std::uint32_t> shared_memory_configs(const SmemLimits& l) {
  std::vector<std::uint32_t> kib;
  const int cc = l.cc_major * 10 + l.cc_minor;
  if (cc == 70 || cc == 72) kib = {0, 8, 16, 32, 64, 96};
  else if (cc == 75) kib = {32, 64};
  else if (cc == 80 || cc == 87) kib = {0, 8, 16, 32, 64, 100, 132, 164};
  else if (cc == 86 || cc == 89 || l.cc_major == 12) kib = {0, 8, 16, 32, 64, 100};
  else kib = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};  // Hopper, Blackwell (sm_100/110)
  std::vector<std::uint32_t> out;
  for (auto k : kib)
    if (k * 1024 <= l.max_per_sm) out.push_back(k * 1024);
  if (out.empty() || out.back() != l.max_per_sm) out.push_back(l.max_per_sm);
  return out;
}

SmemPlan plan_shared_memory(const SmemLimits& l, int carveout, std::uint32_t needed, std::uint32_t static_bytes,
                            bool exclusive) {
  SmemPlan p;
  const std::uint64_t block = std::uint64_t{needed} + static_bytes;
  if (block > l.max_per_block_optin)
    throw RunError("the kernel needs " + std::to_string(block) + " B of shared memory per block; the device allows " +
                   std::to_string(l.max_per_block_optin) + " B");
  p.dynamic_bytes = needed;
  if (carveout < 0) {
    p.note = "carveout: driver default (no preference set); shared configuration chosen by the driver";
    return p;
  }
  const auto configs = shared_memory_configs(l);
  const std::uint64_t preferred = std::uint64_t{l.max_per_sm} * static_cast<std::uint64_t>(carveout) / 100;
  const std::uint64_t block_total = block + l.reserved_per_block;
  std::uint32_t config = configs.back();
  for (auto c : configs)
    if (c >= preferred && c >= block_total) {
      config = c;
      break;
    }
  p.config_bytes = config;
  p.note = "carveout " + std::to_string(carveout) + "% -> expected shared configuration " +
           std::to_string(config / 1024) + " KiB (L1 gets the rest)";
  if (exclusive) {
    // Fill the configuration: dynamic = config - reservation - static.
    const std::uint64_t fill = config > l.reserved_per_block + static_bytes
                                   ? std::uint64_t{config} - l.reserved_per_block - static_bytes
                                   : 0;
    const std::uint64_t dyn = std::min<std::uint64_t>(std::max<std::uint64_t>(fill, needed),
                                                      std::uint64_t{l.max_per_block_optin} - static_bytes);
    p.dynamic_bytes = static_cast<std::uint32_t>(dyn);
    const std::uint64_t per_block = dyn + static_bytes + l.reserved_per_block;
    p.one_block_per_sm = config > 0 && 2 * per_block > config;
    p.note += ", " + std::to_string(p.dynamic_bytes) + " B dynamic shared memory per block" +
              (p.one_block_per_sm ? " (fills it: one block per SM)" : " (cannot guarantee one block per SM)");
  }
  return p;
}

}  // namespace dissect
