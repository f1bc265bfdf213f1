#pragma once
// Shared memory of a launch: how much dynamic shared memory each block asks
// for, so that (a) the L1/shared carveout the spec asks for is the one the
// driver picks and (b) when points run one per SM, a second block can never
// fit on an SM. Pure arithmetic on the device's limits (testable without a GPU).
//
// Volta and later split one storage per SM between L1 and shared memory in a
// few fixed configurations (e.g. Hopper: 0, 8, 16, 32, 64, 100, 132, 164, 196,
// 228 KiB of shared memory). The carveout attribute is a preference: the
// driver takes the smallest configuration >= the preference that fits a block
// (its shared memory plus the per-block reservation). A block that fills that
// configuration exactly keeps every other block off its SM, without making the
// driver pick a larger shared (= smaller L1) configuration.
#include <cstdint>
#include <string>
#include <vector>

namespace dissect {

struct SmemLimits {
  int cc_major = 9, cc_minor = 0;
  std::uint32_t max_per_sm = 228 * 1024;            // CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR
  std::uint32_t max_per_block_optin = 227 * 1024;   // ..._MAX_SHARED_MEMORY_PER_BLOCK_OPTIN
  std::uint32_t reserved_per_block = 1024;          // ..._RESERVED_SHARED_MEMORY_PER_BLOCK
};

// Shared-memory configurations of an architecture, in bytes, ascending.
std::vector<std::uint32_t> shared_memory_configs(const SmemLimits& limits);

struct SmemPlan {
  std::uint32_t dynamic_bytes = 0;  // what the launch asks for
  std::uint32_t config_bytes = 0;   // expected shared configuration (0: up to the driver)
  bool one_block_per_sm = false;    // a second block cannot fit on an SM
  std::string note;                 // human explanation (kept in the bundle)
};

// `carveout`: percentage of max_per_sm for shared memory (0 = max L1), or -1 for
// the driver default (no preference set). `needed`: dynamic shared memory the
// kernel needs; `static_bytes`: its static shared memory. With `exclusive`,
// the block is padded to fill its configuration (one block per SM).
// Throws RunError when `needed` does not fit any configuration.
SmemPlan plan_shared_memory(const SmemLimits& limits, int carveout, std::uint32_t needed, std::uint32_t static_bytes,
                            bool exclusive);

}  // namespace dissect
