// dissect template: shared-memory bank conflicts (Mei & Chu 2014 §3.1, Listing 1; §4.1).
//
// Every thread (lane) of a block reads one shared-memory word, (offset + lane * stride)
// mod N, `iters` times as a dependent chain (the word holds its own index), between
// two clock reads: one sample per lane = average cycles per read. Lanes of a warp read
// together, so the average shows the warp's bank-conflict degree.
//
// Compile-time parameters: those of common.cuh.
#include "common.cuh"

struct dissect_ss_point {
  dissect_u64 n_elems;       // shared array, elements
  dissect_u64 offset_bytes;  // lane 0's word
  dissect_u64 stride_bytes;  // between lanes
  dissect_u64 iters;         // dependent reads per lane, timed
  dissect_u64 warm;          // dependent reads per lane before timing
  dissect_u64 out_base;      // lane t writes cycles_out[out_base + t]
};

#ifndef DISSECT_ABI_ONLY
extern "C" __global__ void dissect_shared_stride(const dissect_ss_point* __restrict__ points,
                                                 dissect_u64* cycles_out, dissect_u64* final_out,
                                                 dissect_u32* smid_out, dissect_u32* ovh_out, dissect_u32 rt_zero) {
  const dissect_ss_point pt = dissect_ldcg(points + blockIdx.x);
  if (threadIdx.x == 0) smid_out[blockIdx.x] = dissect_smid();
  // Scratch for the timer-overhead step first, then the array: word i holds i.
  dissect_elem* arr = reinterpret_cast<dissect_elem*>(dissect_dyn_shared + 16);
  for (dissect_u64 i = threadIdx.x; i < pt.n_elems; i += blockDim.x) arr[i] = static_cast<dissect_elem>(i);
  __syncthreads();
  dissect_array_ref a;
  a.base = dissect_shared_addr(arr);
  a.tex = a.src = 0;
  a.n_elems = pt.n_elems;
  const dissect_u64 size = pt.n_elems * sizeof(dissect_elem);
  dissect_elem j = static_cast<dissect_elem>(((pt.offset_bytes + threadIdx.x * pt.stride_bytes) % size) /
                                             sizeof(dissect_elem));
  j = dissect_untimed_chase<DISSECT_P_SHARED>(a, j, pt.warm);
  __syncwarp();
  const dissect_time t0 = dissect_clock();
  j = dissect_untimed_chase<DISSECT_P_SHARED>(a, j, pt.iters);
  dissect_st_shared_u32(dissect_shared_addr(dissect_dyn_shared), static_cast<dissect_u32>(j));  // waits for j
  const dissect_time t1 = dissect_clock();
  cycles_out[pt.out_base + threadIdx.x] = static_cast<dissect_u64>(static_cast<dissect_time>(t1 - t0));
  final_out[pt.out_base + threadIdx.x] = static_cast<dissect_u64>(j);
  if (threadIdx.x == 0)
    dissect_timer_overhead<DISSECT_P_SHARED>(a, j, dissect_shared_addr(dissect_dyn_shared), rt_zero,
                                             ovh_out + blockIdx.x * DISSECT_OVERHEAD_REPS);
}
#endif  // DISSECT_ABI_ONLY
