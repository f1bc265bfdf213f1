#pragma once
// Which sweep points share a launch. Structures private to an SM (L1,
// texture, read-only, constant, shared) let up to one point per SM run in one
// launch, one block per point (seed 004 §4.7.2); structures shared by all SMs
// (L2, TLB, DRAM) run one point at a time, alone on the GPU.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "engine/spec/spec.hpp"

namespace dissect {

struct LaunchGroup {
  std::vector<std::size_t> points;  // indices into the request's points, in order
  bool per_sm = false;              // several points, one block (one SM) each
};

// Whether a point may share a launch with others: an SM-private target, the
// spec allows it (parallel: true), one block, and a carveout preference (the
// driver default gives no way to keep blocks apart). Every kernel template
// reads its point from a per-block table.
bool packable(const Experiment& e);
// Why a point runs alone (for the bundle), or "" when it is packable.
std::string why_alone(const Experiment& e);

struct PackingLimits {
  std::uint32_t sm_count = 1;                      // blocks per launch at most
  std::uint64_t const_bank_bytes = 64 * 1024;      // constant-path arrays of one launch share one bank
  std::uint64_t const_align = 256;                 // their alignment in the bank
  std::uint64_t max_samples = 1ull << 27;          // sample slots per launch
};

// Groups consecutive packable points whose `compat` keys are equal (same
// kernel, block size, carveout, repeats), up to sm_count per launch. Every
// other point gets a launch of its own.
std::vector<LaunchGroup> plan_launches(std::span<const Point> points, const PackingLimits& limits,
                                       const std::function<std::string(const Point&)>& compat);

// Sample slots a point's launch needs per repeat (Experiment::samples_per_point
// of one repeat: per_access iterations per chaser, chain one per chaser, ...).
std::uint64_t sample_slots(const Experiment& e);
// Constant-bank bytes the point's arrays occupy (0 when no array uses path const).
std::uint64_t const_bytes(const Experiment& e, std::uint64_t align);

}  // namespace dissect
