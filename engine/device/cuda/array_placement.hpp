#pragma once
// Where the arrays of one launch go on the GPU, and how their contents get there:
// global-path arrays in the arena (each on a boundary of its own size rounded up to
// a power of two between 64 KiB and 2 MiB), constant-path arrays in the module's
// constant bank, texture objects over tex-path arrays. Dense arrays are copied,
// sparse ones (huge arrays a chase visits a few thousand elements of) are scattered
// on the device, sequential ones are only described: the launcher writes them all
// with one batched fill launch ordered before the measuring launch; unwritten ones
// (ArrayImage::unwritten) are placed and left as they are.
#include <span>
#include <vector>

#include "engine/device/cuda/cuda_driver.hpp"
#include "engine/device/cuda/cuda_launch.hpp"
#include "engine/device/cuda/device_buffer.hpp"
#include "engine/device/cuda/fill_batch.hpp"

namespace dissect {

// The largest alignment of an array in the arena (a large page).
inline constexpr std::uint64_t kArrayAlignMax = 2ull << 20;
// Alignment of constant-path arrays in the constant bank.
inline constexpr std::uint64_t kConstBankAlign = 256;

// Texture objects of one launch, destroyed with it.
class TextureSet {
 public:
  explicit TextureSet(const CudaDriver& d) : d_(d) {}
  ~TextureSet() {
    for (auto t : objs_) d_.cuTexObjectDestroy(t);
  }
  TextureSet(const TextureSet&) = delete;
  TextureSet& operator=(const TextureSet&) = delete;
  void add(CUtexObject t) { objs_.push_back(t); }

 private:
  const CudaDriver& d_;
  std::vector<CUtexObject> objs_;
};

struct PlacementTools {
  DeviceBuffer* arena = nullptr;        // global-path arrays in contiguous frames
  // Those in scattered and in aliased frames, each kind in an arena of its own (null: the
  // one above), so that switching between kinds, step after step, neither maps a large
  // range afresh nor moves the contiguous arrays (the L2 steps' placement is part of
  // what they measure).
  DeviceBuffer* scattered_arena = nullptr;
  DeviceBuffer* aliased_arena = nullptr;
  DeviceBuffer* scatter = nullptr;      // (offset, value) pairs of a sparse array
  CUmodule module = nullptr;            // the measuring kernel's (its constant bank)
  CUfunction scatter_fn = nullptr;      // dissect_scatter, when some array is sparse
};

// The frames of a launch's arena: those of its first global-path array that asks for
// other than contiguous ones (the decoder allows it for a pchase's one array only).
Frames arena_frames(std::span<const LaunchArray> arrays);

// How far apart the copies of a LaunchArray lie: its copy_stride, else the default rule
// (per_block_array_stride).
std::uint64_t copy_stride_bytes(const LaunchArray& array);

// Whether placing `arrays` needs the helper kernels (scatter, batched fill).
bool needs_helpers(std::span<const LaunchArray> arrays);

// Places and writes the arrays (sequential ones only described in `fills`), every copy
// of each; returns their references in order (of an array with copies, the first copy's).
std::vector<dissect_array_ref> place_arrays(const CudaDriver& drv, std::span<const LaunchArray> arrays,
                                            const PlacementTools& tools, TextureSet& textures, FillBatch& fills);

// Throws RunError where an aliased arena (DeviceBuffer::aliased, one physical
// block of `block_bytes` mapped over and over) would put two written elements of
// `arrays` (at arena offsets `at`, every copy) on one physical word, or where an
// array that spills past the first block is written whole.
void check_aliased_words(std::span<const LaunchArray> arrays, std::span<const std::uint64_t> at,
                         std::uint64_t block_bytes);

// Launches the batched fill whose descriptors lie at `descs` on the device. No
// synchronisation: every launch, copy and memset of dissect goes to the legacy
// default stream, so the measuring launch begins after the fill has finished.
void launch_fills(const CudaDriver& drv, CUfunction fill, const FillBatch& fills, CUdeviceptr descs);

}  // namespace dissect
