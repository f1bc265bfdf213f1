#pragma once
// The kernels of the simulated GPU: what each kernel family does to the memory
// system, and the trace it returns: the Samples experiment.hpp defines for each
// kernel, exactly as a GPU run gives them.
//
//   pchase         every chasing thread (layout.chasers of each block; block b
//                  on SM first_sm + b) walks the array from its start
//                  (chase_order.hpp): `warmup` untimed passes (warmup_by block:
//                  the block's threads load the pass's slots instead), then
//                  `iterations` timed loads, all chasers in lockstep. per_access: one Sample
//                  per load (latency includes the timer overhead); chain: one
//                  Sample per chaser per repeat, seq = repeat (average cycles per
//                  load, one timer overhead over the whole chain).
//   phases         one block; ordered warm/measure phases of named arrays
//                  (thread t of the block, warp t / warp_size, runs the phase: a
//                  fresh walk from the array's start, `passes` passes); measure
//                  phases give one Sample per load, phase = index among the
//                  measure phases. Arrays lie at 2 MiB-aligned bases, in order.
//   shared_stride  lane t reads shared memory at offset + t*stride (Mei & Chu,
//                  Listing 1); one Sample per lane per repeat: the average of
//                  `iterations` reads timed as a whole. Per read: shared latency
//                  + (degree - 1) * conflict_cycles, the degree being the most
//                  distinct bank words one bank serves for the lane's warp
//                  (the same word is a broadcast).
//   throughput     analytic: the level the array fits in (first cache on the path
//                  whose capacity holds it, else DRAM; stores: the first
//                  write-back cache that holds it, write-through caches passed);
//                  bytes in flight per SM = blocks per SM x warps x ilp x warp
//                  size x element; rate = min(in flight / latency, bandwidth
//                  limits of the levels passed: the store bandwidths for stores).
//                  One Sample per warp per repeat: offset_bytes = bytes the warp
//                  loaded (stored), latency = cycles of the SM's work.
//   coalescing     per block, one warp request per iteration (after `warmup`
//                  untimed ones), lane i at offset + i*stride; latency = slowest
//                  distinct sector through the memory system + (distinct lines -
//                  1) * line_cycles + (distinct sectors - lines) * sector_cycles.
// Repeats are separate launches on the same data: the first starts from cold
// caches and TLBs, later ones keep L2 and TLB contents (SM caches emptied).
#include <cstddef>

#include "engine/device/sim/memory_system.hpp"
#include "engine/device/sim/noise.hpp"
#include "engine/spec/spec.hpp"
#include "engine/trace/trace.hpp"

namespace dissect::sim {

struct KernelRun {
  PointTrace trace;
  double cycles = 0;        // simulated kernel cycles, all repeats
  std::size_t launches = 0;
};

// Everything a simulated kernel needs about the point being run.
struct KernelContext {
  MemorySystem& mem;
  const Profile& prof;
  const Point& point;
  const Experiment& e;
  KernelRun& out;
  std::uint32_t sm0;
  std::uint64_t seed;

  [[nodiscard]] std::uint64_t launch_seed(std::uint32_t r) const { return mix64(seed + r); }
  [[nodiscard]] std::uint64_t noise_stream(std::uint32_t r) const {
    return mix64(static_cast<std::uint64_t>(point.id) * 0x100000001b3ull + r);
  }
  [[nodiscard]] std::uint32_t sm_of_block(std::uint32_t b) const { return (sm0 + b) % prof.sm_count; }
  void start_launch(std::uint32_t r) {
    if (r == 0) mem.reset(launch_seed(0));
    else mem.new_launch(launch_seed(r));
    ++out.launches;
  }
  // A clock reading: whole cycles, never below one.
  static double cycles(double v) {
    return v < 1.0 ? 1.0 : static_cast<double>(static_cast<std::int64_t>(v + 0.5));
  }
};

// The kernels of the families (engine/device/families/), one per KernelKind: each runs
// the point of `c` and fills c.out (samples, cycles, launches).
void simulate_pchase(KernelContext& c);
void simulate_phases(KernelContext& c);
void simulate_shared_stride(KernelContext& c);
void simulate_throughput(KernelContext& c);
void simulate_coalescing(KernelContext& c);

// Runs one point (through its kernel family). Throws std::invalid_argument for a point this model cannot
// run (e.g. a load path the profile does not describe).
KernelRun simulate_point(MemorySystem& memory, const Point& point);

// SM a point's first block runs on: points about SM-private structures are
// spread over the SMs (as the GPU backend packs them), others use SM 0.
std::uint32_t first_sm(const Experiment& e, std::size_t point_id, std::uint32_t sm_count);

}  // namespace dissect::sim
