// Shared-memory plans: the carveout the spec asks for, one block per SM when packing.
#include <doctest/doctest.h>

#include "engine/core/diagnostics.hpp"
#include "engine/device/cuda/smem_plan.hpp"

using namespace dissect;

namespace {
SmemLimits hopper() { return SmemLimits{9, 0, 228 * 1024, 227 * 1024, 1024}; }
}  // namespace

TEST_CASE("Hopper has ten shared-memory configurations, Volta six, Ampere consumer six") {
  CHECK(shared_memory_configs(hopper()).size() == 10);
  CHECK(shared_memory_configs(hopper()).back() == 228 * 1024);
  CHECK(shared_memory_configs(SmemLimits{7, 0, 96 * 1024, 95 * 1024, 0}).size() == 6);
  CHECK(shared_memory_configs(SmemLimits{8, 6, 100 * 1024, 99 * 1024, 1024}).back() == 100 * 1024);
}

TEST_CASE("max L1: a small block fills the 8 KiB configuration, so one block per SM") {
  const SmemPlan p = plan_shared_memory(hopper(), 0, 6 * 1024, 0, true);
  CHECK(p.config_bytes == 8 * 1024);
  CHECK(p.dynamic_bytes == 7 * 1024);
  CHECK(p.one_block_per_sm);
}

TEST_CASE("without exclusivity the block asks only for what it needs") {
  const SmemPlan p = plan_shared_memory(hopper(), 0, 6 * 1024, 0, false);
  CHECK(p.dynamic_bytes == 6 * 1024);
  CHECK(p.config_bytes == 8 * 1024);
  CHECK_FALSE(p.one_block_per_sm);
}

TEST_CASE("a larger need picks the next configuration; a carveout preference raises it") {
  CHECK(plan_shared_memory(hopper(), 0, 20 * 1024, 0, true).config_bytes == 32 * 1024);
  const SmemPlan half = plan_shared_memory(hopper(), 50, 1024, 0, true);
  CHECK(half.config_bytes == 132 * 1024);  // 114 KiB preferred -> 132 KiB
  CHECK(half.dynamic_bytes == 131 * 1024);
  const SmemPlan all = plan_shared_memory(hopper(), 100, 1024, 0, true);
  CHECK(all.config_bytes == 228 * 1024);
  CHECK(all.dynamic_bytes == 227 * 1024);
  CHECK(all.one_block_per_sm);
}

TEST_CASE("driver default: no configuration is assumed") {
  const SmemPlan p = plan_shared_memory(hopper(), -1, 4096, 0, true);
  CHECK(p.config_bytes == 0);
  CHECK(p.dynamic_bytes == 4096);
  CHECK_FALSE(p.one_block_per_sm);
}

TEST_CASE("more than a block may have is an error") {
  CHECK_THROWS_AS(plan_shared_memory(hopper(), 0, 300 * 1024, 0, true), RunError);
}
