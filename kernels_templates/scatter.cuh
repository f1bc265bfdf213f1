// dissect template: helpers, not experiments. dissect_scatter writes sparse array contents
// on the device (for arrays of gigabytes that a chase visits a few thousand
// elements of, e.g. TLB experiments): dst[offset[i]] = value[i], as bytes
// offsets and 8-byte words; 4-byte elements are written as their u32 half.
#ifndef DISSECT_ABI_ONLY
extern "C" __global__ void dissect_scatter(unsigned char* dst, const unsigned long long* offsets,
                                           const unsigned long long* values, unsigned long long count,
                                           unsigned int elem_bytes) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < count;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    if (elem_bytes == 8)
      *reinterpret_cast<unsigned long long*>(dst + offsets[i]) = values[i];
    else
      *reinterpret_cast<unsigned int*>(dst + offsets[i]) = static_cast<unsigned int>(values[i]);
  }
}

#endif  // DISSECT_ABI_ONLY

// Sequential arrays (Mei & Chu's initialisation, engine/device/chase_order.hpp):
// element i holds (i + s) mod n, for every element; written on the device so that
// large sweeps need no host image and no host-to-device copy. Every such array of a
// launch group is written by one launch (one launch per array cost a launch and a
// few microseconds of GPU time each: 128 of them for a per-SM sweep). The arrays'
// elements are numbered one after the other (a descriptor's `first` = the elements
// of the arrays before it); a thread finds the array of its element by a binary
// search over `first`, so the work is spread evenly however unequal the arrays are.
// The host packs the descriptors (engine/device/cuda/fill_batch.cpp) from this struct.
struct dissect_fill_desc {
  unsigned long long dst;    // device pointer of the array
  unsigned long long n;      // elements
  unsigned long long s;      // element i holds (i + s) mod n (s <= n)
  unsigned long long first;  // elements of the arrays before this one
  unsigned int elem_bytes;   // 4 or 8
  unsigned int pad;
};

#ifndef DISSECT_ABI_ONLY
// Descriptors are read through L2 only (ld.global.cg, as the experiment kernels read
// their parameter tables), so that the L1 of an SM under test keeps no line of them.
__device__ __forceinline__ unsigned long long dissect_fill_ld(const unsigned long long* p) {
  unsigned long long v;
  asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p));
  return v;
}

// Block b writes elements [b * per_block, (b + 1) * per_block) of the concatenated
// range, blockDim.x consecutive elements at a time (coalesced within an array). A
// thread finds the array of its first element by a binary search over `first` (the
// last descriptor with first <= g: empty arrays are never packed), keeps that
// descriptor in registers and steps to the next one when its element leaves the
// array. engine/device/cuda/fill_batch.cpp runs the same loops on the host
// (fill_batch_reference) for the CPU tests.
extern "C" __global__ void dissect_fill_sequential_batch(const dissect_fill_desc* descs, unsigned int count,
                                                         unsigned long long total) {
  const unsigned long long per_block = (total + gridDim.x - 1) / gridDim.x;
  const unsigned long long begin = blockIdx.x * per_block;
  const unsigned long long end = begin + per_block < total ? begin + per_block : total;
  unsigned long long g = begin + threadIdx.x;
  if (g >= end) return;
  unsigned int a = 0, hi = count - 1;
  while (a < hi) {
    const unsigned int mid = (a + hi + 1) / 2;
    if (dissect_fill_ld(&descs[mid].first) <= g)
      a = mid;
    else
      hi = mid - 1;
  }
  unsigned long long first = dissect_fill_ld(&descs[a].first);
  for (;;) {
    const unsigned long long next = a + 1 < count ? dissect_fill_ld(&descs[a + 1].first) : total;
    const unsigned long long n = dissect_fill_ld(&descs[a].n), s = dissect_fill_ld(&descs[a].s);
    const unsigned long long dst = dissect_fill_ld(&descs[a].dst);
    // elem_bytes and pad as one u64: elem_bytes is its low half (little endian).
    const bool u64 = static_cast<unsigned int>(dissect_fill_ld(reinterpret_cast<const unsigned long long*>(
                         &descs[a].elem_bytes))) == 8;
    for (; g < end && g < next; g += blockDim.x) {
      const unsigned long long i = g - first;
      unsigned long long v = i + s;
      if (v >= n) v -= n;
      if (u64)
        reinterpret_cast<unsigned long long*>(dst)[i] = v;
      else
        reinterpret_cast<unsigned int*>(dst)[i] = static_cast<unsigned int>(v);
    }
    if (g >= end) return;
    // g lies in a later array (descriptors are in order of `first`).
    do ++a;
    while (a + 1 < count && dissect_fill_ld(&descs[a + 1].first) <= g);
    first = dissect_fill_ld(&descs[a].first);
  }
}
#endif  // DISSECT_ABI_ONLY
