// dissect kernel templates: helpers shared by every template.
//
// These files are CUDA C++ read at run time and compiled with NVRTC; they are
// never compiled into the dissect binary. engine/codegen/codegen.cpp puts a
// block of #defines (the compile-time parameters) in front of a template and
// inlines its #include "..." lines. Compile-time parameters:
//
//   DISSECT_ELEM_U64   0: elements are u32, 1: u64
//   DISSECT_CLOCK64    0: time with %clock (32 bit), 1: with %clock64
//   DISSECT_USES_CONST 1 when some array is read through the constant bank
//
// Runtime quantities (array sizes, strides, contents, iterations) are kernel
// arguments, so a sweep over N reuses one CUBIN.
//
// The ABI: every template's parameter-table structs are also compiled by the host
// (engine/device/cuda/template_abi.hpp defines DISSECT_ABI_ONLY and includes the
// templates), so host and device share one definition. Under DISSECT_ABI_ONLY a
// template shows only its structs and constants: plain C types, no device code.
//
// Every array holds element *indices*: element j holds the index of the
// element visited after j (Mei & Chu's `j = A[j]`). A load path is one
// inline-PTX instruction, so the PTX (and the SASS kept in the bundle) shows
// exactly which instruction measured what.

#ifndef DISSECT_COMMON_CUH
#define DISSECT_COMMON_CUH

typedef unsigned int dissect_u32;
typedef unsigned long long dissect_u64;

// Load paths, numbered as codegen writes them (DISSECT_PATH*; path_code() on the host).
#define DISSECT_P_CA 0
#define DISSECT_P_CG 1
#define DISSECT_P_CS 2
#define DISSECT_P_CV 3
#define DISSECT_P_LU 4
#define DISSECT_P_LDG 5
#define DISSECT_P_TEX 6
#define DISSECT_P_CONST 7
#define DISSECT_P_SHARED 8

// Where one array lives, as the host describes it.
struct dissect_array_ref {
  dissect_u64 base;     // global paths: device pointer; const: element offset in the bank;
                        // shared: byte offset in dynamic shared memory (set by the kernel)
  dissect_u64 tex;      // tex path: texture object
  dissect_u64 src;      // shared path: device pointer the kernel copies into shared memory
  dissect_u64 n_elems;  // elements in the array
};

// Timer-overhead samples each timed thread writes (dissect_timer_overhead).
#define DISSECT_OVERHEAD_REPS 32

// timing.mode on_chip keeps each latency as one byte: in units of this many cycles
// (timing.unit; the host defines it per kernel), up to 255 units (dissect_on_chip_chase).
#ifndef DISSECT_ON_CHIP_UNIT
#define DISSECT_ON_CHIP_UNIT 2
#endif
#define DISSECT_ON_CHIP_MAX 255

#ifndef DISSECT_ABI_ONLY

#if DISSECT_ELEM_U64
typedef dissect_u64 dissect_elem;
#define DISSECT_ELEM_PTX "u64"
#else
typedef dissect_u32 dissect_elem;
#define DISSECT_ELEM_PTX "u32"
#endif

#if DISSECT_USES_CONST
// The whole 64 KiB constant bank a module may own; the host fills it through
// cuModuleGetGlobal("dissect_const_bank") + cuMemcpyHtoD. An array read
// through the constant path starts at an element offset in this bank.
__constant__ dissect_elem dissect_const_bank[65536 / sizeof(dissect_elem)];
#endif

extern __shared__ __align__(16) unsigned char dissect_dyn_shared[];

// ---- clocks -----------------------------------------------------------------
#if DISSECT_CLOCK64
typedef dissect_u64 dissect_time;
__device__ __forceinline__ dissect_time dissect_clock() {
  dissect_u64 t;
  asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
  return t;
}
#else
typedef dissect_u32 dissect_time;
__device__ __forceinline__ dissect_time dissect_clock() {
  dissect_u32 t;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(t)::"memory");
  return t;
}
#endif

__device__ __forceinline__ dissect_u32 dissect_smid() {
  dissect_u32 s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

// ---- shared / global stores used around the timed step ----------------------
__device__ __forceinline__ dissect_u32 dissect_shared_addr(const void* p) {
  return static_cast<dissect_u32>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void dissect_st_shared_u32(dissect_u32 addr, dissect_u32 v) {
  asm volatile("st.shared.u32 [%0], %1;" ::"r"(addr), "r"(v) : "memory");
}
__device__ __forceinline__ dissect_u32 dissect_ld_shared_u32(dissect_u32 addr) {
  dissect_u32 v;
  asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
  return v;
}
// Results leave through L2 only (.cg): flushing samples must not disturb the
// L1 contents under test.
__device__ __forceinline__ void dissect_st_global_cg_u32(dissect_u32* p, dissect_u32 v) {
  asm volatile("st.global.cg.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}
__device__ __forceinline__ void dissect_st_global_cg_u64(dissect_u64* p, dissect_u64 v) {
  asm volatile("st.global.cg.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

// ---- the load paths -----------------------------------------------------------
#define DISSECT_LD_GLOBAL(qual)                                                                    \
  asm volatile("ld.global." qual "." DISSECT_ELEM_PTX " %0, [%1];" : DISSECT_ELEM_OUT(v) : "l"(p) \
               : "memory")
#if DISSECT_ELEM_U64
#define DISSECT_ELEM_OUT(x) "=l"(x)
#else
#define DISSECT_ELEM_OUT(x) "=r"(x)
#endif

// One dependent load: returns element j of the array through path PATH.
template <int PATH>
__device__ __forceinline__ dissect_elem dissect_load(const dissect_array_ref& a, dissect_elem j) {
  dissect_elem v;
  if constexpr (PATH <= DISSECT_P_LDG) {
    const dissect_elem* p = reinterpret_cast<const dissect_elem*>(a.base) + j;
    if constexpr (PATH == DISSECT_P_CA) DISSECT_LD_GLOBAL("ca");
    else if constexpr (PATH == DISSECT_P_CG) DISSECT_LD_GLOBAL("cg");
    else if constexpr (PATH == DISSECT_P_CS) DISSECT_LD_GLOBAL("cs");
    else if constexpr (PATH == DISSECT_P_CV) DISSECT_LD_GLOBAL("cv");
    else if constexpr (PATH == DISSECT_P_LU) DISSECT_LD_GLOBAL("lu");
    else DISSECT_LD_GLOBAL("nc");
  } else if constexpr (PATH == DISSECT_P_TEX) {
    dissect_u32 x, y, z, w;
    asm volatile("tex.1d.v4.u32.s32 {%0, %1, %2, %3}, [%4, {%5}];"
                 : "=r"(x), "=r"(y), "=r"(z), "=r"(w)
                 : "l"(a.tex), "r"(static_cast<int>(j))
                 : "memory");
#if DISSECT_ELEM_U64
    v = (static_cast<dissect_u64>(y) << 32) | x;  // two 32-bit channels per element
#else
    v = x;
#endif
    (void)z, (void)w;
  } else if constexpr (PATH == DISSECT_P_CONST) {
#if DISSECT_USES_CONST
    v = dissect_const_bank[a.base + j];
#else
    v = j;  // unreachable: codegen sets DISSECT_USES_CONST for every const array
#endif
  } else {  // shared
    const dissect_u32 addr = static_cast<dissect_u32>(a.base + j * sizeof(dissect_elem));
#if DISSECT_ELEM_U64
    asm volatile("ld.shared.u64 %0, [%1];" : "=l"(v) : "r"(addr) : "memory");
#else
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
#endif
  }
  return v;
}

// The timed step without its load: the same address arithmetic, a value that
// depends on it, no memory access. Timing this measures the timer overhead
// (two clock reads, the address arithmetic and the dependent shared store).
template <int PATH>
__device__ __forceinline__ dissect_u32 dissect_fake_load(const dissect_array_ref& a, dissect_elem j) {
  dissect_u64 x;
  if constexpr (PATH <= DISSECT_P_LDG) {
    const dissect_elem* p = reinterpret_cast<const dissect_elem*>(a.base) + j;
    asm volatile("mov.b64 %0, %1;" : "=l"(x) : "l"(p) : "memory");
  } else if constexpr (PATH == DISSECT_P_SHARED) {
    const dissect_u64 addr = a.base + j * sizeof(dissect_elem);
    asm volatile("mov.b64 %0, %1;" : "=l"(x) : "l"(addr) : "memory");
  } else if constexpr (PATH == DISSECT_P_CONST) {
    const dissect_u64 addr = (a.base + j) * sizeof(dissect_elem);
    asm volatile("mov.b64 %0, %1;" : "=l"(x) : "l"(addr) : "memory");
  } else {
    asm volatile("mov.b64 %0, %1;" : "=l"(x) : "l"(static_cast<dissect_u64>(j)) : "memory");
  }
  return static_cast<dissect_u32>(x);
}

// Reads a parameter-table entry through L2 only (.cg), so that reading the
// tables leaves no line in the L1 under test.
template <typename T>
__device__ __forceinline__ T dissect_ldcg(const T* p) {
  static_assert(sizeof(T) % 8 == 0, "parameter tables are made of 8-byte words");
  T out;
  dissect_u64* o = reinterpret_cast<dissect_u64*>(&out);
  const dissect_u64* q = reinterpret_cast<const dissect_u64*>(p);
#pragma unroll
  for (unsigned k = 0; k < sizeof(T) / 8; ++k) asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(o[k]) : "l"(q + k));
  return out;
}

// The shared path reads a copy of the array in dynamic shared memory at byte
// offset `at`. Every thread of the block helps copy it; the caller then waits
// at a barrier. Returns the array's shared-memory address.
__device__ __forceinline__ dissect_u64 dissect_stage_shared(const dissect_array_ref& a, dissect_u32 at) {
  dissect_elem* dst = reinterpret_cast<dissect_elem*>(dissect_dyn_shared + at);
  const dissect_elem* src = reinterpret_cast<const dissect_elem*>(a.src);
  for (dissect_u64 i = threadIdx.x; i < a.n_elems; i += blockDim.x) dst[i] = src[i];
  return dissect_shared_addr(dst);
}

// Fine-grained chase of one thread (Mei & Chu, Listing 4, with chunks): every
// access timed; latency and loaded index kept in shared memory, `chunk`
// entries at a time, then flushed to global memory with .cg stores, so that
// `count` may exceed shared memory. Returns the index reached.
template <int PATH>
__device__ __forceinline__ dissect_elem dissect_timed_chase(const dissect_array_ref& a, dissect_elem j,
                                                            dissect_u64 count, dissect_u32 chunk,
                                                            dissect_u32 s_lat, dissect_u32 s_idx,
                                                            dissect_u32* lat_out, dissect_u32* idx_out) {
  for (dissect_u64 done = 0; done < count; done += chunk) {
    const dissect_u32 n = count - done < chunk ? static_cast<dissect_u32>(count - done) : chunk;
    for (dissect_u32 i = 0; i < n; ++i) {
      const dissect_time t0 = dissect_clock();
      const dissect_elem v = dissect_load<PATH>(a, j);
      dissect_st_shared_u32(s_idx + 4 * i, static_cast<dissect_u32>(v));  // the dependent store
      const dissect_time t1 = dissect_clock();
      dissect_st_shared_u32(s_lat + 4 * i, static_cast<dissect_u32>(t1 - t0));
      j = v;
    }
    for (dissect_u32 i = 0; i < n; ++i) {
      dissect_st_global_cg_u32(lat_out + done + i, dissect_ld_shared_u32(s_lat + 4 * i));
      dissect_st_global_cg_u32(idx_out + done + i, dissect_ld_shared_u32(s_idx + 4 * i));
    }
  }
  return j;
}

// On-chip fine-grained chase (timing.mode on_chip): every access timed as in
// dissect_timed_chase, but each latency is kept as one byte in shared memory (in
// units of DISSECT_ON_CHIP_UNIT cycles, saturating at DISSECT_ON_CHIP_MAX units) and nothing is
// stored to global memory until the timed window is over: a per-access chase whose
// sample flushes would evict lines of the L1 under test (they do on Hopper) measures
// that L1 undisturbed. Returns the index reached.
template <int PATH>
__device__ __forceinline__ dissect_elem dissect_on_chip_chase(const dissect_array_ref& a, dissect_elem j,
                                                              dissect_u64 count, dissect_u32 s_lat8,
                                                              dissect_u32 s_scratch) {
  for (dissect_u32 i = 0; i < static_cast<dissect_u32>(count); ++i) {
    const dissect_time t0 = dissect_clock();
    const dissect_elem v = dissect_load<PATH>(a, j);
    dissect_st_shared_u32(s_scratch, static_cast<dissect_u32>(v));  // the dependent store
    const dissect_time t1 = dissect_clock();
    dissect_u32 d = (static_cast<dissect_u32>(t1 - t0) + DISSECT_ON_CHIP_UNIT / 2) / DISSECT_ON_CHIP_UNIT;
    d = d > DISSECT_ON_CHIP_MAX ? DISSECT_ON_CHIP_MAX : d;
    asm volatile("st.shared.u8 [%0], %1;" ::"r"(s_lat8 + i), "r"(d) : "memory");
    j = v;
  }
  return j;
}

// After an on-chip chase: the latencies to global memory (in cycles), and the
// indices it visited, found by walking the chase again from `j0` (the chase is
// deterministic; this walk comes after the timed window and disturbs nothing timed).
template <int PATH>
__device__ __forceinline__ void dissect_on_chip_flush(const dissect_array_ref& a, dissect_elem j0, dissect_u64 count,
                                                      dissect_u32 s_lat8, dissect_u32* lat_out, dissect_u32* idx_out) {
  dissect_elem j = j0;
  for (dissect_u32 i = 0; i < static_cast<dissect_u32>(count); ++i) {
    dissect_u32 d;
    asm volatile("ld.shared.u8 %0, [%1];" : "=r"(d) : "r"(s_lat8 + i) : "memory");
    dissect_st_global_cg_u32(lat_out + i, d * DISSECT_ON_CHIP_UNIT);
    j = dissect_load<PATH>(a, j);
    dissect_st_global_cg_u32(idx_out + i, static_cast<dissect_u32>(j));
  }
}

// Untimed passes: the same load instruction, results chained so that nothing
// can be removed.
template <int PATH>
__device__ __forceinline__ dissect_elem dissect_untimed_chase(const dissect_array_ref& a, dissect_elem j,
                                                              dissect_u64 count) {
  for (dissect_u64 k = 0; k < count; ++k) j = dissect_load<PATH>(a, j);
  return j;
}

// Timer overhead, measured in the same launch: `reps` empty dependent steps.
// `rt_zero` is a kernel argument that is always 0, so the compiler cannot see
// that the index does not change.
template <int PATH>
__device__ __forceinline__ void dissect_timer_overhead(const dissect_array_ref& a, dissect_elem j,
                                                       dissect_u32 s_scratch, dissect_u32 rt_zero,
                                                       dissect_u32* ovh_out) {
  for (dissect_u32 k = 0; k < DISSECT_OVERHEAD_REPS; ++k) {
    const dissect_time t0 = dissect_clock();
    const dissect_u32 v = dissect_fake_load<PATH>(a, j);
    dissect_st_shared_u32(s_scratch, v);
    const dissect_time t1 = dissect_clock();
    dissect_st_global_cg_u32(ovh_out + k, static_cast<dissect_u32>(t1 - t0));
    j += static_cast<dissect_elem>(v & rt_zero);
  }
}
#endif  // DISSECT_ABI_ONLY
#endif  // DISSECT_COMMON_CUH
