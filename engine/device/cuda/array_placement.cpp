#include "engine/device/cuda/array_placement.hpp"

#include <algorithm>
#include <cstring>

#include "engine/core/diagnostics.hpp"
#include "engine/core/timeline.hpp"
#include "engine/device/chase_order.hpp"
#include "engine/device/cuda/cuda_error.hpp"

namespace dissect {
namespace {

std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

CUtexObject make_texture(const CudaDriver& drv, CUdeviceptr p, const ArrayImage& img) {
  CUDA_RESOURCE_DESC res;
  std::memset(&res, 0, sizeof res);
  res.resType = CU_RESOURCE_TYPE_LINEAR;
  res.res.linear.devPtr = p;
  res.res.linear.format = CU_AD_FORMAT_UNSIGNED_INT32;
  res.res.linear.numChannels = img.elem_bytes == 8 ? 2 : 1;
  res.res.linear.sizeInBytes = img.size_bytes;
  CUDA_TEXTURE_DESC td;
  std::memset(&td, 0, sizeof td);
  td.filterMode = CU_TR_FILTER_MODE_POINT;
  td.flags = CU_TRSF_READ_AS_INTEGER;
  CUtexObject t = 0;
  const CUresult r = drv.cuTexObjectCreate(&t, &res, &td, nullptr);
  if (r != CUDA_SUCCESS)
    throw CudaError("cuTexObjectCreate: " + drv.error_text(r) + " (a texture over " + std::to_string(img.size_bytes) +
                        " B; 1D linear textures hold at most 2^27 elements)",
                    r, "cuTexObjectCreate");
  return t;
}

}  // namespace

void check_aliased_words(std::span<const LaunchArray> arrays, std::span<const std::uint64_t> at,
                         std::uint64_t block_bytes) {
  // (physical byte offset in the block, element bytes) of every element written
  std::vector<std::pair<std::uint64_t, std::uint64_t>> words;
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    const ArrayImage& img = arrays[i].image;
    if (arrays[i].path == LoadPath::constant || img.unwritten) continue;
    const std::uint32_t copies = std::max(arrays[i].copies, 1u);
    const std::uint64_t copy_stride = copy_stride_bytes(arrays[i]);
    const std::uint64_t span = at[i] + (copies - 1) * copy_stride + img.size_bytes;
    // Within the first block nothing aliases (the decoder allows aliased frames for a
    // pchase's one array, so no other array can wrap onto it).
    if (span <= block_bytes) continue;
    if (img.dense || img.device_fill)
      throw RunError("aliased frames: an array of " + std::to_string(img.size_bytes) +
                     " B written whole would overwrite itself in its block of " + std::to_string(block_bytes) +
                     " B; only a sparsely visited array (a chase over a few slots of a huge range) can be aliased");
    for (std::uint32_t c = 0; c < copies; ++c)
      for (const std::uint64_t off : img.offsets)
        words.emplace_back((at[i] + c * copy_stride + off) % block_bytes, img.elem_bytes);
  }
  std::sort(words.begin(), words.end());
  for (std::size_t k = 1; k < words.size(); ++k)
    if (words[k].first < words[k - 1].first + words[k - 1].second)
      throw RunError("aliased frames: two elements of the chase land on one physical word (offset " +
                     std::to_string(words[k].first) + " of the block of " + std::to_string(block_bytes) +
                     " B); choose a stride that is not a multiple of the block, e.g. a power of two plus 32 B");
}

std::uint64_t copy_stride_bytes(const LaunchArray& array) {
  // One rule with the simulated GPU.
  return array.copy_stride != 0 ? array.copy_stride : per_block_array_stride(array.image.size_bytes);
}

bool needs_helpers(std::span<const LaunchArray> arrays) {
  return std::any_of(arrays.begin(), arrays.end(),
                     [](const LaunchArray& a) {
                       return !a.image.unwritten && (!a.image.dense || a.image.device_fill);
                     });
}

Frames arena_frames(std::span<const LaunchArray> arrays) {
  for (const LaunchArray& a : arrays)
    if (a.path != LoadPath::constant && a.image.frames != Frames::contiguous) return a.image.frames;
  return Frames::contiguous;
}

namespace {

DeviceBuffer& arena_for(const PlacementTools& tools, Frames frames) {
  if (frames == Frames::scattered && tools.scattered_arena != nullptr) return *tools.scattered_arena;
  if (frames == Frames::aliased && tools.aliased_arena != nullptr) return *tools.aliased_arena;
  return *tools.arena;
}

// Gives back the arenas of the other kinds of frames; whether any was held.
bool release_other_arenas(const PlacementTools& tools, const DeviceBuffer& arena) {
  bool freed = false;
  for (DeviceBuffer* other : {tools.arena, tools.scattered_arena, tools.aliased_arena})
    if (other != nullptr && other != &arena && other->ptr() != 0) {
      other->release();
      freed = true;
    }
  return freed;
}

// The arena, grown to `bytes` where it must. Keeping the other kinds' arenas is a saving of
// time, never a reason to fail: where the device's free memory would not leave a sixteenth
// of it beside the new arena (the launch's other buffers come after it), they are given back
// first, and where the allocation fails for want of memory all the same, they are given back
// and it is tried again.
CUdeviceptr ensure_arena(const CudaDriver& drv, const PlacementTools& tools, DeviceBuffer& arena,
                         std::uint64_t bytes, Frames frames) {
  if (!arena.holds(bytes, kArrayAlignMax, frames)) {
    std::size_t free_b = 0, total_b = 0;
    const std::uint64_t physical = frames == Frames::aliased ? std::min(bytes, kAliasedBlockBytes) : bytes;
    if (drv.cuMemGetInfo(&free_b, &total_b) == CUDA_SUCCESS && free_b < physical + total_b / 16)
      release_other_arenas(tools, arena);
  }
  try {
    return arena.ensure(bytes, kArrayAlignMax, frames);
  } catch (const CudaError& e) {
    if (e.result() != CUDA_ERROR_OUT_OF_MEMORY || !release_other_arenas(tools, arena)) throw;
    return arena.ensure(bytes, kArrayAlignMax, frames);
  }
}

}  // namespace

std::vector<dissect_array_ref> place_arrays(const CudaDriver& drv, std::span<const LaunchArray> arrays,
                                            const PlacementTools& tools, TextureSet& textures, FillBatch& fills) {
  std::vector<std::uint64_t> at(arrays.size());  // arena offset, or constant-bank offset
  std::uint64_t arena_bytes = 0, const_bytes_used = 0;
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    const ArrayImage& img = arrays[i].image;
    if (arrays[i].copies > 1 && (arrays[i].path == LoadPath::tex || arrays[i].path == LoadPath::constant))
      throw RunError(std::string("copies of a ") + to_string(arrays[i].path) +
                     "-path array: one texture object or constant-bank slot serves one array");
    if (arrays[i].path == LoadPath::constant) {
      at[i] = const_bytes_used;
      const_bytes_used += round_up(img.size_bytes, kConstBankAlign);
    } else {
      at[i] = round_up(arena_bytes, array_alignment(img.size_bytes));  // chase_order.hpp: one rule
      arena_bytes = at[i] + (std::uint64_t{std::max(arrays[i].copies, 1u)} - 1) * copy_stride_bytes(arrays[i]) + img.size_bytes;
    }
  }
  const Frames frames = arena_frames(arrays);
  DeviceBuffer& arena = arena_for(tools, frames);
  const CUdeviceptr base = arena_bytes > 0 ? ensure_arena(drv, tools, arena, arena_bytes, frames) : 0;
  timeline::mark("placement: arena ready");
  if (frames == Frames::aliased) check_aliased_words(arrays, at, arena.aliased().block_bytes());
  CUdeviceptr bank = 0;
  std::size_t bank_bytes = 0;
  if (const_bytes_used > 0) {
    DISSECT_CU(drv, cuModuleGetGlobal(&bank, &bank_bytes, tools.module, "dissect_const_bank"));
    if (const_bytes_used > bank_bytes)
      throw RunError("constant-path arrays need " + std::to_string(const_bytes_used) + " B; the bank holds " +
                     std::to_string(bank_bytes) + " B");
  }
  std::vector<dissect_array_ref> refs(arrays.size(), dissect_array_ref{});
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    const ArrayImage& img = arrays[i].image;
    const std::uint64_t elem = img.elem_bytes;
    dissect_array_ref& ref = refs[i];
    ref.n_elems = img.size_bytes / elem;
    if (arrays[i].path == LoadPath::constant) {
      if (!img.dense) throw RunError("a constant-path array must be dense");
      DISSECT_CU(drv, cuMemcpyHtoD(bank + at[i], img.bytes.data(), img.bytes.size()));
      ref.base = at[i] / elem;
      continue;
    }
    const CUdeviceptr p = base + at[i];
    const std::uint32_t copies = std::max(arrays[i].copies, 1u);
    const std::uint64_t copy_stride = copy_stride_bytes(arrays[i]);
    if (img.unwritten) {
      // placed only: whatever the arena holds there stays
    } else if (img.device_fill) {
      for (std::uint32_t c = 0; c < copies; ++c)
        fills.add(p + c * copy_stride, img.size_bytes / elem, img.fill_stride, static_cast<std::uint32_t>(elem));
    } else if (img.dense) {
      // One upload from the host; the other copies from the first on the device, in stream
      // order after it (a copy per SM of a large array: one pageable upload each would cost
      // milliseconds a point).
      DISSECT_CU(drv, cuMemcpyHtoD(p, img.bytes.data(), img.bytes.size()));
      for (std::uint32_t c = 1; c < copies; ++c)
        DISSECT_CU(drv, cuMemcpyDtoD(p + c * copy_stride, p, img.bytes.size()));
    } else {
      // Sparse: upload (offset, value) pairs, scatter them on the device (into each copy).
      // One copy of both halves. The uploads, the scatters and the measurement all go to the
      // legacy default stream, in order: the next array's upload cannot overwrite what a
      // scatter still reads, and the measurement runs after it. No synchronisation here, but
      // before the buffer is given back to grow (a scatter may still read it); run_points
      // synchronises where a launch fails after a scatter was queued.
      const std::uint64_t n = img.offsets.size();
      if (!tools.scatter->holds(16 * n, 256, Frames::contiguous)) DISSECT_CU(drv, cuCtxSynchronize());
      const CUdeviceptr s = tools.scatter->ensure(16 * n);
      std::vector<std::uint64_t> pairs(2 * n);
      std::copy(img.offsets.begin(), img.offsets.end(), pairs.begin());
      std::copy(img.values.begin(), img.values.end(), pairs.begin() + static_cast<std::ptrdiff_t>(n));
      DISSECT_CU(drv, cuMemcpyHtoD(s, pairs.data(), 16 * n));
      for (std::uint32_t c = 0; c < copies; ++c) {
        CUdeviceptr dst = p + c * copy_stride, offs = s, vals = s + 8 * n;
        unsigned long long count = n;
        auto eb = static_cast<unsigned int>(elem);
        void* args[] = {&dst, &offs, &vals, &count, &eb};
        const auto grid = static_cast<unsigned>(std::min<std::uint64_t>(1024, (n + 255) / 256));
        DISSECT_CU(drv,
                   cuLaunchKernel(tools.scatter_fn, std::max(1u, grid), 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
      }
      timeline::mark("placement: sparse array scatter queued");
    }
    ref.base = p;
    ref.src = p;
    if (arrays[i].path == LoadPath::tex) {
      const CUtexObject t = make_texture(drv, p, img);
      textures.add(t);
      ref.tex = t;
    }
  }
  return refs;
}

void launch_fills(const CudaDriver& drv, CUfunction fill, const FillBatch& fills, CUdeviceptr descs) {
  if (fills.empty()) return;
  CUdeviceptr d = descs;
  unsigned int count = fills.count();
  unsigned long long total = fills.total();
  void* args[] = {&d, &count, &total};
  DISSECT_CU(drv, cuLaunchKernel(fill, fills.blocks(), 1, 1, FillBatch::kThreads, 1, 1, 0, nullptr, args, nullptr));
}

}  // namespace dissect
