// dissect template: coalescing (sectors per warp request; seed 001, ch. 4).
//
// The first warp of a block loads, lane i from (offset + i * stride) mod N, through the
// load path; lane 0 times each warp-wide request (the dependent shared store waits for
// every lane's data). `iters` requests after `warm` untimed ones; each request depends
// on the previous one (through a runtime zero), so they never overlap.
//
// Compile-time parameters: those of common.cuh and DISSECT_PATH.
#include "common.cuh"

struct dissect_co_point {
  dissect_array_ref array;
  dissect_u64 size_bytes;
  dissect_u64 offset_bytes;
  dissect_u64 stride_bytes;
  dissect_u64 iters;
  dissect_u64 warm;
  dissect_u64 out_base;   // lane 0 writes lat_out[out_base + k]
  dissect_u32 lanes;      // loading lanes (<= 32)
  dissect_u32 shared_at;  // shared path: where the array copy starts in dynamic shared memory
};

#ifndef DISSECT_ABI_ONLY
extern "C" __global__ void dissect_coalescing(const dissect_co_point* __restrict__ points, dissect_u32* lat_out,
                                              dissect_u64* final_out, dissect_u32* smid_out, dissect_u32* ovh_out,
                                              dissect_u32 rt_zero) {
  const dissect_co_point pt = dissect_ldcg(points + blockIdx.x);
  dissect_array_ref a = pt.array;
  if (threadIdx.x == 0) smid_out[blockIdx.x] = dissect_smid();
#if DISSECT_PATH == DISSECT_P_SHARED
  a.base = dissect_stage_shared(a, pt.shared_at);
  __syncthreads();
#endif
  if (threadIdx.x >= pt.lanes) return;
  const dissect_u32 scratch = dissect_shared_addr(dissect_dyn_shared) + 4u * threadIdx.x;
  const dissect_elem j0 = static_cast<dissect_elem>(((pt.offset_bytes + threadIdx.x * pt.stride_bytes) % pt.size_bytes) /
                                                    sizeof(dissect_elem));
  dissect_elem dep = 0;
  for (dissect_u64 k = 0; k < pt.warm; ++k) dep = dissect_load<DISSECT_PATH>(a, j0 + (dep & rt_zero));
  for (dissect_u64 k = 0; k < pt.iters; ++k) {
    const dissect_time t0 = dissect_clock();
    const dissect_elem v = dissect_load<DISSECT_PATH>(a, j0 + (dep & rt_zero));
    dissect_st_shared_u32(scratch, static_cast<dissect_u32>(v));  // the warp waits for all its lanes
    const dissect_time t1 = dissect_clock();
    if (threadIdx.x == 0) dissect_st_global_cg_u32(lat_out + pt.out_base + k, static_cast<dissect_u32>(t1 - t0));
    dep = v;
  }
  final_out[blockIdx.x * 32 + threadIdx.x] = static_cast<dissect_u64>(dep);
  if (threadIdx.x == 0)
    dissect_timer_overhead<DISSECT_PATH>(a, j0, scratch, rt_zero, ovh_out + blockIdx.x * DISSECT_OVERHEAD_REPS);
}
#endif  // DISSECT_ABI_ONLY
