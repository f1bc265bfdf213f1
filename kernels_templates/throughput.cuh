// dissect template: load throughput (Mei & Chu 2017 §5.1, supplement §5.1, §6.1).
//
// Every thread of every block of a point makes `iters` x ILP independent loads through
// the load path: thread g (of T in the point) loads elements g, g + T, g + 2T, ... mod N
// (each warp request coalesced). Lane 0 of each warp times the warp from its first load
// to its last result: one sample per warp = cycles; the bytes are counted on the host.
//
// Compile-time parameters: those of common.cuh, DISSECT_PATH and DISSECT_ILP.
#include "common.cuh"

struct dissect_tp_point {
  dissect_array_ref array;
  dissect_u64 iters;          // rounds of ILP loads per thread
  dissect_u64 out_base;       // warp w of this block writes lat_out[out_base + w]
  dissect_u32 first_thread;   // of this block within the point
  dissect_u32 total_threads;  // T
  dissect_u32 shared_at;      // shared path: where the array copy starts
  dissect_u32 pad;
};

extern "C" __global__ void dissect_throughput(const dissect_tp_point* __restrict__ points, dissect_u32* lat_out,
                                              dissect_u64* final_out, dissect_u32* smid_out, dissect_u32* ovh_out,
                                              dissect_u32 rt_zero) {
  const dissect_tp_point pt = dissect_ldcg(points + blockIdx.x);
  dissect_array_ref a = pt.array;
  if (threadIdx.x == 0) smid_out[blockIdx.x] = dissect_smid();
#if DISSECT_PATH == DISSECT_P_SHARED
  a.base = dissect_stage_shared(a, pt.shared_at);
#endif
  __syncthreads();
  // 32-bit index arithmetic (the host guarantees N < 2^32 elements): the loop must
  // be limited by the loads, not by the index updates.
  const dissect_u32 n = static_cast<dissect_u32>(a.n_elems);
  const dissect_u64 T = pt.total_threads;
  const dissect_u64 g = pt.first_thread + threadIdx.x;
  dissect_u32 idx[DISSECT_ILP];
#pragma unroll
  for (int q = 0; q < DISSECT_ILP; ++q) idx[q] = static_cast<dissect_u32>((g + q * T) % n);
  const dissect_u32 step = static_cast<dissect_u32>((DISSECT_ILP * T) % n);
  dissect_elem acc = 0;
  const dissect_time t0 = dissect_clock();
  for (dissect_u64 it = 0; it < pt.iters; ++it) {
    dissect_elem v[DISSECT_ILP];
#pragma unroll
    for (int q = 0; q < DISSECT_ILP; ++q) v[q] = dissect_load<DISSECT_PATH>(a, static_cast<dissect_elem>(idx[q]));
#pragma unroll
    for (int q = 0; q < DISSECT_ILP; ++q) {
      acc ^= v[q];
      idx[q] = idx[q] >= n - step ? idx[q] - (n - step) : idx[q] + step;
    }
  }
  dissect_st_shared_u32(dissect_shared_addr(dissect_dyn_shared) + 4u * threadIdx.x, static_cast<dissect_u32>(acc));
  const dissect_time t1 = dissect_clock();
  if ((threadIdx.x & 31) == 0)
    lat_out[pt.out_base + threadIdx.x / 32] = static_cast<dissect_u32>(static_cast<dissect_time>(t1 - t0));
  final_out[blockIdx.x * blockDim.x + threadIdx.x] = static_cast<dissect_u64>(acc);
  if (threadIdx.x == 0 && pt.first_thread == 0)
    dissect_timer_overhead<DISSECT_PATH>(a, 0, dissect_shared_addr(dissect_dyn_shared), rt_zero,
                                         ovh_out + blockIdx.x * DISSECT_OVERHEAD_REPS);
}
