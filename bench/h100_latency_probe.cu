// The latency probe behind specs/devices/h100-sxm.yaml (not part of dissect's
// build; dissect's own kernels measure the same things once the CUDA backend runs).
// One thread, fine-grained chases (clock; load; st.shared; clock) through
// ld.global.ca / .cg / .nc, a timer-overhead step, and the shared-memory stride test.
//   nvcc -O2 -arch=sm_90 -o h100_latency_probe bench/h100_latency_probe.cu && ./h100_latency_probe
// Output: per experiment, min/p5/median/p95/max and the most frequent 4-cycle bins.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <cuda_runtime.h>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

template <int MODE>  // 0 ca, 1 cg, 2 nc
__global__ void chase(const unsigned* __restrict__ a, unsigned start, int warm, int n, unsigned* lat, unsigned* idx, unsigned* smid_out) {
  __shared__ unsigned s_lat[4096];
  __shared__ unsigned s_idx[4096];
  unsigned j = start;
  for (int k = 0; k < warm; ++k) {
    unsigned v;
    if (MODE == 0) asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(a + j) : "memory");
    else if (MODE == 1) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(a + j) : "memory");
    else asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(a + j) : "memory");
    j = v;
  }
  for (int k = 0; k < n; ++k) {
    unsigned t0, t1, v;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(t0) :: "memory");
    if (MODE == 0) asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(a + j) : "memory");
    else if (MODE == 1) asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(a + j) : "memory");
    else asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(v) : "l"(a + j) : "memory");
    s_idx[k] = v;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(t1) :: "memory");
    s_lat[k] = t1 - t0;
    j = v;
  }
  __syncthreads();
  for (int k = 0; k < n; ++k) { lat[k] = s_lat[k]; idx[k] = s_idx[k]; }
  unsigned sm; asm("mov.u32 %0, %%smid;" : "=r"(sm)); *smid_out = sm;
}

__global__ void overhead(unsigned* lat, int n) {
  __shared__ unsigned s_lat[4096];
  __shared__ unsigned s_idx[4096];
  unsigned v = threadIdx.x;
  for (int k = 0; k < n; ++k) {
    unsigned t0, t1;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(t0) :: "memory");
    s_idx[k] = v;
    asm volatile("mov.u32 %0, %%clock;" : "=r"(t1) :: "memory");
    s_lat[k] = t1 - t0;
    v += t1;
  }
  __syncthreads();
  for (int k = 0; k < n; ++k) lat[k] = s_lat[k] + (s_idx[k] == 0xffffffffu);
}

__global__ void shared_stride(int stride, int iters, unsigned* out) {
  __shared__ unsigned s[8192];
  for (int i = threadIdx.x; i < 8192; i += blockDim.x) s[i] = i;
  __syncthreads();
  unsigned j = (threadIdx.x * stride) % 8192;
  unsigned t0, t1;
  asm volatile("mov.u32 %0, %%clock;" : "=r"(t0) :: "memory");
  for (int k = 0; k < iters; ++k) j = s[j];
  asm volatile("mov.u32 %0, %%clock;" : "=r"(t1) :: "memory");
  out[threadIdx.x] = (t1 - t0) + (j == 0xffffffffu);
}

static void hist(const char* name, std::vector<unsigned> v) {
  std::map<unsigned, int> h;
  for (auto x : v) h[x / 4 * 4]++;
  std::sort(v.begin(), v.end());
  printf("%s: n=%zu min=%u p5=%u med=%u p95=%u max=%u\n  modes:", name, v.size(), v.front(), v[v.size()/20], v[v.size()/2], v[v.size()*19/20], v.back());
  std::vector<std::pair<int, unsigned>> m;
  for (auto& [k, c] : h) m.push_back({c, k});
  std::sort(m.rbegin(), m.rend());
  for (size_t i = 0; i < std::min<size_t>(8, m.size()); ++i) printf(" %u(%d)", m[i].second, m[i].first);
  printf("\n");
}

template <int MODE>
static void run(const char* name, size_t bytes, size_t stride, bool random, int warm_passes, int carve, int block_sm_hint = 0) {
  size_t n = bytes / 4, s = stride / 4, slots = n / s;
  std::vector<unsigned> h(n, 0);
  std::vector<unsigned> order(slots);
  std::iota(order.begin(), order.end(), 0);
  if (random) { std::mt19937_64 g(7); for (size_t i = slots - 1; i >= 1; --i) { std::uniform_int_distribution<size_t> d(0, i - 1); std::swap(order[i], order[d(g)]); } 
    // order is a cyclic permutation: next(k) = order[k]
    for (size_t k = 0; k < slots; ++k) h[k * s] = order[k] * s;
  } else {
    for (size_t i = 0; i < n; ++i) h[i] = (i + s) % n;
  }
  unsigned *d, *lat, *idx, *sm;
  CK(cudaMalloc(&d, bytes)); CK(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice));
  CK(cudaMalloc(&lat, 4096 * 4)); CK(cudaMalloc(&idx, 4096 * 4)); CK(cudaMalloc(&sm, 4));
  CK(cudaFuncSetAttribute(chase<MODE>, cudaFuncAttributePreferredSharedMemoryCarveout, carve));
  int warm = (int)std::min<size_t>((size_t)warm_passes * slots, 1u << 26);
  chase<MODE><<<1, 1>>>(d, 0, warm, 4096, lat, idx, sm);
  CK(cudaDeviceSynchronize());
  std::vector<unsigned> hl(4096); unsigned hsm;
  CK(cudaMemcpy(hl.data(), lat, 4096 * 4, cudaMemcpyDeviceToHost)); CK(cudaMemcpy(&hsm, sm, 4, cudaMemcpyDeviceToHost));
  char buf[256]; snprintf(buf, sizeof buf, "%s (sm %u)", name, hsm);
  hist(buf, hl);
  cudaFree(d); cudaFree(lat); cudaFree(idx); cudaFree(sm);
}

int main() {
  cudaDeviceProp p; CK(cudaGetDeviceProperties(&p, 0));
  int clk = 0; cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0);
  printf("%s SMs=%d L2=%d clock_khz=%d smem/SM=%zu\n", p.name, p.multiProcessorCount, p.l2CacheSize, clk, p.sharedMemPerMultiprocessor);
  unsigned* o; CK(cudaMalloc(&o, 4096 * 4));
  overhead<<<1, 1>>>(o, 4096); CK(cudaDeviceSynchronize());
  std::vector<unsigned> ho(4096); CK(cudaMemcpy(ho.data(), o, 4096 * 4, cudaMemcpyDeviceToHost));
  hist("timer overhead (clock + st.shared)", ho);
  run<0>("L1 hit ca 8KiB s128", 8 << 10, 128, false, 2, 0);
  run<0>("L1 hit ca 8KiB s4", 8 << 10, 4, false, 2, 0);
  run<2>("nc hit 8KiB s128", 8 << 10, 128, false, 2, 0);
  run<0>("ca 192KiB s128 maxL1", 192 << 10, 128, false, 2, 0);
  run<0>("ca 240KiB s128 maxL1", 240 << 10, 128, false, 2, 0);
  run<0>("ca 64KiB s128 default carve", 64 << 10, 128, false, 2, -1);
  run<1>("L2 cg 8MiB random s128", 8 << 20, 128, true, 2, 0);
  run<1>("L2 cg 32MiB random s128", 32 << 20, 128, true, 2, 0);
  run<1>("DRAM cg 1GiB random s4096 cold", 1u << 30, 4096, true, 0, 0);
  run<1>("DRAM cg 256MiB seq s2MiB", 256u << 20, 2 << 20, false, 1, 0);
  run<1>("cg 32MiB seq s2MiB (TLB in reach)", 32u << 20, 2 << 20, false, 1, 0);
  run<1>("DRAM cg 256MiB random s64KiB", 256u << 20, 64 << 10, true, 1, 0);
  unsigned* so; CK(cudaMalloc(&so, 1024 * 4));
  for (int stride : {0, 1, 2, 4, 8, 16, 32}) {
    shared_stride<<<1, 32>>>(stride, 256, so); CK(cudaDeviceSynchronize());
    std::vector<unsigned> hs(32); CK(cudaMemcpy(hs.data(), so, 32 * 4, cudaMemcpyDeviceToHost));
    printf("shared stride %d: lane0 %.1f cycles/read\n", stride, hs[0] / 256.0);
  }
  return 0;
}
