// dissect template: phases (MT4G, Größler 2022, §4.5-4.6).
//
// Several arrays, each read through its own load path, and an ordered list of
// phases: in phase p, thread `thread` warms (untimed passes) or measures
// (fine-grained timed passes) array `array`; all threads meet at a barrier
// between phases. "L1 and texture share one cache?" is: thread 0 warms A
// (path ca), thread 1 warms B (path tex), thread 0 measures A, thread 1
// measures B. "How many L1s per SM?" is the same with thread 0 and thread t.
//
// Compile-time parameters (besides those of common.cuh):
//   DISSECT_NARRAYS        number of arrays
//   DISSECT_PHASE_SWITCH   generated: one DISSECT_PHASE_CASE(k, path of array k) per array
#include "common.cuh"

struct dissect_phases_point {
  dissect_u32 first_array, n_arrays;  // into the array table
  dissect_u32 first_phase, n_phases;  // into the phase table
  dissect_u32 chunk;                  // shared-memory sample entries (one thread runs at a time)
  dissect_u32 overhead_array;         // array whose path the timer-overhead step imitates
};

struct dissect_phase_array {
  dissect_array_ref ref;
  dissect_u64 start;      // first index
  dissect_u64 pass_len;   // accesses in one pass
  dissect_u32 path;       // DISSECT_P_* (for staging shared-path arrays)
  dissect_u32 shared_at;  // shared path: byte offset of the copy in dynamic shared memory
};

struct dissect_phase {
  dissect_u32 thread;
  dissect_u32 array;     // index within the point's arrays
  dissect_u32 measure;   // 0: warm, 1: measure
  dissect_u32 passes;
  dissect_u64 out_base;  // measure: first sample slot
};

#ifndef DISSECT_ABI_ONLY
template <int PATH>
__device__ __forceinline__ dissect_elem dissect_phase_step(dissect_phase_array arr, const dissect_phase& ph,
                                                           dissect_u32 chunk, dissect_u32 s_lat, dissect_u32 s_idx,
                                                           dissect_u32* lat_out, dissect_u32* idx_out) {
  if constexpr (PATH == DISSECT_P_SHARED) arr.ref.base = dissect_shared_addr(dissect_dyn_shared + arr.shared_at);
  const dissect_u64 count = static_cast<dissect_u64>(ph.passes) * arr.pass_len;
  dissect_elem j = static_cast<dissect_elem>(arr.start);
  if (ph.measure)
    return dissect_timed_chase<PATH>(arr.ref, j, count, chunk, s_lat, s_idx, lat_out + ph.out_base,
                                     idx_out + ph.out_base);
  return dissect_untimed_chase<PATH>(arr.ref, j, count);
}

template <int PATH>
__device__ __forceinline__ void dissect_phase_overhead(dissect_phase_array arr, dissect_u32 s_scratch,
                                                       dissect_u32 rt_zero, dissect_u32* ovh_out) {
  if constexpr (PATH == DISSECT_P_SHARED) arr.ref.base = dissect_shared_addr(dissect_dyn_shared + arr.shared_at);
  dissect_timer_overhead<PATH>(arr.ref, static_cast<dissect_elem>(arr.start), s_scratch, rt_zero, ovh_out);
}

#define DISSECT_PHASE_CASE(k, PATHK)                                                                     \
  case k:                                                                                              \
    j = dissect_phase_step<PATHK>(arr, ph, pt.chunk, s_lat, s_idx, lat_out, idx_out);                  \
    break;
#define DISSECT_OVERHEAD_CASE(k, PATHK)                                                                  \
  case k:                                                                                              \
    dissect_phase_overhead<PATHK>(arr, s_lat, rt_zero, ovh_out + blockIdx.x * DISSECT_OVERHEAD_REPS);   \
    break;

extern "C" __global__ void dissect_phases(const dissect_phases_point* __restrict__ points,
                                          const dissect_phase_array* __restrict__ arrays,
                                          const dissect_phase* __restrict__ phases, dissect_u32* lat_out,
                                          dissect_u32* idx_out, dissect_u64* final_out, dissect_u32* smid_out,
                                          dissect_u32* ovh_out, dissect_u32 rt_zero) {
  const dissect_phases_point pt = dissect_ldcg(points + blockIdx.x);
  if (threadIdx.x == 0) smid_out[blockIdx.x] = dissect_smid();

  // Copy shared-path arrays into shared memory (every thread helps).
  for (dissect_u32 k = 0; k < pt.n_arrays; ++k) {
    const dissect_phase_array arr = dissect_ldcg(arrays + pt.first_array + k);
    if (arr.path == DISSECT_P_SHARED) (void)dissect_stage_shared(arr.ref, arr.shared_at);
  }
  __syncthreads();

  const dissect_u32 s_lat = dissect_shared_addr(dissect_dyn_shared);
  const dissect_u32 s_idx = s_lat + 4u * pt.chunk;
  for (dissect_u32 p = 0; p < pt.n_phases; ++p) {
    const dissect_phase ph = dissect_ldcg(phases + pt.first_phase + p);
    if (threadIdx.x == ph.thread) {
      const dissect_phase_array arr = dissect_ldcg(arrays + pt.first_array + ph.array);
      dissect_elem j = 0;
      switch (ph.array) { DISSECT_PHASE_SWITCH }
      final_out[pt.first_phase + p] = static_cast<dissect_u64>(j);
    }
    __syncthreads();
  }

  if (threadIdx.x == 0) {
    const dissect_phase_array arr = dissect_ldcg(arrays + pt.first_array + pt.overhead_array);
#undef DISSECT_PHASE_CASE
#define DISSECT_PHASE_CASE DISSECT_OVERHEAD_CASE
    switch (pt.overhead_array) { DISSECT_PHASE_SWITCH }
  }
}
#endif  // DISSECT_ABI_ONLY
