// dissect template: pointer chase (Mei & Chu's fine-grained P-chase, and the
// classic chain that averages over K dependent loads).
//
// Compile-time parameters (besides those of common.cuh):
//   DISSECT_PATH   the load path (DISSECT_P_*)
//   DISSECT_CHAIN  0: every access timed (per_access), 1: one time per chain
//   DISSECT_ON_CHIP 1 (with DISSECT_CHAIN 0): every access timed, and the samples stay
//                  on the SM until the timed window ends (timing.mode on_chip)
//
// One block runs one sweep point: blocks of one launch run different points,
// one per SM (the host makes a second block per SM impossible through its
// shared-memory request and checks %smid afterwards).
#include "common.cuh"

#ifndef DISSECT_ON_CHIP
#define DISSECT_ON_CHIP 0
#endif
// DISSECT_WARM_BLOCK 1 (warmup_by block): before the chase, every thread of the block loads
// slots of the pass (dissect_warm_by_block); the chasers' own warm-up count is then 0. A
// variant of its own, so that the kernels without it are the code they always were (what
// the timed loop compiles to, its registers and its timings, must not move).
#ifndef DISSECT_WARM_BLOCK
#define DISSECT_WARM_BLOCK 0
#endif

// One sweep point (its parameter-table entry).
struct dissect_pchase_point {
  dissect_array_ref array;
  dissect_u64 warm;       // untimed accesses per chaser before timing (warm-up passes)
  dissect_u64 iters;      // timed accesses per chaser
  dissect_u64 out_base;   // per_access: chaser c writes samples at out_base + c * iters; chain: out_base + c
  dissect_u32 first_chaser;  // into the chaser table
  dissect_u32 n_chasers;
  dissect_u32 chunk;         // shared-memory sample entries per chaser (on_chip: bytes, = iters)
  dissect_u32 shared_at;     // shared path: byte offset of the array copy in dynamic shared memory
};

// warmup_by block, per block: the slots (first + k * stride) mod n_elems, k < slots, in
// elements, loaded `passes` times (a table of its own, the kernel's last argument).
struct dissect_pchase_warm {
  dissect_u64 first;
  dissect_u64 stride;
  dissect_u64 slots;
  dissect_u64 passes;
};

struct dissect_chaser {
  dissect_u64 start;   // first index
  dissect_u32 thread;  // threadIdx.x of the chasing thread
  dissect_u32 pad;
};

#ifndef DISSECT_ABI_ONLY
#if DISSECT_WARM_BLOCK
// Independent loads, a block's worth in flight, in address order (thread t takes slots t,
// t + blockDim.x, ...). The XOR of what each thread loaded goes into one shared word (an
// atomic: every load must complete, and none is dead) before the caller's barrier, so the
// timed chase starts on a quiet memory system. Not inlined: its registers are not the
// chase's.
template <int PATH>
__device__ __noinline__ void dissect_warm_by_block(const dissect_array_ref a, const dissect_pchase_warm w) {
  __shared__ dissect_u32 dissect_warm_sink;
  dissect_elem sink = 0;
  const dissect_u64 total = w.slots * w.passes;
  for (dissect_u64 k = threadIdx.x; k < total; k += blockDim.x)
    sink ^= dissect_load<PATH>(a, static_cast<dissect_elem>((w.first + (k % w.slots) * w.stride) % a.n_elems));
  atomicXor(&dissect_warm_sink, static_cast<dissect_u32>(sink));
}
#endif

extern "C" __global__ void dissect_pchase(const dissect_pchase_point* __restrict__ points,
                                          const dissect_chaser* __restrict__ chasers, dissect_u32* lat_out,
                                          dissect_u32* idx_out, dissect_u64* chain_out, dissect_u64* final_out,
                                          dissect_u32* smid_out, dissect_u32* ovh_out, dissect_u32 rt_zero
#if DISSECT_WARM_BLOCK
                                          ,
                                          const dissect_pchase_warm* __restrict__ warms
#endif
) {
  const dissect_pchase_point pt = dissect_ldcg(points + blockIdx.x);
  dissect_array_ref a = pt.array;
  if (threadIdx.x == 0) smid_out[blockIdx.x] = dissect_smid();
#if DISSECT_PATH == DISSECT_P_SHARED
  a.base = dissect_stage_shared(a, pt.shared_at);
  __syncthreads();
#endif

#if DISSECT_WARM_BLOCK
  dissect_warm_by_block<DISSECT_PATH>(a, dissect_ldcg(warms + blockIdx.x));
  __syncthreads();
#endif

  int c = -1;
  for (dissect_u32 k = 0; k < pt.n_chasers; ++k)
    if (dissect_ldcg(chasers + pt.first_chaser + k).thread == threadIdx.x) c = static_cast<int>(k);
  if (c < 0) return;
  const dissect_chaser ch = dissect_ldcg(chasers + pt.first_chaser + c);
  const dissect_u32 cu = static_cast<dissect_u32>(c);

  // Sample buffers in dynamic shared memory: latencies, then indices.
  const dissect_u32 s_base = dissect_shared_addr(dissect_dyn_shared);
  const dissect_u32 s_lat = s_base + 4u * pt.chunk * cu;
  const dissect_u32 s_idx = s_base + 4u * pt.chunk * (pt.n_chasers + cu);

  dissect_elem j = static_cast<dissect_elem>(ch.start);
  j = dissect_untimed_chase<DISSECT_PATH>(a, j, pt.warm);
#if DISSECT_CHAIN
  const dissect_time t0 = dissect_clock();
  for (dissect_u64 k = 0; k < pt.iters; ++k) j = dissect_load<DISSECT_PATH>(a, j);
  const dissect_time t1 = dissect_clock();
  chain_out[pt.out_base + cu] = static_cast<dissect_u64>(static_cast<dissect_time>(t1 - t0));
#elif DISSECT_ON_CHIP
  // Shared memory: one scratch word per chaser (the dependent store), then `chunk` bytes
  // of samples per chaser. Nothing leaves the SM before the last timed access.
  const dissect_u32 s_scratch = s_base + 4u * cu;
  const dissect_u32 s_lat8 = s_base + ((4u * pt.n_chasers + 15u) & ~15u) + pt.chunk * cu;
  const dissect_elem j0 = j;
  j = dissect_on_chip_chase<DISSECT_PATH>(a, j, pt.iters, s_lat8, s_scratch);
  dissect_on_chip_flush<DISSECT_PATH>(a, j0, pt.iters, s_lat8, lat_out + pt.out_base + cu * pt.iters,
                                      idx_out + pt.out_base + cu * pt.iters);
#else
  j = dissect_timed_chase<DISSECT_PATH>(a, j, pt.iters, pt.chunk, s_lat, s_idx,
                                        lat_out + pt.out_base + cu * pt.iters,
                                        idx_out + pt.out_base + cu * pt.iters);
#endif
  // The final index leaves the kernel: nothing above is dead code.
  final_out[pt.first_chaser + cu] = static_cast<dissect_u64>(j);
#if DISSECT_ON_CHIP
  const dissect_u32 s_ovh = s_base + 4u * cu;  // the chaser's scratch word
#else
  const dissect_u32 s_ovh = s_lat;
#endif
  dissect_timer_overhead<DISSECT_PATH>(a, j, s_ovh, rt_zero,
                                       ovh_out + (pt.first_chaser + cu) * DISSECT_OVERHEAD_REPS);
  (void)chain_out, (void)lat_out, (void)idx_out;
}
#endif  // DISSECT_ABI_ONLY
