// dissect template: load and store throughput (Mei & Chu 2017 §5.1, supplement §5.1, §6.1).
//
// Every thread of every block of a point makes `iters` x ILP independent loads (or,
// with DISSECT_STORE 1, stores) through the path. In round r the T threads of the
// point access the ILP x T elements from r x ILP x T on (mod N), every warp request
// 32 consecutive elements (coalesced: a u32 request is one 128 B line, a u64 request
// two; no shared-memory bank conflict for u32 or u64 elements). Lane 0 of each warp
// times the warp from its first access to its last result (stores: to their
// completion, below): one sample per warp = cycles; the bytes are counted on the host.
//
// Two loops access the same elements:
//  - the streaming loop (global paths and shared memory, when every block has whole
//    warps and N is a multiple of ILP x 32 elements): warp w of the point accesses, in
//    round r, the ILP x 32 elements from (r x T / 32 + w) x ILP x 32; access q of a
//    thread is at its round's address + q x 32 elements, an immediate offset of the
//    instruction (sm_90: LDS / LDS.64 [R+imm], LDG [R.64+imm]; STS, STG likewise).
//    The only other work per round is one address update (add, compare, select) and
//    the XOR sink (loads) or the value's increment (stores).
//  - the general loop otherwise (tex, const, odd sizes): thread g accesses elements
//    g, g + T, g + 2T, ... (mod N), each access's index updated on its own.
// The round's address advances by a run-time amount (ILP x T mod N, even when that is
// 0), so the compiler cannot prove the accesses of two rounds equal and hoist or
// merge them. Loads: every loaded value feeds the XOR sink, which is stored to shared
// and to global memory: no load is dead or narrowed. Stores: each is one inline-PTX
// `st` (asm volatile, a memory clobber: never removed, merged or reordered), of a
// value that changes every round; the cache operator is the path's store
// (store_operator() on the host: ca -> st.global.wb, cg -> .cg, cs -> .cs, cv -> .wt,
// shared -> st.shared). A store retires before it reaches memory, so after its last
// round a thread waits at a fence (membar.gl; shared: membar.cta) until its stores are
// visible to the GPU (the L2), and only then reads the clock: the time covers the
// stores, not only their issue. A store kernel's array is never written beforehand.
//
// Compile-time parameters: those of common.cuh, DISSECT_PATH, DISSECT_ILP and
// DISSECT_STORE (0: loads, 1: stores).
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

#ifndef DISSECT_ABI_ONLY
#define DISSECT_TP_STREAMING (DISSECT_PATH <= DISSECT_P_LDG || DISSECT_PATH == DISSECT_P_SHARED)

#if DISSECT_STORE && !(DISSECT_PATH <= DISSECT_P_CV || DISSECT_PATH == DISSECT_P_SHARED)
#error "stores: DISSECT_PATH must be ca, cg, cs, cv or shared (the paths with a store)"
#endif

// A store at a byte address of the global window or (shared path) the shared window.
#if DISSECT_PATH == DISSECT_P_SHARED
#define DISSECT_TP_ST_SPACE "shared"
typedef dissect_u32 dissect_tp_st_addr;
#define DISSECT_TP_ST_ADDR_IN(x) "r"(x)
#else
#if DISSECT_PATH == DISSECT_P_CG
#define DISSECT_TP_ST_SPACE "global.cg"
#elif DISSECT_PATH == DISSECT_P_CS
#define DISSECT_TP_ST_SPACE "global.cs"
#elif DISSECT_PATH == DISSECT_P_CV
#define DISSECT_TP_ST_SPACE "global.wt"
#else
#define DISSECT_TP_ST_SPACE "global.wb"
#endif
typedef dissect_u64 dissect_tp_st_addr;
#define DISSECT_TP_ST_ADDR_IN(x) "l"(x)
#endif
#if DISSECT_ELEM_U64
#define DISSECT_TP_ELEM_IN(x) "l"(x)
#else
#define DISSECT_TP_ELEM_IN(x) "r"(x)
#endif
__device__ __forceinline__ void dissect_tp_store(dissect_tp_st_addr addr, dissect_elem v) {
  asm volatile("st." DISSECT_TP_ST_SPACE "." DISSECT_ELEM_PTX " [%0], %1;" ::DISSECT_TP_ST_ADDR_IN(addr),
               DISSECT_TP_ELEM_IN(v)
               : "memory");
}

#if DISSECT_TP_STREAMING
// One load at a byte address (global paths: a generic address; shared: a shared-window
// address). The same instruction as dissect_load<PATH>, without the index arithmetic.
#if DISSECT_PATH == DISSECT_P_SHARED
typedef dissect_u32 dissect_tp_addr;
#define DISSECT_TP_ADDR_IN(x) "r"(x)
#else
typedef dissect_u64 dissect_tp_addr;
#define DISSECT_TP_ADDR_IN(x) "l"(x)
#endif
#if DISSECT_PATH == DISSECT_P_SHARED
#define DISSECT_TP_SPACE "shared"
#elif DISSECT_PATH == DISSECT_P_CA
#define DISSECT_TP_SPACE "global.ca"
#elif DISSECT_PATH == DISSECT_P_CG
#define DISSECT_TP_SPACE "global.cg"
#elif DISSECT_PATH == DISSECT_P_CS
#define DISSECT_TP_SPACE "global.cs"
#elif DISSECT_PATH == DISSECT_P_CV
#define DISSECT_TP_SPACE "global.cv"
#elif DISSECT_PATH == DISSECT_P_LU
#define DISSECT_TP_SPACE "global.lu"
#else
#define DISSECT_TP_SPACE "global.nc"
#endif
__device__ __forceinline__ dissect_elem dissect_tp_load(dissect_tp_addr addr) {
  dissect_elem v;
  asm volatile("ld." DISSECT_TP_SPACE "." DISSECT_ELEM_PTX " %0, [%1];"
               : DISSECT_ELEM_OUT(v)
               : DISSECT_TP_ADDR_IN(addr)
               : "memory");
  return v;
}
#endif

extern "C" __global__ void dissect_throughput(const dissect_tp_point* __restrict__ points, dissect_u32* lat_out,
                                              dissect_u64* final_out, dissect_u32* smid_out, dissect_u32* ovh_out,
                                              dissect_u32 rt_zero) {
  const dissect_tp_point pt = dissect_ldcg(points + blockIdx.x);
  dissect_array_ref a = pt.array;
  if (threadIdx.x == 0) smid_out[blockIdx.x] = dissect_smid();
#if DISSECT_PATH == DISSECT_P_SHARED && DISSECT_STORE
  a.base = dissect_shared_addr(dissect_dyn_shared + pt.shared_at);  // written, never read: no copy
#elif DISSECT_PATH == DISSECT_P_SHARED
  a.base = dissect_stage_shared(a, pt.shared_at);
#endif
  __syncthreads();
  // 32-bit index arithmetic (the host guarantees N < 2^32 elements): the loop must
  // be limited by the loads, not by the index updates.
  const dissect_u32 n = static_cast<dissect_u32>(a.n_elems);
  const dissect_u32 T = pt.total_threads;
  const dissect_u32 g = pt.first_thread + threadIdx.x;
  const dissect_u32 step = static_cast<dissect_u32>((static_cast<dissect_u64>(DISSECT_ILP) * T) % n);
  // Loads: the XOR sink. Stores: the value stored, one per thread, changing every round.
  dissect_elem acc = DISSECT_STORE ? static_cast<dissect_elem>(g) : 0;
  dissect_time t0, t1;
#if DISSECT_TP_STREAMING
  // Uniform over the launch: every block has the same blockDim and array.
  const bool streaming = (blockDim.x & 31u) == 0 && n % (32u * DISSECT_ILP) == 0;
  if (streaming) {
    constexpr dissect_u32 E = sizeof(dissect_elem);
    const dissect_u32 lane = threadIdx.x & 31u;
    // Round 0: warp g / 32 of the point starts at element (g / 32) x ILP x 32 (mod N).
    const dissect_u32 c0 = static_cast<dissect_u32>((static_cast<dissect_u64>(g >> 5) * (32u * DISSECT_ILP)) % n);
    // addr = base + (c + lane) x E; the round start c wraps when c >= N - step.
    dissect_tp_addr addr = static_cast<dissect_tp_addr>(a.base) + static_cast<dissect_tp_addr>(c0 + lane) * E;
    const dissect_tp_addr wrap_at =
        static_cast<dissect_tp_addr>(a.base) + (static_cast<dissect_tp_addr>(n - step) + lane) * E;
    const dissect_tp_addr back = static_cast<dissect_tp_addr>(n - step) * E;
    const dissect_tp_addr fwd = static_cast<dissect_tp_addr>(step) * E;
    t0 = dissect_clock();
    for (dissect_u64 it = 0; it < pt.iters; ++it) {
#if DISSECT_STORE
#pragma unroll
      for (int q = 0; q < DISSECT_ILP; ++q) dissect_tp_store(addr + static_cast<dissect_tp_addr>(q * 32 * E), acc);
      ++acc;
#else
      dissect_elem v[DISSECT_ILP];
#pragma unroll
      for (int q = 0; q < DISSECT_ILP; ++q) v[q] = dissect_tp_load(addr + static_cast<dissect_tp_addr>(q * 32 * E));
#pragma unroll
      for (int q = 0; q < DISSECT_ILP; ++q) acc ^= v[q];
#endif
      addr = addr >= wrap_at ? addr - back : addr + fwd;
    }
  } else
#endif
  {
    dissect_u32 idx[DISSECT_ILP];
#pragma unroll
    for (int q = 0; q < DISSECT_ILP; ++q)
      idx[q] = static_cast<dissect_u32>((static_cast<dissect_u64>(g) + static_cast<dissect_u64>(q) * T) % n);
    t0 = dissect_clock();
    for (dissect_u64 it = 0; it < pt.iters; ++it) {
#if DISSECT_STORE
#pragma unroll
      for (int q = 0; q < DISSECT_ILP; ++q)
        dissect_tp_store(static_cast<dissect_tp_st_addr>(a.base) +
                             static_cast<dissect_tp_st_addr>(idx[q]) * static_cast<dissect_tp_st_addr>(sizeof(acc)),
                         acc);
      ++acc;
#pragma unroll
      for (int q = 0; q < DISSECT_ILP; ++q) idx[q] = idx[q] >= n - step ? idx[q] - (n - step) : idx[q] + step;
#else
      dissect_elem v[DISSECT_ILP];
#pragma unroll
      for (int q = 0; q < DISSECT_ILP; ++q)
        v[q] = dissect_load<DISSECT_PATH>(a, static_cast<dissect_elem>(idx[q]));
#pragma unroll
      for (int q = 0; q < DISSECT_ILP; ++q) {
        acc ^= v[q];
        idx[q] = idx[q] >= n - step ? idx[q] - (n - step) : idx[q] + step;
      }
#endif
    }
  }
#if DISSECT_STORE && DISSECT_PATH == DISSECT_P_SHARED
  __threadfence_block();  // the stores have reached shared memory
#elif DISSECT_STORE
  __threadfence();  // the stores are visible to the GPU: they have reached the L2
#endif
  dissect_st_shared_u32(dissect_shared_addr(dissect_dyn_shared) + 4u * threadIdx.x, static_cast<dissect_u32>(acc));
  t1 = dissect_clock();
  if ((threadIdx.x & 31) == 0)
    lat_out[pt.out_base + threadIdx.x / 32] = static_cast<dissect_u32>(static_cast<dissect_time>(t1 - t0));
  final_out[blockIdx.x * blockDim.x + threadIdx.x] = static_cast<dissect_u64>(acc);
  if (threadIdx.x == 0 && pt.first_thread == 0)
    dissect_timer_overhead<DISSECT_PATH>(a, 0, dissect_shared_addr(dissect_dyn_shared), rt_zero,
                                         ovh_out + blockIdx.x * DISSECT_OVERHEAD_REPS);
}
#endif  // DISSECT_ABI_ONLY
