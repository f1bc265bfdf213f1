#pragma once
// The typed form of one experiment: what a spec says after includes, --set
// overrides and (for a sweep point) the axis values were applied. Every size is
// resolved to bytes. This is what devices run and what bundles record.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/core/diagnostics.hpp"

namespace dissect {

// How a load reaches memory. The names are the ones users write in specs.
enum class LoadPath { ca, cg, cs, cv, lu, ldg, tex, constant, shared };
enum class ElementType { u32, u64 };
// What the kernel does to its array: read it, or write it (the throughput kernel's
// store variant: `access: store`; the path's cache operator then names a store's,
// store_operator()).
enum class Access { load, store };
// Order in which the chase visits the array.
enum class Pattern {
  sequential,    // 0, s, 2s, ... wrapping at N
  random,        // one random cycle through the N/s slots (Sattolo's algorithm)
  list,          // explicit offsets, in order (array.indices)
  page_strided,  // one access per page: page j at offset (j * s) mod page
  page_random,   // one access per page: page j at a random multiple of s inside it (array.seed)
};
// What backs the array's pages: one allocation (contiguous physical frames, which a
// TLB may coalesce into entries reaching several pages), or chunks of the driver's
// allocation granularity mapped in a shuffled order (no two neighbouring chunks
// contiguous: every TLB entry reaches one page at most a chunk), or one physical block
// of kAliasedBlockBytes mapped again and again over the array's virtual range
// (aliased: a chase's virtual footprint reaches far beyond the device's memory, for
// TLB levels whose coverage the memory cannot hold, and its data lines stay few
// enough for the L2; every element the chase writes must land on a word of its own
// in the block, which the GPU backend checks).
enum class Frames { contiguous, scattered, aliased };
// The physical block behind an aliased array (a smaller array maps its own size,
// rounded up to the driver's granularity). Large enough that the block's pages keep
// the contiguity of one allocation below it, small enough for any GPU's memory.
inline constexpr std::uint64_t kAliasedBlockBytes = 1ull << 30;
// What an array takes of the device's memory: its size, or the aliased block.
inline std::uint64_t physical_bytes(std::uint64_t size_bytes, Frames frames) {
  return frames == Frames::aliased && size_bytes > kAliasedBlockBytes ? kAliasedBlockBytes : size_bytes;
}
// per_access: every access timed, samples flushed to global memory in chunks; chain:
// one time per chain of `iterations` loads; on_chip: every access timed, samples kept
// on the SM (one byte each) until the timed window ends.
enum class TimingMode { per_access, chain, on_chip };
enum class ClockSource { clock, clock64 };
// Who makes the untimed warm-up passes of a pointer chase: the chasers, chasing (Mei &
// Chu; every access waits for the one before), or every thread of the block, each
// loading slots of the pass without waiting, in the order (offset + k s) mod N of k (the
// same lines through the same path, a thousand times sooner over an L2-sized array; the
// lines are first touched in a sequential chase's order, in address order for a random
// one).
enum class WarmupBy { chase, block };
// Whose array a block chases (pchase): one array that every block's chasers share, or an
// array of its own per block (N bytes each, identical contents, placed one after the
// other): every block then touches its own lines and pages, so that B SMs fill B x N of a
// structure they share (the whole L2; a TLB shared by SMs) or B separate N of private ones.
enum class BlockArrays { shared, per_block };
// Which kind of kernel runs the experiment. What one Sample of each kind is and the spec
// rules of each kind: engine/spec/kernel_kinds.cpp (one row per kind); how each kind
// runs: its kernel family, engine/device/families/ (devices, real or simulated,
// produce exactly the samples the row describes; samples_per_point() counts them).
enum class KernelKind {
  pchase,         // pointer chase (fine-grained or chain)
  phases,         // several arrays, ordered warm/measure phases (sharing, caches per SM)
  shared_stride,  // a warp reads shared memory at lane * stride (bank conflicts)
  throughput,     // many warps, ILP independent loads each (bandwidth)
  coalescing,     // one warp request, lanes spaced by stride (sectors per request)
};
// The structure the experiment is about. It decides whether sweep points may run
// in parallel on different SMs: only structures private to an SM allow that.
enum class Target { automatic, l1, texture, readonly, constant, constant_l15, shared, l2, tlb, dram };

const char* to_string(LoadPath v);
const char* to_string(ElementType v);
const char* to_string(Access v);
const char* to_string(Pattern v);
const char* to_string(Frames v);
const char* to_string(TimingMode v);
const char* to_string(ClockSource v);
const char* to_string(WarmupBy v);
const char* to_string(BlockArrays v);
const char* to_string(KernelKind v);
const char* to_string(Target v);
std::uint64_t element_bytes(ElementType t);
// Target implied by a load path when the spec says `target: auto`.
Target default_target(LoadPath p);
bool is_sm_private(Target t);
// The store a path's name stands for with `access: store`: ca -> "wb" (st.global.wb,
// the default: write back at every coherent level), cg -> "cg", cs -> "cs", cv ->
// "wt" (write through), shared -> "shared" (st.shared); nullptr for the paths that
// have no store (lu, ldg, tex, const: read-only by definition).
const char* store_operator(LoadPath p);

// Special carveout values; any other value is the percentage of the unified
// L1/shared storage given to shared memory (0..100), as the driver attribute
// CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT takes it.
inline constexpr int kCarveoutDriverDefault = -1;
inline constexpr int kCarveoutMaxL1 = 0;
inline constexpr int kCarveoutMaxShared = 100;

struct ArraySpec {
  std::uint64_t size_bytes = 0;    // N
  std::uint64_t stride_bytes = 0;  // s
  std::uint64_t offset_bytes = 0;  // where the chase starts
  std::uint64_t page_bytes = 0;    // for page_strided and page_random
  Pattern pattern = Pattern::sequential;
  std::vector<std::uint64_t> indices_bytes;  // for Pattern::list: visiting order (byte offsets)
  std::uint64_t seed = 1;                    // for Pattern::random and page_random
  Frames frames = Frames::contiguous;        // the main array of a pchase on a global path only
};

struct TimingSpec {
  TimingMode mode = TimingMode::per_access;
  ClockSource clock = ClockSource::clock;
  // on_chip: cycles per recorded unit (one byte per access, up to 255 units: latencies
  // above 255 x unit saturate). A power of two from 1 to 64.
  std::uint32_t unit = 2;
};

// layout.copy_stride must be a multiple of this (a line: copies never share one).
inline constexpr std::uint64_t kCopyStrideAlign = 128;

struct LayoutSpec {
  std::uint32_t blocks = 1;
  std::uint32_t threads = 1;               // per block
  std::vector<std::uint32_t> chasers{0};   // thread indices (within a block) that chase
  std::uint64_t thread_offset_bytes = 0;   // chaser i starts at offset + i * thread_offset
  BlockArrays array = BlockArrays::shared;  // per_block: block b chases an array of its own
  // per_block: bytes from one block's copy to the next; 0 = per_block_array_stride's rule
  // (chase_order.hpp). A power of two puts every copy's lines on the same offsets of
  // windows that size apart: a control for caches whose index sees those bits.
  std::uint64_t copy_stride_bytes = 0;
};

// A named array of the phases kernel.
struct PhaseArray {
  std::string name;
  LoadPath path = LoadPath::ca;
  ArraySpec array;
};

// One step of the phases kernel: `thread` warms (untimed pass) or measures
// (timed pass) array `array`; phases are separated by barriers.
struct Phase {
  enum class Action { warm, measure };
  std::uint32_t thread = 0;
  std::string array;
  Action action = Action::warm;
  std::uint32_t passes = 1;
};

struct AnalyzerRequest {
  std::string name;
  std::string params_json = "{}";  // parameters, as a JSON object text
  Location loc;
};

// "line_size == 128 B", "sets.details.ways >= 4", "replacement == lru".
struct Expectation {
  std::string text;     // as written
  std::string finding;  // analyzer name, optionally followed by a dotted path into the finding
  std::string op;       // == != < <= > >=
  std::string value;    // right-hand side as written
  Location loc;
};

struct Experiment {
  // identity
  std::string name;
  std::string description;
  std::string source;  // the paper / section / figure it reproduces
  bool abstract = false;  // a base file for `include:`; validated, never run

  // what runs
  KernelKind kernel = KernelKind::pchase;
  Target target = Target::automatic;  // resolved: never `automatic` after decode
  bool parallel = true;               // allow per-SM packing when the target is SM-private
  LoadPath path = LoadPath::ca;
  Access access = Access::load;  // store: the kernel writes the array through path's store_operator()
  ElementType element = ElementType::u32;
  ArraySpec array;
  std::uint64_t iterations = 4096;  // timed accesses per chasing thread (per chain in chain mode)
  std::uint32_t warmup = 1;         // untimed passes over the array before timing
  WarmupBy warmup_by = WarmupBy::chase;
  std::uint32_t discard = 0;        // leading timed passes kept in the trace, ignored by analyzers
  TimingSpec timing;
  LayoutSpec layout;
  std::uint32_t ilp = 1;            // independent loads in flight (throughput kernels)
  int carveout = kCarveoutMaxL1;    // see kCarveout*; `auto` resolves per target
  bool carveout_explicit = false;   // false when the spec said `auto` (the default)
  std::uint32_t repeats = 1;        // independent launches of the same point
  std::uint64_t max_samples = 1ull << 24;  // cap on samples per point (device buffer)

  // phases kernel
  std::vector<PhaseArray> arrays;
  std::vector<Phase> phases;

  // analysis
  std::vector<AnalyzerRequest> analyzers;
  std::vector<Expectation> expectations;

  [[nodiscard]] std::uint64_t elem_bytes() const { return element_bytes(element); }
  // Accesses in one pass over the array for this pattern.
  [[nodiscard]] std::uint64_t accesses_per_pass() const;
  // Samples the point produces (all chasers, all repeats).
  [[nodiscard]] std::uint64_t samples_per_point() const;
};

}  // namespace dissect
