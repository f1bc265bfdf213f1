#pragma once
// Host mirrors of the parameter tables the kernel templates read
// (kernels_templates/common.cuh, pchase.cuh, phases.cuh, scatter.cuh). The layouts must
// match field for field; the static_asserts below catch a drift in size, and
// tests/engine/device/cuda/kernel_abi_test.cpp compares the field lists.
#include <cstdint>

namespace dissect::abi {

struct ArrayRef {
  std::uint64_t base = 0;     // device pointer (global paths) | element offset in the constant bank | unused (shared)
  std::uint64_t tex = 0;      // texture object (tex path)
  std::uint64_t src = 0;      // shared path: device pointer copied into shared memory
  std::uint64_t n_elems = 0;  // elements
};

struct PchasePoint {
  ArrayRef array;
  std::uint64_t warm = 0;
  std::uint64_t iters = 0;
  std::uint64_t out_base = 0;
  std::uint32_t first_chaser = 0;
  std::uint32_t n_chasers = 0;
  std::uint32_t chunk = 0;
  std::uint32_t shared_at = 0;
};

struct Chaser {
  std::uint64_t start = 0;   // element index
  std::uint32_t thread = 0;  // threadIdx.x
  std::uint32_t pad = 0;
};

struct PhasesPoint {
  std::uint32_t first_array = 0, n_arrays = 0;
  std::uint32_t first_phase = 0, n_phases = 0;
  std::uint32_t chunk = 0;
  std::uint32_t overhead_array = 0;
};

struct PhaseArray {
  ArrayRef ref;
  std::uint64_t start = 0;     // element index
  std::uint64_t pass_len = 0;  // accesses per pass
  std::uint32_t path = 0;      // DISSECT_P_*
  std::uint32_t shared_at = 0;
};

struct Phase {
  std::uint32_t thread = 0;
  std::uint32_t array = 0;
  std::uint32_t measure = 0;
  std::uint32_t passes = 0;
  std::uint64_t out_base = 0;
};

struct SsPoint {  // shared_stride.cuh
  std::uint64_t n_elems = 0, offset_bytes = 0, stride_bytes = 0, iters = 0, warm = 0, out_base = 0;
};

struct CoPoint {  // coalescing.cuh
  ArrayRef array;
  std::uint64_t size_bytes = 0, offset_bytes = 0, stride_bytes = 0, iters = 0, warm = 0, out_base = 0;
  std::uint32_t lanes = 0, shared_at = 0;
};

struct TpPoint {  // throughput.cuh
  ArrayRef array;
  std::uint64_t iters = 0, out_base = 0;
  std::uint32_t first_thread = 0, total_threads = 0, shared_at = 0, pad = 0;
};

// One array of a batched sequential fill (scatter.cuh, dissect_fill_desc): element i
// of the array at `dst` holds (i + s) mod n; `first` numbers its elements after those
// of the arrays before it in the batch (engine/device/cuda/fill_batch.hpp).
struct FillDesc {
  std::uint64_t dst = 0;         // device pointer
  std::uint64_t n = 0;           // elements (never 0 in a batch)
  std::uint64_t s = 0;           // elements, s <= n
  std::uint64_t first = 0;       // elements of the batch before this array
  std::uint32_t elem_bytes = 4;  // 4 or 8
  std::uint32_t pad = 0;
};

// Timer-overhead samples each chaser writes (DISSECT_OVERHEAD_REPS).
inline constexpr std::uint32_t kOverheadReps = 32;
inline constexpr int kPathShared = 8;

static_assert(sizeof(ArrayRef) == 32);
static_assert(sizeof(PchasePoint) == 72);
static_assert(sizeof(Chaser) == 16);
static_assert(sizeof(PhasesPoint) == 24);
static_assert(sizeof(PhaseArray) == 56);
static_assert(sizeof(Phase) == 24);
static_assert(sizeof(SsPoint) == 48);
static_assert(sizeof(CoPoint) == 88);
static_assert(sizeof(TpPoint) == 64);
static_assert(sizeof(FillDesc) == 40);

}  // namespace dissect::abi
