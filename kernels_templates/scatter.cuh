// dissect template: helpers, not experiments. dissect_scatter writes sparse array contents
// on the device (for arrays of gigabytes that a chase visits a few thousand
// elements of, e.g. TLB experiments): dst[offset[i]] = value[i], as bytes
// offsets and 8-byte words; 4-byte elements are written as their u32 half.
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

// Sequential arrays (Mei & Chu's initialisation, engine/device/chase_order.hpp):
// element i holds (i + s) mod n, for every element; written on the device so that
// large sweeps need no host image and no host-to-device copy.
extern "C" __global__ void dissect_fill_sequential(unsigned char* dst, unsigned long long n, unsigned long long s,
                                                   unsigned int elem_bytes) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    unsigned long long v = i + s;
    if (v >= n) v -= n;
    if (elem_bytes == 8)
      reinterpret_cast<unsigned long long*>(dst)[i] = v;
    else
      reinterpret_cast<unsigned int*>(dst)[i] = static_cast<unsigned int>(v);
  }
}
