#include "engine/device/cuda/cuda_device.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <tuple>
#include <cstring>
#include <iostream>
#include <numeric>
#include <system_error>

#include "engine/codegen/disassembler.hpp"
#include "engine/codegen/nvrtc_compiler.hpp"
#include "engine/core/background_worker.hpp"
#include "engine/core/csv.hpp"
#include "engine/core/stopwatch.hpp"
#include "engine/core/timeline.hpp"
#include "engine/device/chase_order.hpp"
#include "engine/device/cuda/array_image.hpp"
#include "engine/device/cuda/cuda_preview.hpp"
#include "engine/device/cuda/fill_batch.hpp"
#include "engine/device/cuda/kernel_abi.hpp"

namespace dissect {

namespace {

// Arrays start on a boundary of their own size rounded up to a power of two,
// between 64 KiB and 2 MiB (a large page): placement never splits a small array
// across pages differently from one point to the next, and a per-SM launch of
// many small arrays does not reserve 2 MiB for each.
constexpr std::uint64_t kArrayAlignMax = 2ull << 20;
constexpr std::uint64_t kArrayAlignMin = 64ull << 10;
constexpr std::uint64_t kConstAlign = 256;         // arrays in the constant bank
constexpr std::uint32_t kSampleBufferBytes = 6 * 1024;  // shared-memory sample buffer per block
// Allocated when the device opens (beside the context's set-up, not in a run's wall time):
// the arena holds a 128-point L1 sweep's arrays; parameter tables and per-chaser results
// of thousands of points fit the small buffers. Larger needs reallocate (DeviceBuffer).
constexpr std::uint64_t kArenaReserve = 64ull << 20;
constexpr std::uint64_t kSmallReserve = 1ull << 20;
constexpr std::uint32_t kPoison = 0xffffffffu;
constexpr const char* kFillEntry = "dissect_fill_sequential_batch";  // scatter.cuh

const char* const kNoGpuHint =
    "; to run without a GPU use a simulated one: --device sim:<profile> (see 'dissect list devices')";

std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

std::uint64_t array_align(std::uint64_t size) {
  std::uint64_t a = kArrayAlignMin;
  while (a < size && a < kArrayAlignMax) a *= 2;
  return a;
}

std::string point_label(const Point& p) {
  std::string s = "#" + std::to_string(p.id);
  if (!p.axis_values.empty()) {
    s += " (";
    for (std::size_t i = 0; i < p.axis_values.size(); ++i)
      s += (i ? ", " : "") + p.axis_values[i].first + "=" + p.axis_values[i].second;
    s += ")";
  }
  return s;
}

double median(std::vector<double> v) {
  if (v.empty()) return kUnknown;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// One array of a launch: its host image, where it goes, and the reference the kernel reads.
struct ArrayUpload {
  ArrayImage img;
  LoadPath path = LoadPath::ca;
  std::uint64_t arena_off = 0;  // in the arrays buffer
  std::uint64_t const_off = 0;  // bytes in the constant bank (path const)
  abi::ArrayRef ref;
};

// Texture objects of one launch group, destroyed at its end.
struct TextureGuard {
  const CudaDriver& d;
  std::vector<CUtexObject> objs;
  ~TextureGuard() {
    for (auto t : objs) d.cuTexObjectDestroy(t);
  }
};

template <typename T>
void append_bytes(std::vector<unsigned char>& out, const std::vector<T>& v) {
  const auto* p = reinterpret_cast<const unsigned char*>(v.data());
  out.insert(out.end(), p, p + v.size() * sizeof(T));
}

// Lines of the SASS that load memory (evidence of which instruction ran).
std::vector<std::string> sass_load_lines(const std::string& sass) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < sass.size() && out.size() < 64) {
    std::size_t end = sass.find('\n', pos);
    if (end == std::string::npos) end = sass.size();
    const std::string line = sass.substr(pos, end - pos);
    for (const char* op : {" LDG", " LD.", " LDS", " LDC", " TEX", " TLD", " ULDC"}) {
      if (line.find(op) != std::string::npos && line.find("/*") != std::string::npos) {
        std::string t = line;
        const auto a = t.find_first_not_of(" \t/");
        const auto s = t.find(';');
        out.push_back(t.substr(a == std::string::npos ? 0 : a, s == std::string::npos ? std::string::npos : s - a + 1));
        break;
      }
    }
    pos = end + 1;
  }
  return out;
}

}  // namespace

// ---------------------------------------------------------------------------
// Opening the device
// ---------------------------------------------------------------------------

CudaDevice::CudaDevice(int ordinal, std::span<const Point> upcoming) : drv_(CudaDriver::get()), ordinal_(ordinal) {
  if (const CUresult r = drv_.cuInit(0); r != CUDA_SUCCESS)
    throw RunError("no usable GPU: cuInit: " + drv_.error_text(r) + kNoGpuHint);
  int count = 0;
  DISSECT_CU(drv_, cuDeviceGetCount(&count));
  if (count == 0) throw RunError(std::string("no CUDA GPU on this machine") + kNoGpuHint);
  if (ordinal < 0 || ordinal >= count)
    throw RunError("no GPU " + std::to_string(ordinal) + ": this machine has " + std::to_string(count) +
                   " (ordinals 0.." + std::to_string(count - 1) + ")" + kNoGpuHint);
  DISSECT_CU(drv_, cuDeviceGet(&dev_, ordinal));
  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    DISSECT_CU(drv_, cuDeviceGetAttribute(&v, a, dev_));
    return v;
  };
  cc_major_ = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  cc_minor_ = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  sm_count_ = static_cast<std::uint32_t>(attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT));
  smem_.cc_major = cc_major_;
  smem_.cc_minor = cc_minor_;
  smem_.max_per_sm = static_cast<std::uint32_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR));
  smem_.max_per_block_optin = static_cast<std::uint32_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  smem_.reserved_per_block = static_cast<std::uint32_t>(attr(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK));
  rated_clock_khz_ = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);

  timeline::mark("device: attributes read");

  DISSECT_CU(drv_, cuDevicePrimaryCtxRetain(&ctx_, dev_));
  timeline::mark("device: primary context retained");
  // The helper module and the first points' kernel are looked up in the compile cache
  // and loaded on workers while the rest of the device opens (~20 ms: the description,
  // NVML). Not earlier: beside the context's creation a cold NVRTC compile took 6x as
  // long on the H100 (360 ms instead of 60).
  prefetch(scatter_kernel_params(), kFillEntry);
  if (!upcoming.empty()) prepare(upcoming);
  // The buffers every run needs, allocated beside the rest of the opening; run() waits.
  try {
    buffers_reserved_ = std::async(std::launch::async, [this] {
      DISSECT_CU(drv_, cuCtxSetCurrent(ctx_));
      arrays_.ensure(kArenaReserve, kArrayAlignMax);
      tables_.ensure(kSmallReserve);
      misc_.ensure(kSmallReserve);
      timeline::mark("device: buffers reserved");
    });
  } catch (const std::system_error&) {
    // No thread to be had: each buffer is allocated when a run first needs it.
  }
  DISSECT_CU(drv_, cuCtxSetCurrent(ctx_));
  DISSECT_CU(drv_, cuEventCreate(&ev0_, CU_EVENT_DEFAULT));
  DISSECT_CU(drv_, cuEventCreate(&ev1_, CU_EVENT_DEFAULT));

  char name[256] = {};
  DISSECT_CU(drv_, cuDeviceGetName(name, sizeof name, dev_));
  std::size_t mem = 0;
  DISSECT_CU(drv_, cuDeviceTotalMem(&mem, dev_));
  int driver = 0;
  DISSECT_CU(drv_, cuDriverGetVersion(&driver));
  char bus[64] = {};
  DISSECT_CU(drv_, cuDeviceGetPCIBusId(bus, sizeof bus, dev_));
  nvml_ = std::make_unique<NvmlClock>(bus);

  std::vector<std::uint32_t> configs_kib;
  for (auto c : shared_memory_configs(smem_)) configs_kib.push_back(c / 1024);
  nlohmann::json d;
  d["kind"] = "cuda";
  d["selector"] = std::to_string(ordinal);
  d["ordinal"] = ordinal;
  d["name"] = name;
  d["compute_capability"] = std::to_string(cc_major_) + "." + std::to_string(cc_minor_);
  d["arch"] = "sm_" + std::to_string(arch());
  d["sm_count"] = sm_count_;
  d["sm_clock_khz"] = rated_clock_khz_;  // rated (CU_DEVICE_ATTRIBUTE_CLOCK_RATE); per point: measured
  d["sm_clock_source"] = "CU_DEVICE_ATTRIBUTE_CLOCK_RATE (rated); points.csv sm_clock_khz: NVML after each launch";
  if (auto c = nvml_->sm_clock_khz()) d["sm_clock_khz_now"] = *c;
  d["memory_clock_khz"] = attr(CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE);
  if (auto c = nvml_->mem_clock_khz()) d["memory_clock_khz_now"] = *c;
  d["memory_bus_width_bits"] = attr(CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH);
  d["memory_bytes"] = mem;
  l2_bytes_ = static_cast<std::uint64_t>(attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE));
  d["l2_bytes"] = l2_bytes_;
  d["shared_per_sm_bytes"] = smem_.max_per_sm;
  d["shared_per_block_bytes"] = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  d["shared_per_block_optin_bytes"] = smem_.max_per_block_optin;
  d["shared_reserved_per_block_bytes"] = smem_.reserved_per_block;
  d["shared_configs_kib"] = configs_kib;
  d["max_threads_per_sm"] = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR);
  d["registers_per_sm"] = attr(CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR);
  d["warp_size"] = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  d["pci_bus_id"] = bus;
  d["driver_version"] = std::to_string(driver / 1000) + "." + std::to_string(driver % 1000 / 10);
  d["nvrtc_version"] = NvrtcCompiler::version();
  d["nvml"] = nvml_->available() ? std::string("yes") : "no: " + nvml_->why_unavailable();
  d["compile_cache"] = cache_.enabled() ? cache_.dir() : std::string("disabled (DISSECT_NO_CACHE=1)");
  d["disassembler"] = find_disassembler();
  if (!NvrtcCompiler::supports(arch()))
    throw RunError(std::string(name) + " is sm_" + std::to_string(arch()) + ", which NVRTC " +
                   NvrtcCompiler::version() + " cannot compile for");
  description_ = d;
  timeline::mark("device: described");
}

CudaDevice::~CudaDevice() {
  await_reserved_buffers();
  while (!prefetches_.empty())
    if (std::unique_ptr<Kernel> k = take_prefetched(prefetches_.begin()->first); k && k->module != nullptr)
      drv_.cuModuleUnload(k->module);
  for (auto& [key, k] : kernels_)
    if (k->module != nullptr) drv_.cuModuleUnload(k->module);
  kernels_.clear();
  for (DeviceBuffer* b : {&arrays_, &tables_, &lat_, &idx_, &misc_, &scatter_, &flush_}) b->release();
  if (ev0_) drv_.cuEventDestroy(ev0_);
  if (ev1_) drv_.cuEventDestroy(ev1_);
  if (ctx_) drv_.cuDevicePrimaryCtxRelease(dev_);
}

nlohmann::json CudaDevice::describe() const { return description_; }

double CudaDevice::current_sm_clock_khz() const {
  if (nvml_)
    if (auto c = nvml_->sm_clock_khz()) return *c;
  return rated_clock_khz_;
}

// ---------------------------------------------------------------------------
// Kernels: generate, compile (cached), load
// ---------------------------------------------------------------------------

std::unique_ptr<CudaDevice::Kernel> CudaDevice::load_kernel(const KernelParams& params, const char* fill_entry) const {
  timeline::mark("load " + params.entry + ": start");
  auto k = std::make_unique<Kernel>();
  k->gen = instantiate(params, templates_);
  // The PTX and the log are only for the bundle: read while the kernel runs (report_kernel).
  k->bin = compile_cached(k->gen, arch(), cache_, true, false);
  timeline::mark("load " + params.entry + ": cubin in hand");
  struct Unload {  // a module whose function cannot be found is not kept
    const CudaDriver& d;
    CUmodule* m;
    ~Unload() {
      if (m != nullptr && *m != nullptr) d.cuModuleUnload(*m), *m = nullptr;
    }
  } unload{drv_, &k->module};
  DISSECT_CU(drv_, cuModuleLoadData(&k->module, k->bin.cubin.data()));
  timeline::mark("load " + params.entry + ": cuModuleLoadData");
  DISSECT_CU(drv_, cuModuleGetFunction(&k->fn, k->module, params.entry.c_str()));
  timeline::mark("load " + params.entry + ": cuModuleGetFunction");
  int v = 0;
  DISSECT_CU(drv_, cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn));
  k->static_shared = static_cast<std::uint32_t>(v);
  DISSECT_CU(drv_, cuFuncGetAttribute(&k->registers, CU_FUNC_ATTRIBUTE_NUM_REGS, k->fn));
  // Here too: under lazy module loading, getting a function loads its code.
  if (fill_entry != nullptr) DISSECT_CU(drv_, cuModuleGetFunction(&k->fill, k->module, fill_entry));
  unload.m = nullptr;
  timeline::mark("load " + params.entry + ": done");
  return k;
}

void CudaDevice::prefetch(const KernelParams& params, const char* fill_entry) {
  std::string key = params.canonical();
  if (kernels_.count(key) != 0 || prefetches_.count(key) != 0) return;
  try {
    prefetches_.emplace(std::move(key), std::async(std::launch::async, [this, params, fill_entry] {
                          DISSECT_CU(drv_, cuCtxSetCurrent(ctx_));  // a context is current per thread
                          return load_kernel(params, fill_entry);
                        }));
  } catch (const std::system_error&) {
    // No thread to be had: the kernel is loaded when it is needed, as without a prefetch.
  }
}

void CudaDevice::prepare(std::span<const Point> points) noexcept {
  if (points.empty()) return;
  try {
    prefetch(kernel_params(points.front().experiment));
  } catch (const std::exception&) {
    // A hint only: the run meets the same error and reports it with its context.
  }
}

std::unique_ptr<CudaDevice::Kernel> CudaDevice::take_prefetched(const std::string& key) {
  const auto it = prefetches_.find(key);
  if (it == prefetches_.end()) return nullptr;
  std::future<std::unique_ptr<Kernel>> f = std::move(it->second);
  prefetches_.erase(it);
  try {
    return f.get();
  } catch (const std::exception&) {
    return nullptr;  // loaded again by the caller, whose error names the run and the point
  }
}

CudaDevice::Kernel& CudaDevice::kernel(const KernelParams& params, RunTimings& timings, RunSink* sink) {
  const std::string key = params.canonical();
  auto it = kernels_.find(key);
  if (it == kernels_.end()) {
    const auto t0 = std::chrono::steady_clock::now();
    timeline::mark("kernel " + params.entry + ": wanted");
    std::unique_ptr<Kernel> k = take_prefetched(key);  // waits for the worker if it is still at it
    if (!k) k = load_kernel(params);
    timings.compile_ms += k->bin.compile_ms;
    it = kernels_.emplace(key, std::move(k)).first;
    prof_.kernel_ms += ms_since(t0);
    timeline::mark("kernel " + params.entry + ": in hand");
  }
  // Reported while the next launch runs (launch()), or when the run ends.
  if (sink != nullptr && reported_.insert(key).second) pending_reports_.emplace_back(it->second.get(), sink);
  return *it->second;
}

void CudaDevice::report_kernel(Kernel& k, RunSink& sink) {
  KernelArtifact a;
  // PTX and log of a cached kernel are read now, while a kernel runs (kernel()).
  const bool text = cache_.load_text(k.bin);
  a.name = k.gen.name() + "-" + k.bin.arch;
  a.source = k.gen.source;
  a.ptx = k.bin.ptx;
  a.log = k.bin.log;
  std::string why;
  if (auto s = cache_.find_sass(k.bin.cache_key)) {
    a.sass = *s;
  } else {
    a.sass = disassemble_cubin(k.bin.cubin, &why);
    if (!a.sass.empty()) cache_.store_sass(k.bin.cache_key, a.sass);
  }
  nlohmann::json meta = k.gen.params.to_json();
  meta["arch"] = k.bin.arch;
  meta["nvrtc_version"] = NvrtcCompiler::version();
  meta["nvrtc_options"] = NvrtcCompiler::options(arch(), true);
  meta["cache_key"] = k.bin.cache_key;
  meta["from_cache"] = k.bin.from_cache;
  if (!text) meta["ptx"] = "not available: the compile-cache entry lost its PTX after the lookup";
  meta["compile_ms"] = k.bin.compile_ms;
  meta["registers"] = k.registers;
  meta["static_shared_bytes"] = k.static_shared;
  meta["template_files"] = k.gen.template_files;
  meta["sass"] = a.sass.empty() ? "not available: " + why : "kept (" + find_disassembler() + ")";
  if (!a.sass.empty()) meta["sass_loads"] = sass_load_lines(a.sass);
  a.meta = std::move(meta);
  sink.kernel_built(a);
}

std::vector<KernelArtifact> CudaDevice::preview_kernels(const Spec& spec, std::span<const Point> points) const {
  (void)spec;
  return cuda_preview_kernels(points, arch());
}

// ---------------------------------------------------------------------------
// Launch mechanics
// ---------------------------------------------------------------------------

SmemPlan CudaDevice::apply_smem(Kernel& k, const Experiment& e, std::uint32_t needed) {
  // Blocks of SM-private experiments always fill their shared configuration, packed
  // or not (parallel: false, several blocks): both ways run under the same L1/shared
  // split, so per-SM and one-at-a-time results are comparable.
  const bool exclusive = is_sm_private(e.target) && e.carveout >= 0;
  SmemPlan plan = plan_shared_memory(smem_, e.carveout, needed, k.static_shared, exclusive);
  // Set whenever the value differs from what the function has (a kernel object serves
  // several specs and groups: -1 is "no preference"); a sweep's groups mostly repeat it.
  const int dynamic = static_cast<int>(plan.dynamic_bytes), carveout = e.carveout < 0 ? -1 : e.carveout;
  if (k.max_dynamic_set != dynamic) {
    DISSECT_CU(drv_, cuFuncSetAttribute(k.fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, dynamic));
    k.max_dynamic_set = dynamic;
  }
  if (k.carveout_set != carveout) {
    DISSECT_CU(drv_, cuFuncSetAttribute(k.fn, CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT, carveout));
    k.carveout_set = carveout;
  }
  return plan;
}

int CudaDevice::occupancy_of(Kernel& k, std::uint32_t threads, std::uint32_t dynamic_bytes) {
  // Depends on the function's attributes too (the carveout): part of the key.
  const auto key = std::make_tuple(threads, dynamic_bytes, k.carveout_set.value_or(-2));
  auto it = k.occupancy.find(key);
  if (it == k.occupancy.end()) {
    int blocks = 0;
    DISSECT_CU(drv_, cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, k.fn, static_cast<int>(threads),
                                                                 dynamic_bytes));
    it = k.occupancy.emplace(key, blocks).first;
  }
  return it->second;
}

void CudaDevice::report_pending_kernels() noexcept {
  // Artifacts are evidence, not measurements: written on threads of their own while the
  // kernel runs (reading PTX, log and SASS from the compile cache and writing five files
  // took ~1 ms on the H100's host, as long as a short kernel; a kernel compiled afresh
  // is also disassembled, ~0.5 s of cuobjdump, so a step with many new kernels has them
  // disassembled side by side), and a failure to write one is reported after the run
  // instead of aborting it (await_kernel_reports).
  for (auto& [k, sink] : pending_reports_) {
    auto job = [this, k = k, sink = sink] { report_kernel(*k, *sink); };
    try {
      artifact_jobs_.push_back(std::async(std::launch::async, job));
    } catch (const std::system_error&) {
      try {
        artifact_jobs_.push_back(background::run(job));  // no thread to be had: the process's worker
      } catch (const std::exception& e) {
        if (pending_report_error_.empty()) pending_report_error_ = e.what();
      }
    }
  }
  pending_reports_.clear();
}

void CudaDevice::await_kernel_reports() noexcept {
  for (auto& job : artifact_jobs_) try {
      job.get();
    } catch (const std::exception& e) {
      if (pending_report_error_.empty()) pending_report_error_ = e.what();
    }
  artifact_jobs_.clear();
}

double CudaDevice::launch(Kernel& k, std::uint32_t blocks, std::uint32_t threads, std::uint32_t dyn_shared,
                          void** args, double* clock_khz, const std::function<void()>& meanwhile) {
  timeline::mark("launch: start");
  DISSECT_CU(drv_, cuEventRecord(ev0_, nullptr));
  DISSECT_CU(drv_, cuLaunchKernel(k.fn, blocks, 1, 1, threads, 1, 1, dyn_shared, nullptr, args, nullptr));
  DISSECT_CU(drv_, cuEventRecord(ev1_, nullptr));
  timeline::mark("launch: enqueued");
  // Host work that overlaps the kernel (launches are asynchronous).
  report_pending_kernels();
  timeline::mark("launch: kernel artifacts written");
  if (meanwhile) meanwhile();
  timeline::mark("launch: points started");
  if (clock_khz != nullptr) *clock_khz = current_sm_clock_khz();
  timeline::mark("launch: SM clock read, waiting");
  DISSECT_CU(drv_, cuEventSynchronize(ev1_));
  timeline::mark("launch: kernel finished");
  float ms = 0;
  DISSECT_CU(drv_, cuEventElapsedTime(&ms, ev0_, ev1_));
  return ms;
}

namespace {

struct HelperFns {
  CUfunction scatter = nullptr, fill = nullptr;
};

// Places arrays in the arena / constant bank, uploads them (or scatters them on the
// device) and fills their references. Sequential arrays written on the device are
// only described in `fills`: the caller puts the descriptors into the launch's
// parameter table (one upload for both) and launches one batched fill
// (launch_fills) before the measuring launch.
void place_arrays(const CudaDriver& drv, std::vector<ArrayUpload>& arrays, DeviceBuffer& arena,
                  DeviceBuffer& scatter_buf, CUmodule module, const HelperFns& helpers, TextureGuard& textures,
                  FillBatch& fills) {
  std::uint64_t arena_bytes = 0, const_bytes_used = 0;
  for (auto& a : arrays) {
    if (a.path == LoadPath::constant) {
      a.const_off = const_bytes_used;
      const_bytes_used += round_up(a.img.size_bytes, kConstAlign);
    } else {
      const std::uint64_t align = array_align(a.img.size_bytes);
      a.arena_off = round_up(arena_bytes, align);
      arena_bytes = a.arena_off + a.img.size_bytes;
    }
  }
  const CUdeviceptr base = arena_bytes > 0 ? arena.ensure(arena_bytes, kArrayAlignMax) : 0;
  CUdeviceptr bank = 0;
  std::size_t bank_bytes = 0;
  if (const_bytes_used > 0) {
    DISSECT_CU(drv, cuModuleGetGlobal(&bank, &bank_bytes, module, "dissect_const_bank"));
    if (const_bytes_used > bank_bytes)
      throw RunError("constant-path arrays need " + std::to_string(const_bytes_used) + " B; the bank holds " +
                     std::to_string(bank_bytes) + " B");
  }
  for (auto& a : arrays) {
    const std::uint64_t elem = a.img.elem_bytes;
    a.ref.n_elems = a.img.size_bytes / elem;
    if (a.path == LoadPath::constant) {
      if (!a.img.dense) throw RunError("a constant-path array must be dense");
      DISSECT_CU(drv, cuMemcpyHtoD(bank + a.const_off, a.img.bytes.data(), a.img.bytes.size()));
      a.ref.base = a.const_off / elem;
      continue;
    }
    const CUdeviceptr p = base + a.arena_off;
    if (a.img.device_fill) {
      fills.add(p, a.img.size_bytes / elem, a.img.fill_stride, static_cast<std::uint32_t>(elem));
    } else if (a.img.dense) {
      DISSECT_CU(drv, cuMemcpyHtoD(p, a.img.bytes.data(), a.img.bytes.size()));
    } else {
      // Sparse: upload (offset, value) pairs, scatter them on the device.
      const std::uint64_t n = a.img.offsets.size();
      const CUdeviceptr s = scatter_buf.ensure(16 * n);
      DISSECT_CU(drv, cuMemcpyHtoD(s, a.img.offsets.data(), 8 * n));
      DISSECT_CU(drv, cuMemcpyHtoD(s + 8 * n, a.img.values.data(), 8 * n));
      CUdeviceptr dst = p, offs = s, vals = s + 8 * n;
      unsigned long long count = n;
      unsigned int eb = static_cast<unsigned int>(elem);
      void* args[] = {&dst, &offs, &vals, &count, &eb};
      const unsigned grid = static_cast<unsigned>(std::min<std::uint64_t>(1024, (n + 255) / 256));
      DISSECT_CU(drv, cuLaunchKernel(helpers.scatter, std::max(1u, grid), 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
      // The (offset, value) buffer is reused by the next sparse array: wait.
      DISSECT_CU(drv, cuCtxSynchronize());
    }
    a.ref.base = p;
    a.ref.src = p;
    if (a.path == LoadPath::tex) {
      CUDA_RESOURCE_DESC res;
      std::memset(&res, 0, sizeof res);
      res.resType = CU_RESOURCE_TYPE_LINEAR;
      res.res.linear.devPtr = p;
      res.res.linear.format = CU_AD_FORMAT_UNSIGNED_INT32;
      res.res.linear.numChannels = elem == 8 ? 2 : 1;
      res.res.linear.sizeInBytes = a.img.size_bytes;
      CUDA_TEXTURE_DESC td;
      std::memset(&td, 0, sizeof td);
      td.filterMode = CU_TR_FILTER_MODE_POINT;
      td.flags = CU_TRSF_READ_AS_INTEGER;
      CUtexObject t = 0;
      const CUresult r = drv.cuTexObjectCreate(&t, &res, &td, nullptr);
      if (r != CUDA_SUCCESS)
        throw RunError("cuTexObjectCreate: " + drv.error_text(r) + " (a texture over " +
                       std::to_string(a.img.size_bytes) + " B; 1D linear textures hold at most 2^27 elements)");
      textures.objs.push_back(t);
      a.ref.tex = t;
    }
  }
}

// Appends the fill descriptors to a parameter table (16-byte aligned); returns their
// offset in it.
std::uint64_t append_fills(std::vector<unsigned char>& table, const FillBatch& fills) {
  const std::uint64_t at = round_up(table.size(), 16);
  table.resize(at);
  append_bytes(table, fills.descs());
  return at;
}

// One launch writes every sequential array of the group (descriptors at `descs`, on
// the device). No synchronisation: every launch, copy and memset of dissect goes to
// the legacy default stream, so the measuring launch (and its start event) begins
// after the fill has finished, and nothing on the host reads the arrays.
void launch_fills(const CudaDriver& drv, CUfunction fill, const FillBatch& fills, CUdeviceptr descs) {
  if (fills.empty()) return;
  CUdeviceptr d = descs;
  unsigned int count = fills.count();
  unsigned long long total = fills.total();
  void* args[] = {&d, &count, &total};
  DISSECT_CU(drv, cuLaunchKernel(fill, fills.blocks(), 1, 1, FillBatch::kThreads, 1, 1, 0, nullptr, args, nullptr));
}

// Host work while a group's first launch runs (CudaDevice::launch): each point's
// notes on how it ran that do not depend on its results (trace params), and the
// sink's head start on storing the points (RunSink::points_started).
void start_points(const RunRequest& req, const LaunchGroup& group, std::vector<PointTrace>& traces,
                  const std::map<std::string, std::string>& notes, RunSink& sink) {
  std::vector<const Point*> points;
  std::vector<const PointTrace*> started;
  points.reserve(group.points.size());
  started.reserve(group.points.size());
  for (std::size_t gi = 0; gi < group.points.size(); ++gi) {
    traces[gi].params.insert(notes.begin(), notes.end());
    points.push_back(&req.points[group.points[gi]]);
    started.push_back(&traces[gi]);
  }
  // The notes are final now: the results add samples and numbers, no params.
  sink.points_started(points, started);
}

}  // namespace

// ---------------------------------------------------------------------------
// Running points
// ---------------------------------------------------------------------------

std::pair<CUfunction, CUfunction> CudaDevice::helper_functions(RunTimings& timings) {
  Kernel& h = kernel(scatter_kernel_params(), timings, nullptr);  // prepared by the prefetch, as a rule
  if (h.fill == nullptr) DISSECT_CU(drv_, cuModuleGetFunction(&h.fill, h.module, kFillEntry));
  return {h.fn, h.fill};
}

void CudaDevice::await_reserved_buffers() noexcept {
  if (!buffers_reserved_.valid()) return;
  try {
    buffers_reserved_.get();
  } catch (const std::exception&) {
    // Not reserved (no memory, say): a run allocates what it needs and reports a failure.
  }
}

RunTimings CudaDevice::run(const RunRequest& req, RunSink& sink) {
  const auto t_run = std::chrono::steady_clock::now();
  await_reserved_buffers();
  RunTimings timings;
  reported_.clear();
  prof_ = Profile{};
  // Kernels built but not launched (a failed group, an interrupt) still reach the
  // bundle before the sink goes away.
  struct ReportAtExit {
    CudaDevice& d;
    ~ReportAtExit() {
      d.report_pending_kernels();
      d.await_kernel_reports();  // the sink goes away after the run
      if (!d.pending_report_error_.empty())
        std::cerr << "dissect: a kernel artifact could not be written to the bundle: " << d.pending_report_error_
                  << "\n";
      d.pending_report_error_.clear();
    }
  } report_at_exit{*this};
  DISSECT_CU(drv_, cuCtxSetCurrent(ctx_));
  PackingLimits limits;
  limits.sm_count = sm_count_;
  limits.const_align = kConstAlign;
  auto compat = [](const Point& p) {
    const Experiment& e = p.experiment;
    // kernel_identity, not kernel_params(e).canonical(): a string each instead of a dozen.
    std::string key = kernel_identity(e);
    for (const std::int64_t v : {std::int64_t{e.layout.threads}, std::int64_t{e.carveout}, std::int64_t{e.repeats}})
      key.append(reinterpret_cast<const char*>(&v), sizeof v);
    return key;
  };
  const std::vector<LaunchGroup> plan = plan_launches(req.points, limits, compat);
  std::size_t done = 0;
  for (const auto& g : plan) {
    if (req.stop != nullptr && req.stop->load()) break;
    run_group(req, g, timings, sink);
    done += g.points.size();
    sink.progress(done, req.points.size());
  }
  if (timing_report_wanted()) {
    std::fprintf(stderr,
                 "dissect cuda timing: run %.2f ms = compile/load %.2f, host prep %.2f, device setup %.2f, "
                 "launches %.2f (kernels %.2f), readback+samples %.2f, sink %.2f; %zu launches\n",
                 ms_since(t_run), prof_.kernel_ms, prof_.prep_ms, prof_.upload_ms, prof_.launch_ms, timings.kernel_ms,
                 prof_.readback_ms, prof_.sink_ms, timings.launches);
  }
  return timings;
}

void CudaDevice::run_group(const RunRequest& req, const LaunchGroup& group, RunTimings& timings, RunSink& sink) {
  const Point& first = req.points[group.points.front()];
  try {
    Kernel& k = kernel(kernel_params(first.experiment), timings, &sink);
    switch (first.experiment.kernel) {
      case KernelKind::pchase: run_pchase(req, group, k, timings, sink); break;
      case KernelKind::phases: run_phases(req, group, k, timings, sink); break;
      default: run_simple(req, group, k, timings, sink); break;
    }
  } catch (const RunError& e) {
    std::string where = "spec " + (req.spec != nullptr ? req.spec->path : std::string("?")) + ", point " +
                        point_label(first);
    if (group.points.size() > 1)
      where += " (one per-SM launch of points #" + std::to_string(first.id) + "..#" +
               std::to_string(req.points[group.points.back()].id) + ")";
    throw RunError(where + ": " + e.what());
  }
}

void CudaDevice::run_pchase(const RunRequest& req, const LaunchGroup& group, Kernel& k, RunTimings& timings,
                            RunSink& sink) {
  const auto t_prep = std::chrono::steady_clock::now();
  const Experiment& e0 = req.points[group.points.front()].experiment;
  const bool chain = e0.timing.mode == TimingMode::chain;
  const std::uint32_t threads = e0.layout.threads;

  // ---- host side: arrays, point table, chasers --------------------------------
  std::vector<ArrayUpload> arrays;
  std::vector<abi::PchasePoint> entries;
  std::vector<abi::Chaser> chasers;
  struct Meta {
    std::size_t first_entry = 0;
    std::uint32_t blocks = 1, nch = 1, chunk = 1;
    std::vector<std::uint64_t> starts;  // element index per global chaser
  };
  std::vector<Meta> metas;
  std::uint64_t slots = 0;
  std::uint32_t needed = 8;
  for (const std::size_t pi : group.points) {
    const Experiment& e = req.points[pi].experiment;
    Meta m;
    m.blocks = e.layout.blocks;
    m.nch = static_cast<std::uint32_t>(e.layout.chasers.size());
    const std::uint64_t total_chasers = std::uint64_t{m.blocks} * m.nch;
    std::vector<std::uint64_t> start_bytes;
    for (std::uint64_t c = 0; c < total_chasers; ++c) start_bytes.push_back(chaser_start_offset(e, c));
    ArrayUpload a;
    a.img = make_array_image(e.array, e.element, start_bytes, e.path != LoadPath::constant);
    a.path = e.path;
    const std::uint64_t pass_length = a.img.pass_length;
    arrays.push_back(std::move(a));
    for (auto s : start_bytes) m.starts.push_back(s / e.elem_bytes());
    m.chunk = chain ? 1u
                    : static_cast<std::uint32_t>(std::clamp<std::uint64_t>(
                          std::min<std::uint64_t>(kSampleBufferBytes / (8u * m.nch), e.iterations), 1, 1u << 16));
    const std::uint32_t shared_at = static_cast<std::uint32_t>(round_up(8ull * m.chunk * m.nch, 16));
    std::uint64_t need = shared_at;
    if (e.path == LoadPath::shared) need += e.array.size_bytes;
    if (need > smem_.max_per_block_optin)
      throw RunError("the point needs " + std::to_string(need) + " B of shared memory per block (samples" +
                     std::string(e.path == LoadPath::shared ? " + the shared array" : "") + "); the device allows " +
                     std::to_string(smem_.max_per_block_optin) + " B");
    needed = std::max(needed, static_cast<std::uint32_t>(need));
    m.first_entry = entries.size();
    for (std::uint32_t b = 0; b < m.blocks; ++b) {
      abi::PchasePoint pt;
      pt.warm = std::uint64_t{e.warmup} * pass_length;
      pt.iters = e.iterations;
      pt.out_base = slots;
      pt.first_chaser = static_cast<std::uint32_t>(chasers.size());
      pt.n_chasers = m.nch;
      pt.chunk = m.chunk;
      pt.shared_at = shared_at;
      for (std::uint32_t c = 0; c < m.nch; ++c) {
        abi::Chaser ch;
        ch.start = m.starts[std::size_t{b} * m.nch + c];
        ch.thread = e.layout.chasers[c];
        chasers.push_back(ch);
      }
      slots += chain ? m.nch : std::uint64_t{m.nch} * e.iterations;
      entries.push_back(pt);
    }
    metas.push_back(std::move(m));
  }

  // ---- device side ---------------------------------------------------------
  TextureGuard textures{drv_, {}};
  HelperFns helpers;
  if (std::any_of(arrays.begin(), arrays.end(), [](const ArrayUpload& a) { return !a.img.dense || a.img.device_fill; }))
    std::tie(helpers.scatter, helpers.fill) = helper_functions(timings);
  prof_.prep_ms += ms_since(t_prep);
  timeline::mark("pchase: host prep done");
  auto t_lap = std::chrono::steady_clock::now();
  FillBatch fills;
  place_arrays(drv_, arrays, arrays_, scatter_, k.module, helpers, textures, fills);
  timeline::mark("pchase: arrays placed");
  // A cold measurement (no warm-up) of a structure shared by all SMs must not find the
  // lines that writing the array left in L2: write 4x the L2 size elsewhere first.
  // (Done before every repeat's launch, below.)
  const bool flush_l2 = e0.warmup == 0 && !is_sm_private(e0.target) && l2_bytes_ > 0;
  for (std::size_t i = 0, ai = 0; i < metas.size(); ++i, ++ai)
    for (std::uint32_t b = 0; b < metas[i].blocks; ++b) entries[metas[i].first_entry + b].array = arrays[ai].ref;

  const std::uint32_t nblocks = static_cast<std::uint32_t>(entries.size());
  const std::uint64_t nchasers = chasers.size();
  std::vector<unsigned char> table;
  append_bytes(table, entries);
  const std::uint64_t chasers_at = round_up(table.size(), 16);
  table.resize(chasers_at);
  append_bytes(table, chasers);
  const std::uint64_t fills_at = append_fills(table, fills);
  const CUdeviceptr tab = tables_.ensure(table.size());
  timeline::mark("pchase: table buffer");
  DISSECT_CU(drv_, cuMemcpyHtoD(tab, table.data(), table.size()));
  timeline::mark("pchase: table copied");
  launch_fills(drv_, helpers.fill, fills, tab + fills_at);
  timeline::mark("pchase: fills launched");

  const CUdeviceptr lat = chain ? 0 : lat_.ensure(4 * slots);
  const CUdeviceptr idx = chain ? 0 : idx_.ensure(4 * slots);
  const std::uint64_t chain_at = 0, final_at = round_up(8 * nchasers, 256),
                      smid_at = final_at + round_up(8 * nchasers, 256), ovh_at = smid_at + round_up(4 * nblocks, 256),
                      misc_bytes = ovh_at + 4 * nchasers * abi::kOverheadReps;
  const CUdeviceptr misc = misc_.ensure(misc_bytes);

  const SmemPlan smem = apply_smem(k, e0, needed);
  const int occupancy = occupancy_of(k, threads, smem.dynamic_bytes);
  timeline::mark("pchase: buffers, shared memory, occupancy");

  // ---- launches (one per repeat) ---------------------------------------------
  std::vector<PointTrace> traces(group.points.size());
  std::vector<std::vector<double>> overheads(group.points.size());
  std::vector<double> clocks;
  std::vector<std::uint32_t> h_lat(chain ? 0 : slots), h_idx(chain ? 0 : slots), h_smid(nblocks), h_ovh;
  std::vector<std::uint64_t> h_chain(nchasers), h_final(nchasers);
  std::vector<unsigned char> h_misc(misc_bytes);
  h_ovh.resize(nchasers * abi::kOverheadReps);
  double kernel_ms = 0;
  bool smid_clash = false;
  std::string clash_text;
  CUdeviceptr p_points = tab, p_chasers = tab + chasers_at, p_lat = lat, p_idx = idx, p_chain = misc + chain_at,
              p_final = misc + final_at, p_smid = misc + smid_at, p_ovh = misc + ovh_at;
  unsigned int rt_zero = 0;
  void* args[] = {&p_points, &p_chasers, &p_lat, &p_idx, &p_chain, &p_final, &p_smid, &p_ovh, &rt_zero};
  const std::function<void()> meanwhile = [&] {
    std::map<std::string, std::string> notes{{"launch", group.per_sm ? "per_sm" : "single"},
                                             {"launch_points", std::to_string(group.points.size())},
                                             {"dynamic_shared_bytes", std::to_string(smem.dynamic_bytes)},
                                             {"shared_config_bytes", std::to_string(smem.config_bytes)},
                                             {"occupancy_blocks_per_sm", std::to_string(occupancy)},
                                             {"smem_note", smem.note}};
    if (flush_l2) notes["l2_flushed_before_launch"] = "1";
    for (std::size_t gi = 0; gi < metas.size(); ++gi) {
      traces[gi].params["sample_chunk"] = std::to_string(metas[gi].chunk);
      // Room for what the readback below adds: no allocation then.
      const Experiment& e = req.points[group.points[gi]].experiment;
      const std::uint64_t chasers_of_point = std::uint64_t{metas[gi].blocks} * metas[gi].nch;
      overheads[gi].reserve(chasers_of_point * abi::kOverheadReps * e0.repeats);
      traces[gi].samples.reserve(chasers_of_point * e0.repeats * (chain ? 1 : e.iterations));
    }
    start_points(req, group, traces, notes, sink);
  };

  for (std::uint32_t r = 0; r < e0.repeats; ++r) {
    if (!chain) {
      DISSECT_CU(drv_, cuMemsetD8Async(lat, 0xff, 4 * slots, nullptr));
      DISSECT_CU(drv_, cuMemsetD8Async(idx, 0xff, 4 * slots, nullptr));
    }
    DISSECT_CU(drv_, cuMemsetD8Async(misc, 0xff, misc_bytes, nullptr));
    if (flush_l2) DISSECT_CU(drv_, cuMemsetD8Async(flush_.ensure(4 * l2_bytes_), 0x5a, 4 * l2_bytes_, nullptr));
    prof_.upload_ms += ms_since(t_lap);
    t_lap = std::chrono::steady_clock::now();
    double clock_khz_now = 0;
    const double ms = launch(k, nblocks, threads, smem.dynamic_bytes, args, &clock_khz_now,
                             r == 0 ? meanwhile : std::function<void()>{});
    prof_.launch_ms += ms_since(t_lap);
    t_lap = std::chrono::steady_clock::now();
    kernel_ms += ms;
    timings.kernel_ms += ms;
    ++timings.launches;
    clocks.push_back(clock_khz_now);
    if (!chain) {
      DISSECT_CU(drv_, cuMemcpyDtoH(h_lat.data(), lat, 4 * slots));
      DISSECT_CU(drv_, cuMemcpyDtoH(h_idx.data(), idx, 4 * slots));
    }
    // Chain times, final indices, %smid and timer overheads: one copy of the whole
    // per-chaser buffer instead of four (each synchronous copy costs ~10 us).
    DISSECT_CU(drv_, cuMemcpyDtoH(h_misc.data(), misc, misc_bytes));
    timeline::mark("pchase: read back");
    if (chain) std::memcpy(h_chain.data(), h_misc.data() + chain_at, 8 * nchasers);
    std::memcpy(h_final.data(), h_misc.data() + final_at, 8 * nchasers);
    std::memcpy(h_smid.data(), h_misc.data() + smid_at, 4 * nblocks);
    std::memcpy(h_ovh.data(), h_misc.data() + ovh_at, 4 * h_ovh.size());

    if (group.per_sm) {  // one block per SM, checked through %smid
      std::vector<std::uint32_t> s = h_smid;
      std::sort(s.begin(), s.end());
      for (std::size_t i = 1; i < s.size(); ++i)
        if (s[i] == s[i - 1]) {
          smid_clash = true;
          clash_text = "two blocks ran on SM " + std::to_string(s[i]);
          break;
        }
      if (smid_clash) break;
    }

    for (std::size_t gi = 0; gi < group.points.size(); ++gi) {
      const Experiment& e = req.points[group.points[gi]].experiment;
      const Meta& m = metas[gi];
      const std::uint64_t elem = e.elem_bytes();
      const std::uint64_t n_elems = e.array.size_bytes / elem;
      PointTrace& t = traces[gi];
      for (std::uint32_t b = 0; b < m.blocks; ++b) {
        const abi::PchasePoint& pt = entries[m.first_entry + b];
        const std::int32_t sm = static_cast<std::int32_t>(h_smid[m.first_entry + b]);
        for (std::uint32_t c = 0; c < m.nch; ++c) {
          const std::uint64_t g = std::uint64_t{b} * m.nch + c;  // chaser index within the point
          const std::uint64_t gc = pt.first_chaser + c;           // in the launch
          for (std::uint32_t q = 0; q < abi::kOverheadReps; ++q) {
            const std::uint32_t v = h_ovh[gc * abi::kOverheadReps + q];
            if (v != kPoison) overheads[gi].push_back(v);
          }
          if (chain) {
            Sample s;
            s.thread = static_cast<std::uint32_t>(g);
            s.seq = r;
            s.offset_bytes = m.starts[g] * elem;
            s.latency = static_cast<double>(h_chain[gc]) / static_cast<double>(e.iterations);
            s.sm_id = sm;
            t.samples.push_back(s);
            continue;
          }
          std::uint64_t prev = m.starts[g];
          const std::uint64_t base = pt.out_base + std::uint64_t{c} * e.iterations;
          const std::uint32_t stream = static_cast<std::uint32_t>(std::uint64_t{r} * m.blocks * m.nch + g);
          for (std::uint64_t q = 0; q < e.iterations; ++q) {
            const std::uint32_t v = h_idx[base + q];
            if (v >= n_elems || h_lat[base + q] == kPoison)
              throw RunError("the kernel left sample " + std::to_string(q) + " of chaser " + std::to_string(g) +
                             " unwritten or out of range (index " + std::to_string(v) + ")");
            Sample s;
            s.thread = stream;
            s.seq = q;
            s.offset_bytes = prev * elem;
            s.latency = h_lat[base + q];
            s.sm_id = sm;
            t.samples.push_back(s);
            prev = v;
          }
          if (e.iterations > 0 && h_final[gc] != prev)
            throw RunError("final index " + std::to_string(h_final[gc]) + " of chaser " + std::to_string(g) +
                           " differs from the last sampled index " + std::to_string(prev));
        }
      }
    }
  }

  if (smid_clash) {
    // The packing did not hold: run the points one at a time instead.
    std::cerr << "dissect: per-SM launch of " << group.points.size() << " points: " << clash_text
              << "; running them one at a time\n";
    for (const std::size_t pi : group.points) run_group(req, LaunchGroup{{pi}, false}, timings, sink);
    return;
  }

  timeline::mark("pchase: samples decoded");
  prof_.readback_ms += ms_since(t_lap);
  t_lap = std::chrono::steady_clock::now();
  const double clock_khz = clocks.empty() ? kUnknown
                                          : std::accumulate(clocks.begin(), clocks.end(), 0.0) /
                                                static_cast<double>(clocks.size());
  RunSink::PointBatch batch;
  batch.reserve(group.points.size());
  for (std::size_t gi = 0; gi < group.points.size(); ++gi) {
    const Point& p = req.points[group.points[gi]];
    const Experiment& e = p.experiment;
    PointTrace& t = traces[gi];
    t.point_id = p.id;
    t.kernel_ms = kernel_ms;
    t.sm_clock_khz = clock_khz;
    t.sm_id = static_cast<std::int32_t>(h_smid[metas[gi].first_entry]);
    t.accesses_per_pass = e.accesses_per_pass();
    t.discard_passes = e.discard;
    const double ovh = median(overheads[gi]);
    t.timer_overhead_cycles = chain ? ovh / static_cast<double>(e.iterations) : ovh;
    batch.emplace_back(&p, std::move(t));
  }
  timeline::mark("pchase: traces made");
  sink.points_done(std::move(batch));
  prof_.sink_ms += ms_since(t_lap);
  timeline::mark("pchase: points stored");
}

void CudaDevice::run_phases(const RunRequest& req, const LaunchGroup& group, Kernel& k, RunTimings& timings,
                            RunSink& sink) {
  const auto t_prep = std::chrono::steady_clock::now();
  const Experiment& e0 = req.points[group.points.front()].experiment;
  const std::uint32_t threads = e0.layout.threads;
  const std::uint32_t chunk = kSampleBufferBytes / 8;

  std::vector<ArrayUpload> arrays;
  std::vector<abi::PhasesPoint> entries;
  std::vector<abi::PhaseArray> tarrays;
  std::vector<abi::Phase> tphases;
  struct Meta {
    std::size_t first_entry = 0, first_upload = 0;
    std::uint32_t blocks = 1;
    std::vector<std::uint64_t> array_start, array_pass;  // element index, pass length per array
    std::vector<std::uint32_t> phase_array;              // array index per phase
    std::uint64_t first_measured_pass = 0;
  };
  std::vector<Meta> metas;
  std::uint64_t slots = 0;
  std::uint32_t needed = 8 * chunk;
  for (const std::size_t pi : group.points) {
    const Experiment& e = req.points[pi].experiment;
    Meta m;
    m.blocks = e.layout.blocks;
    m.first_upload = arrays.size();
    std::uint32_t shared_at = 8 * chunk;
    std::vector<abi::PhaseArray> point_arrays;
    for (const auto& pa : e.arrays) {
      ArrayUpload a;
      a.img = make_array_image(pa.array, e.element, {}, pa.path != LoadPath::constant);
      a.path = pa.path;
      abi::PhaseArray ta;
      ta.start = a.img.start_offset / e.elem_bytes();
      ta.pass_len = a.img.pass_length;
      ta.path = static_cast<std::uint32_t>(path_code(pa.path));
      if (pa.path == LoadPath::shared) {
        ta.shared_at = shared_at;
        shared_at = static_cast<std::uint32_t>(round_up(shared_at + pa.array.size_bytes, 16));
      }
      m.array_start.push_back(ta.start);
      m.array_pass.push_back(ta.pass_len);
      point_arrays.push_back(ta);
      arrays.push_back(std::move(a));
    }
    if (shared_at > smem_.max_per_block_optin)
      throw RunError("the shared-path arrays and the sample buffer need " + std::to_string(shared_at) +
                     " B of shared memory per block; the device allows " + std::to_string(smem_.max_per_block_optin));
    needed = std::max(needed, shared_at);
    std::uint32_t overhead_array = 0;
    bool have_measure = false;
    for (const auto& ph : e.phases) {
      const auto it = std::find_if(e.arrays.begin(), e.arrays.end(), [&](const PhaseArray& a) { return a.name == ph.array; });
      const auto ai = static_cast<std::uint32_t>(it - e.arrays.begin());
      m.phase_array.push_back(ai);
      if (ph.action == Phase::Action::measure && !have_measure) {
        have_measure = true;
        overhead_array = ai;
        m.first_measured_pass = m.array_pass[ai];
      }
    }
    m.first_entry = entries.size();
    for (std::uint32_t b = 0; b < m.blocks; ++b) {
      abi::PhasesPoint pt;
      pt.first_array = static_cast<std::uint32_t>(tarrays.size());
      pt.n_arrays = static_cast<std::uint32_t>(point_arrays.size());
      pt.first_phase = static_cast<std::uint32_t>(tphases.size());
      pt.n_phases = static_cast<std::uint32_t>(e.phases.size());
      pt.chunk = chunk;
      pt.overhead_array = overhead_array;
      tarrays.insert(tarrays.end(), point_arrays.begin(), point_arrays.end());
      for (std::size_t p = 0; p < e.phases.size(); ++p) {
        const auto& ph = e.phases[p];
        abi::Phase tp;
        tp.thread = ph.thread;
        tp.array = m.phase_array[p];
        tp.measure = ph.action == Phase::Action::measure ? 1 : 0;
        tp.passes = ph.passes;
        tp.out_base = slots;
        if (tp.measure) slots += std::uint64_t{ph.passes} * m.array_pass[tp.array];
        tphases.push_back(tp);
      }
      entries.push_back(pt);
    }
    metas.push_back(std::move(m));
  }

  TextureGuard textures{drv_, {}};
  HelperFns helpers;
  if (std::any_of(arrays.begin(), arrays.end(), [](const ArrayUpload& a) { return !a.img.dense || a.img.device_fill; }))
    std::tie(helpers.scatter, helpers.fill) = helper_functions(timings);
  prof_.prep_ms += ms_since(t_prep);
  auto t_lap = std::chrono::steady_clock::now();
  FillBatch fills;
  place_arrays(drv_, arrays, arrays_, scatter_, k.module, helpers, textures, fills);
  for (std::size_t gi = 0; gi < metas.size(); ++gi) {
    const Meta& m = metas[gi];
    for (std::uint32_t b = 0; b < m.blocks; ++b) {
      const abi::PhasesPoint& pt = entries[m.first_entry + b];
      for (std::uint32_t a = 0; a < pt.n_arrays; ++a) tarrays[pt.first_array + a].ref = arrays[m.first_upload + a].ref;
    }
  }

  const std::uint32_t nblocks = static_cast<std::uint32_t>(entries.size());
  std::vector<unsigned char> table;
  append_bytes(table, entries);
  const std::uint64_t arrays_at = round_up(table.size(), 16);
  table.resize(arrays_at);
  append_bytes(table, tarrays);
  const std::uint64_t phases_at = round_up(table.size(), 16);
  table.resize(phases_at);
  append_bytes(table, tphases);
  const std::uint64_t fills_at = append_fills(table, fills);
  const CUdeviceptr tab = tables_.ensure(table.size());
  DISSECT_CU(drv_, cuMemcpyHtoD(tab, table.data(), table.size()));
  launch_fills(drv_, helpers.fill, fills, tab + fills_at);

  const CUdeviceptr lat = lat_.ensure(4 * std::max<std::uint64_t>(slots, 1));
  const CUdeviceptr idx = idx_.ensure(4 * std::max<std::uint64_t>(slots, 1));
  const std::uint64_t nph = tphases.size();
  const std::uint64_t final_at = 0, smid_at = round_up(8 * nph, 256), ovh_at = smid_at + round_up(4 * nblocks, 256),
                      misc_bytes = ovh_at + 4ull * nblocks * abi::kOverheadReps;
  const CUdeviceptr misc = misc_.ensure(misc_bytes);
  const SmemPlan smem = apply_smem(k, e0, needed);
  const int occupancy = occupancy_of(k, threads, smem.dynamic_bytes);

  CUdeviceptr p_points = tab, p_arrays = tab + arrays_at, p_phases = tab + phases_at, p_lat = lat, p_idx = idx,
              p_final = misc + final_at, p_smid = misc + smid_at, p_ovh = misc + ovh_at;
  unsigned int rt_zero = 0;
  void* args[] = {&p_points, &p_arrays, &p_phases, &p_lat, &p_idx, &p_final, &p_smid, &p_ovh, &rt_zero};
  std::vector<std::uint32_t> h_lat(slots), h_idx(slots), h_smid(nblocks), h_ovh(std::uint64_t{nblocks} * abi::kOverheadReps);
  std::vector<unsigned char> h_tail(misc_bytes - smid_at);
  std::vector<PointTrace> traces(group.points.size());
  std::vector<std::vector<double>> overheads(group.points.size());
  std::vector<double> clocks;
  const std::function<void()> meanwhile = [&] {
    start_points(req, group, traces,
                 {{"launch", group.per_sm ? "per_sm" : "single"},
                  {"dynamic_shared_bytes", std::to_string(smem.dynamic_bytes)},
                  {"shared_config_bytes", std::to_string(smem.config_bytes)},
                  {"occupancy_blocks_per_sm", std::to_string(occupancy)},
                  {"smem_note", smem.note}},
                 sink);
  };
  double kernel_ms = 0;
  for (std::uint32_t r = 0; r < e0.repeats; ++r) {
    DISSECT_CU(drv_, cuMemsetD8Async(lat, 0xff, 4 * std::max<std::uint64_t>(slots, 1), nullptr));
    DISSECT_CU(drv_, cuMemsetD8Async(idx, 0xff, 4 * std::max<std::uint64_t>(slots, 1), nullptr));
    DISSECT_CU(drv_, cuMemsetD8Async(misc, 0xff, misc_bytes, nullptr));
    prof_.upload_ms += ms_since(t_lap);
    t_lap = std::chrono::steady_clock::now();
    double clock_khz_now = 0;
    const double ms = launch(k, nblocks, threads, smem.dynamic_bytes, args, &clock_khz_now,
                             r == 0 ? meanwhile : std::function<void()>{});
    prof_.launch_ms += ms_since(t_lap);
    t_lap = std::chrono::steady_clock::now();
    kernel_ms += ms;
    timings.kernel_ms += ms;
    ++timings.launches;
    clocks.push_back(clock_khz_now);
    if (slots > 0) {
      DISSECT_CU(drv_, cuMemcpyDtoH(h_lat.data(), lat, 4 * slots));
      DISSECT_CU(drv_, cuMemcpyDtoH(h_idx.data(), idx, 4 * slots));
    }
    // %smid and timer overheads, adjacent in the per-block buffer: one copy, not two.
    DISSECT_CU(drv_, cuMemcpyDtoH(h_tail.data(), p_smid, h_tail.size()));
    std::memcpy(h_smid.data(), h_tail.data(), 4 * nblocks);
    std::memcpy(h_ovh.data(), h_tail.data() + (ovh_at - smid_at), 4 * h_ovh.size());
    if (group.per_sm) {
      std::vector<std::uint32_t> s = h_smid;
      std::sort(s.begin(), s.end());
      if (std::adjacent_find(s.begin(), s.end()) != s.end()) {
        std::cerr << "dissect: per-SM launch of " << group.points.size()
                  << " points put two blocks on one SM; running them one at a time\n";
        for (const std::size_t pi : group.points) run_group(req, LaunchGroup{{pi}, false}, timings, sink);
        return;
      }
    }
    for (std::size_t gi = 0; gi < group.points.size(); ++gi) {
      const Experiment& e = req.points[group.points[gi]].experiment;
      const Meta& m = metas[gi];
      const std::uint64_t elem = e.elem_bytes();
      for (std::uint32_t b = 0; b < m.blocks; ++b) {
        const abi::PhasesPoint& pt = entries[m.first_entry + b];
        const std::int32_t sm = static_cast<std::int32_t>(h_smid[m.first_entry + b]);
        for (std::uint32_t q = 0; q < abi::kOverheadReps; ++q) {
          const std::uint32_t v = h_ovh[std::uint64_t{m.first_entry + b} * abi::kOverheadReps + q];
          if (v != kPoison) overheads[gi].push_back(v);
        }
        std::uint32_t measure_ordinal = 0;
        for (std::uint32_t p = 0; p < pt.n_phases; ++p) {
          const abi::Phase& ph = tphases[pt.first_phase + p];
          if (!ph.measure) continue;
          const std::uint64_t count = std::uint64_t{ph.passes} * m.array_pass[ph.array];
          const std::uint64_t n_elems = e.arrays[ph.array].array.size_bytes / elem;
          std::uint64_t prev = m.array_start[ph.array];
          for (std::uint64_t q = 0; q < count; ++q) {
            const std::uint32_t v = h_idx[ph.out_base + q];
            if (v >= n_elems || h_lat[ph.out_base + q] == kPoison)
              throw RunError("the phases kernel left sample " + std::to_string(q) + " of phase " + std::to_string(p) +
                             " unwritten or out of range");
            Sample s;
            s.thread = static_cast<std::uint32_t>((std::uint64_t{r} * m.blocks + b) * threads + ph.thread);
            s.seq = q;
            s.offset_bytes = prev * elem;
            s.latency = h_lat[ph.out_base + q];
            s.sm_id = sm;
            s.phase = measure_ordinal;
            traces[gi].samples.push_back(s);
            prev = v;
          }
          ++measure_ordinal;
        }
      }
    }
  }
  prof_.readback_ms += ms_since(t_lap);
  t_lap = std::chrono::steady_clock::now();
  const double clock_khz = clocks.empty() ? kUnknown
                                          : std::accumulate(clocks.begin(), clocks.end(), 0.0) /
                                                static_cast<double>(clocks.size());
  RunSink::PointBatch batch;
  batch.reserve(group.points.size());
  for (std::size_t gi = 0; gi < group.points.size(); ++gi) {
    const Point& p = req.points[group.points[gi]];
    PointTrace& t = traces[gi];
    t.point_id = p.id;
    t.kernel_ms = kernel_ms;
    t.sm_clock_khz = clock_khz;
    t.sm_id = static_cast<std::int32_t>(h_smid[metas[gi].first_entry]);
    t.accesses_per_pass = metas[gi].first_measured_pass;
    t.discard_passes = p.experiment.discard;
    t.timer_overhead_cycles = median(overheads[gi]);
    // t.params: during the launch (meanwhile)
    batch.emplace_back(&p, std::move(t));
  }
  sink.points_done(std::move(batch));
  prof_.sink_ms += ms_since(t_lap);
}

void CudaDevice::run_simple(const RunRequest& req, const LaunchGroup& group, Kernel& k, RunTimings& timings,
                            RunSink& sink) {
  const auto t_prep = std::chrono::steady_clock::now();
  const Experiment& e0 = req.points[group.points.front()].experiment;
  const KernelKind kind = e0.kernel;
  const std::uint32_t threads = e0.layout.threads;
  const std::uint32_t warps = (threads + 31) / 32;

  // Arrays: shared_stride builds its own in shared memory; the others read one
  // array whose contents do not matter (written on the device, sequentially).
  std::vector<ArrayUpload> arrays;
  std::vector<abi::SsPoint> ss;
  std::vector<abi::CoPoint> co;
  std::vector<abi::TpPoint> tp;
  std::vector<std::size_t> first_entry;
  std::uint64_t slots = 0, finals = 0;
  std::uint32_t needed = 16;
  for (const std::size_t pi : group.points) {
    const Experiment& e = req.points[pi].experiment;
    const std::uint64_t elem = e.elem_bytes();
    first_entry.push_back(kind == KernelKind::shared_stride ? ss.size() : kind == KernelKind::coalescing ? co.size()
                                                                                                       : tp.size());
    ArrayUpload a;
    if (kind != KernelKind::shared_stride) {
      ArraySpec plain;
      plain.size_bytes = e.array.size_bytes;
      plain.stride_bytes = elem;
      a.img = make_array_image(plain, e.element, {}, e.path != LoadPath::constant);
      a.path = e.path;
      arrays.push_back(std::move(a));
    }
    for (std::uint32_t b = 0; b < e.layout.blocks; ++b) {
      if (kind == KernelKind::shared_stride) {
        abi::SsPoint p;
        p.n_elems = e.array.size_bytes / elem;
        p.offset_bytes = e.array.offset_bytes;
        p.stride_bytes = e.array.stride_bytes;
        p.iters = e.iterations;
        p.warm = e.warmup;
        p.out_base = slots;
        slots += threads;
        ss.push_back(p);
        needed = std::max<std::uint32_t>(needed, static_cast<std::uint32_t>(16 + e.array.size_bytes));
      } else if (kind == KernelKind::coalescing) {
        abi::CoPoint p;
        p.size_bytes = e.array.size_bytes;
        p.offset_bytes = e.array.offset_bytes;
        p.stride_bytes = e.array.stride_bytes;
        p.iters = e.iterations;
        p.warm = e.warmup;
        p.out_base = slots;
        p.lanes = std::min<std::uint32_t>(threads, 32);
        p.shared_at = 128;
        slots += e.iterations;
        co.push_back(p);
        needed = std::max<std::uint32_t>(
            needed, static_cast<std::uint32_t>(128 + (e.path == LoadPath::shared ? e.array.size_bytes : 0)));
      } else {
        if (e.array.size_bytes / elem >= (1ull << 32))
          throw RunError("kernel throughput indexes arrays of fewer than 2^32 elements");
        abi::TpPoint p;
        p.iters = e.iterations;
        p.out_base = slots;
        p.first_thread = b * threads;
        p.total_threads = e.layout.blocks * threads;
        p.shared_at = static_cast<std::uint32_t>(round_up(4ull * threads, 16));
        slots += warps;
        tp.push_back(p);
        needed = std::max<std::uint32_t>(
            needed, static_cast<std::uint32_t>(p.shared_at + (e.path == LoadPath::shared ? e.array.size_bytes : 0)));
      }
    }
    finals += std::uint64_t{e.layout.blocks} * (kind == KernelKind::coalescing ? 32 : threads);
  }
  if (needed > smem_.max_per_block_optin)
    throw RunError("the kernel needs " + std::to_string(needed) + " B of shared memory per block; the device allows " +
                   std::to_string(smem_.max_per_block_optin) + " B");

  TextureGuard textures{drv_, {}};
  HelperFns helpers;
  if (std::any_of(arrays.begin(), arrays.end(), [](const ArrayUpload& a) { return !a.img.dense || a.img.device_fill; }))
    std::tie(helpers.scatter, helpers.fill) = helper_functions(timings);
  prof_.prep_ms += ms_since(t_prep);
  auto t_lap = std::chrono::steady_clock::now();
  FillBatch fills;
  place_arrays(drv_, arrays, arrays_, scatter_, k.module, helpers, textures, fills);
  for (std::size_t gi = 0; gi < group.points.size(); ++gi) {
    const std::uint32_t blocks = req.points[group.points[gi]].experiment.layout.blocks;
    for (std::uint32_t b = 0; b < blocks; ++b) {
      if (kind == KernelKind::coalescing) co[first_entry[gi] + b].array = arrays[gi].ref;
      if (kind == KernelKind::throughput) tp[first_entry[gi] + b].array = arrays[gi].ref;
    }
  }
  std::vector<unsigned char> table;
  append_bytes(table, ss);
  append_bytes(table, co);
  append_bytes(table, tp);
  const std::uint64_t fills_at = append_fills(table, fills);
  const std::uint32_t nblocks = static_cast<std::uint32_t>(ss.size() + co.size() + tp.size());
  const CUdeviceptr tab = tables_.ensure(table.size());
  DISSECT_CU(drv_, cuMemcpyHtoD(tab, table.data(), table.size()));
  launch_fills(drv_, helpers.fill, fills, tab + fills_at);
  const std::uint64_t slot_bytes = kind == KernelKind::shared_stride ? 8 : 4;
  const CUdeviceptr out = lat_.ensure(slot_bytes * slots);
  const std::uint64_t final_at = 0, smid_at = round_up(8 * finals, 256), ovh_at = smid_at + round_up(4 * nblocks, 256),
                      misc_bytes = ovh_at + 4ull * nblocks * abi::kOverheadReps;
  const CUdeviceptr misc = misc_.ensure(misc_bytes);
  const SmemPlan smem = apply_smem(k, e0, needed);
  const int occupancy = occupancy_of(k, threads, smem.dynamic_bytes);
  CUdeviceptr p_points = tab, p_out = out, p_final = misc + final_at, p_smid = misc + smid_at, p_ovh = misc + ovh_at;
  unsigned int rt_zero = 0;
  void* args[] = {&p_points, &p_out, &p_final, &p_smid, &p_ovh, &rt_zero};

  std::vector<std::uint64_t> h_cycles(kind == KernelKind::shared_stride ? slots : 0);
  std::vector<std::uint32_t> h_lat(kind == KernelKind::shared_stride ? 0 : slots), h_smid(nblocks),
      h_ovh(std::uint64_t{nblocks} * abi::kOverheadReps);
  std::vector<unsigned char> h_tail(misc_bytes - smid_at);
  std::vector<PointTrace> traces(group.points.size());
  std::vector<std::vector<double>> overheads(group.points.size());
  std::vector<double> clocks;
  const std::function<void()> meanwhile = [&] {
    start_points(req, group, traces,
                 {{"launch", group.per_sm ? "per_sm" : "single"},
                  {"launch_points", std::to_string(group.points.size())},
                  {"dynamic_shared_bytes", std::to_string(smem.dynamic_bytes)},
                  {"shared_config_bytes", std::to_string(smem.config_bytes)},
                  {"occupancy_blocks_per_sm", std::to_string(occupancy)},
                  {"smem_note", smem.note}},
                 sink);
  };
  double kernel_ms = 0;
  for (std::uint32_t r = 0; r < e0.repeats; ++r) {
    DISSECT_CU(drv_, cuMemsetD8Async(out, 0xff, slot_bytes * slots, nullptr));
    DISSECT_CU(drv_, cuMemsetD8Async(misc, 0xff, misc_bytes, nullptr));
    prof_.upload_ms += ms_since(t_lap);
    t_lap = std::chrono::steady_clock::now();
    double clock_khz_now = 0;
    const double ms = launch(k, nblocks, threads, smem.dynamic_bytes, args, &clock_khz_now,
                             r == 0 ? meanwhile : std::function<void()>{});
    prof_.launch_ms += ms_since(t_lap);
    t_lap = std::chrono::steady_clock::now();
    kernel_ms += ms;
    timings.kernel_ms += ms;
    ++timings.launches;
    clocks.push_back(clock_khz_now);
    if (kind == KernelKind::shared_stride)
      DISSECT_CU(drv_, cuMemcpyDtoH(h_cycles.data(), out, 8 * slots));
    else
      DISSECT_CU(drv_, cuMemcpyDtoH(h_lat.data(), out, 4 * slots));
    // %smid and timer overheads, adjacent in the per-block buffer: one copy, not two.
    DISSECT_CU(drv_, cuMemcpyDtoH(h_tail.data(), p_smid, h_tail.size()));
    std::memcpy(h_smid.data(), h_tail.data(), 4 * nblocks);
    std::memcpy(h_ovh.data(), h_tail.data() + (ovh_at - smid_at), 4 * h_ovh.size());
    if (group.per_sm) {
      std::vector<std::uint32_t> s = h_smid;
      std::sort(s.begin(), s.end());
      if (std::adjacent_find(s.begin(), s.end()) != s.end()) {
        std::cerr << "dissect: per-SM launch of " << group.points.size()
                  << " points put two blocks on one SM; running them one at a time\n";
        for (const std::size_t pi : group.points) run_group(req, LaunchGroup{{pi}, false}, timings, sink);
        return;
      }
    }
    for (std::size_t gi = 0; gi < group.points.size(); ++gi) {
      const Experiment& e = req.points[group.points[gi]].experiment;
      const std::uint64_t size = std::max<std::uint64_t>(e.array.size_bytes, 1);
      for (std::uint32_t b = 0; b < e.layout.blocks; ++b) {
        const std::size_t blk = first_entry[gi] + b;  // entries of one kind are the launch's blocks, in order
        const std::int32_t sm = static_cast<std::int32_t>(h_smid[blk]);
        for (std::uint32_t q = 0; q < abi::kOverheadReps; ++q) {
          const std::uint32_t v = h_ovh[blk * abi::kOverheadReps + q];
          if (v != kPoison && (kind != KernelKind::throughput || b == 0)) overheads[gi].push_back(v);
        }
        auto fail = [&](const std::string& what) {
          throw RunError("the " + std::string(to_string(kind)) + " kernel left " + what + " unwritten");
        };
        if (kind == KernelKind::shared_stride) {
          const abi::SsPoint& p = ss[blk];
          for (std::uint32_t t = 0; t < threads; ++t) {
            const std::uint64_t c = h_cycles[p.out_base + t];
            if (c == ~0ull) fail("lane " + std::to_string(t));
            Sample s;
            s.thread = b * threads + t;
            s.seq = r;
            s.offset_bytes = (e.array.offset_bytes + std::uint64_t{t} * e.array.stride_bytes) % size;
            s.latency = static_cast<double>(c) / static_cast<double>(std::max<std::uint64_t>(e.iterations, 1));
            s.sm_id = sm;
            traces[gi].samples.push_back(s);
          }
        } else if (kind == KernelKind::coalescing) {
          const abi::CoPoint& p = co[blk];
          for (std::uint64_t q = 0; q < e.iterations; ++q) {
            const std::uint32_t v = h_lat[p.out_base + q];
            if (v == kPoison) fail("request " + std::to_string(q));
            Sample s;
            s.thread = b;
            s.seq = q;
            s.offset_bytes = e.array.offset_bytes % size;
            s.latency = v;
            s.sm_id = sm;
            traces[gi].samples.push_back(s);
          }
        } else {
          const abi::TpPoint& p = tp[blk];
          for (std::uint32_t w = 0; w < warps; ++w) {
            const std::uint32_t v = h_lat[p.out_base + w];
            if (v == kPoison) fail("warp " + std::to_string(w));
            const std::uint32_t lanes = std::min<std::uint32_t>(32, threads - w * 32);
            Sample s;
            s.thread = b * warps + w;
            s.seq = r;
            s.offset_bytes = std::uint64_t{lanes} * e.iterations * e.ilp * e.elem_bytes();
            s.latency = v;
            s.sm_id = sm;
            traces[gi].samples.push_back(s);
          }
        }
      }
    }
  }
  prof_.readback_ms += ms_since(t_lap);
  t_lap = std::chrono::steady_clock::now();
  const double clock_khz = clocks.empty() ? kUnknown
                                          : std::accumulate(clocks.begin(), clocks.end(), 0.0) /
                                                static_cast<double>(clocks.size());
  RunSink::PointBatch batch;
  batch.reserve(group.points.size());
  for (std::size_t gi = 0; gi < group.points.size(); ++gi) {
    const Point& p = req.points[group.points[gi]];
    const Experiment& e = p.experiment;
    PointTrace& t = traces[gi];
    t.point_id = p.id;
    t.kernel_ms = kernel_ms;
    t.sm_clock_khz = clock_khz;
    t.sm_id = static_cast<std::int32_t>(h_smid[first_entry[gi]]);
    t.accesses_per_pass = e.accesses_per_pass();
    t.discard_passes = e.discard;
    const double ovh = median(overheads[gi]);
    // shared_stride samples are averages over `iterations` reads timed once.
    t.timer_overhead_cycles =
        kind == KernelKind::shared_stride ? ovh / static_cast<double>(std::max<std::uint64_t>(e.iterations, 1)) : ovh;
    batch.emplace_back(&p, std::move(t));
  }
  sink.points_done(std::move(batch));
  prof_.sink_ms += ms_since(t_lap);
}

// ---------------------------------------------------------------------------
// The device family
// ---------------------------------------------------------------------------

DeviceFactory cuda_device_factory() {
  DeviceFactory f;
  f.name = "cuda";
  f.help = "--device N           CUDA GPU N (0, 1, ...) through the driver API";
  f.accepts = [](const std::string& s) {
    return !s.empty() && s.size() < 6 && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  f.open = [](const std::string& s, std::span<const Point> upcoming) -> std::unique_ptr<Device> {
    return std::make_unique<CudaDevice>(std::stoi(s), upcoming);
  };
  f.list = []() -> std::vector<std::string> {
    std::string why;
    if (!CudaDriver::available(&why)) return {"cuda: none (" + why + ")"};
    const CudaDriver& d = CudaDriver::get();
    if (const CUresult r = d.cuInit(0); r != CUDA_SUCCESS) return {"cuda: none (cuInit: " + d.error_text(r) + ")"};
    int n = 0;
    if (d.cuDeviceGetCount(&n) != CUDA_SUCCESS || n == 0) return {"cuda: none (no CUDA GPU)"};
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) {
      CUdevice dev = 0;
      char name[256] = {};
      int major = 0, minor = 0, sms = 0;
      d.cuDeviceGet(&dev, i);
      d.cuDeviceGetName(name, sizeof name, dev);
      d.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
      d.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
      d.cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
      out.push_back(std::to_string(i) + ": " + name + " (sm_" + std::to_string(major * 10 + minor) + ", " +
                    std::to_string(sms) + " SMs)");
    }
    return out;
  };
  f.preview = [](const std::string& s, std::span<const Point> points, const std::string& arch_text) {
    return dry_run_kernel_text(points, arch_text, s);
  };
  return f;
}

}  // namespace dissect
