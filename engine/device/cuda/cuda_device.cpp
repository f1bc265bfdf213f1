#include "engine/device/cuda/cuda_device.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <future>
#include <iostream>
#include <numeric>
#include <optional>
#include <set>
#include <span>
#include <system_error>
#include <tuple>
#include <utility>

#include "engine/codegen/disassembler.hpp"
#include "engine/codegen/nvrtc_compiler.hpp"
#include "engine/core/background_worker.hpp"
#include "engine/core/csv.hpp"
#include "engine/core/stopwatch.hpp"
#include "engine/core/timeline.hpp"
#include "engine/device/cuda/array_placement.hpp"
#include "engine/device/cuda/cuda_error.hpp"
#include "engine/device/cuda/cuda_launch.hpp"
#include "engine/device/cuda/cuda_preview.hpp"
#include "engine/device/cuda/kernel_artifact.hpp"
#include "engine/device/cuda/vmm_allocation.hpp"
#include "engine/device/device_fault.hpp"
#include "engine/device/fault_injection.hpp"
#include "engine/device/kernel_family.hpp"

namespace dissect {

namespace {

// An SM that ran two of the launch's blocks (their %smid), if any.
std::optional<std::uint32_t> sm_run_twice(std::span<const std::uint32_t> smids) {
  std::vector<std::uint32_t> s(smids.begin(), smids.end());
  std::sort(s.begin(), s.end());
  const auto clash = std::adjacent_find(s.begin(), s.end());
  return clash == s.end() ? std::nullopt : std::optional<std::uint32_t>(*clash);
}

// Allocated when the device opens (beside the context's set-up, not in a run's wall time):
// the arena holds a 128-point L1 sweep's arrays; parameter tables and results of
// thousands of points fit the small buffers. Larger needs reallocate (DeviceBuffer).
constexpr std::uint64_t kArenaReserve = 64ull << 20;
constexpr std::uint64_t kSmallReserve = 1ull << 20;
constexpr const char* kFillEntry = "dissect_fill_sequential_batch";  // scatter.cuh

const char* const kNoGpuHint =
    "; to run without a GPU use a simulated one: --device sim:<profile> (see 'dissect list devices')";

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
  {
    std::size_t total = 0;
    DISSECT_CU(drv_, cuDeviceTotalMem(&total, dev_));
    memory_bytes_ = total;
  }
  smem_.cc_major = cc_major_;
  smem_.cc_minor = cc_minor_;
  smem_.max_per_sm = static_cast<std::uint32_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR));
  smem_.max_per_block_optin = static_cast<std::uint32_t>(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN));
  smem_.reserved_per_block = static_cast<std::uint32_t>(attr(CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK));
  rated_clock_khz_ = attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE);

  timeline::mark("device: attributes read");

  DISSECT_CU(drv_, cuDevicePrimaryCtxRetain(&ctx_, dev_));
  timeline::mark("device: primary context retained");
  modules_ = std::make_unique<KernelModules>(drv_, ctx_, arch());
  // The helper module and the first points' kernel are looked up in the compile cache
  // and loaded on workers while the rest of the device opens (~20 ms: the description,
  // NVML). Not earlier: beside the context's creation a cold NVRTC compile took 6x as
  // long on the H100 (360 ms instead of 60).
  modules_->prefetch(scatter_kernel_params(), kFillEntry);
  if (!upcoming.empty()) prepare(upcoming);
  // The buffers every run needs, allocated beside the rest of the opening; run() waits.
  try {
    buffers_reserved_ = std::async(std::launch::async, [this] {
      DISSECT_CU(drv_, cuCtxSetCurrent(ctx_));
      reserve_buffers();
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
  const NvmlDevice nvml = open_nvml_device(bus);
  nvml_ = std::make_unique<NvmlClock>(nvml);
  processes_ = std::make_unique<NvmlProcesses>(nvml);

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
  // The unit the driver maps device memory in (the virtual memory API's minimum granularity):
  // the driver's figure beside the page the TLB steps bound by timing.
  try {
    d["allocation_granularity_bytes"] = vmm_allocation(drv_, "device memory", "the device description").granularity;
  } catch (const CudaError&) {
    // No virtual memory management API on this device: no figure (the scattered and aliased frames say why).
  }
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
  // The driver's own release: two releases can share the CUDA version above (a resumed run checks it).
  if (const std::string release = nvml.driver_release(); !release.empty()) d["driver_release"] = release;
  d["nvrtc_version"] = NvrtcCompiler::version();
  d["nvml"] = nvml_->available() ? std::string("yes") : "no: " + nvml_->why_unavailable();
  d["compile_cache"] = modules_->cache().enabled() ? modules_->cache().dir() : std::string("disabled (--no-cache)");
  d["disassembler"] = find_disassembler();
  if (!NvrtcCompiler::supports(arch()))
    throw RunError(std::string(name) + " is sm_" + std::to_string(arch()) + ", which NVRTC " +
                   NvrtcCompiler::version() + " cannot compile for");
  description_ = d;
  timeline::mark("device: described");
}

CudaDevice::~CudaDevice() {
  // The device may be destroyed on a thread of its own (dissect topology releases it while the
  // report is written): its context is made current there first.
  if (ctx_) (void)drv_.cuCtxSetCurrent(ctx_);
  await_reserved_buffers();
  if (modules_) modules_->unload_all();  // before the context goes
  for (DeviceBuffer* b : {&arrays_, &scattered_arrays_, &aliased_arrays_, &tables_, &results_, &scatter_, &flush_})
    b->release();
  for (auto& b : sample_buffers_) b->release();
  if (ev0_) drv_.cuEventDestroy(ev0_);
  if (ev1_) drv_.cuEventDestroy(ev1_);
  if (ctx_) drv_.cuDevicePrimaryCtxRelease(dev_);
}

nlohmann::json CudaDevice::describe() const { return description_; }

void CudaDevice::reserve_buffers() {
  arrays_.ensure(kArenaReserve, kArrayAlignMax);
  tables_.ensure(kSmallReserve);
  results_.ensure(kSmallReserve);
}

// ---------------------------------------------------------------------------
// After a kernel fault: a fresh context
// ---------------------------------------------------------------------------

nlohmann::json CudaDevice::recreate_context() noexcept {
  // Nothing may hold a handle of the old context past the reset: the workers are done
  // (the buffers' reservation, the prefetches unload_all waits for; the artifact writers
  // were awaited when run_points returned), and every module, buffer and event is given
  // back first. Those calls fail in a poisoned context (their errors are of no use: the
  // reset frees everything); the handles are forgotten either way.
  await_reserved_buffers();
  if (modules_) modules_->unload_all();
  modules_.reset();
  for (DeviceBuffer* b : {&arrays_, &scattered_arrays_, &aliased_arrays_, &tables_, &results_, &scatter_, &flush_})
    b->release();
  sample_buffers_.clear();
  if (ev0_) drv_.cuEventDestroy(ev0_);
  if (ev1_) drv_.cuEventDestroy(ev1_);
  ev0_ = ev1_ = nullptr;
  // The primary context is destroyed whoever else retains it (cuDevicePrimaryCtxRelease
  // would destroy it only with the last reference); the reset does not release our
  // reference, so it is released after, and a fresh context retained.
  const CUresult reset = drv_.cuDevicePrimaryCtxReset(dev_);
  ++context_resets_;
  if (ctx_) drv_.cuDevicePrimaryCtxRelease(dev_);
  ctx_ = nullptr;
  nlohmann::json r;
  try {
    if (reset != CUDA_SUCCESS) throw RunError("cuDevicePrimaryCtxReset: " + drv_.error_text(reset));
    DISSECT_CU(drv_, cuDevicePrimaryCtxRetain(&ctx_, dev_));
    DISSECT_CU(drv_, cuCtxSetCurrent(ctx_));
    modules_ = std::make_unique<KernelModules>(drv_, ctx_, arch());
    DISSECT_CU(drv_, cuEventCreate(&ev0_, CU_EVENT_DEFAULT));
    DISSECT_CU(drv_, cuEventCreate(&ev1_, CU_EVENT_DEFAULT));
    reserve_buffers();
    // The fresh context must run work, not only exist: a fault beyond a context (the
    // hardware's) shows here instead of in the next spec's first launch.
    DISSECT_CU(drv_, cuMemsetD8Async(tables_.ptr(), 0, kSmallReserve, nullptr));
    DISSECT_CU(drv_, cuCtxSynchronize());
    r["recovery"] = "context recreated (cuDevicePrimaryCtxReset, cuDevicePrimaryCtxRetain) and checked";
    r["recovered"] = true;
  } catch (const std::exception& e) {
    lost_ = e.what();
    r["recovery"] = std::string("failed: ") + e.what();
    r["recovered"] = false;
  }
  return r;
}

GpuSnapshot CudaDevice::snapshot() const {
  GpuSnapshot s;
  if (nvml_) s.sm_clock_khz = nvml_->sm_clock_khz();
  if (!s.sm_clock_khz)
    s.clock_unknown_why = nvml_ && nvml_->available()
                              ? std::string("NVML did not report the SM clock")
                              : "no NVML: " + (nvml_ ? nvml_->why_unavailable() : std::string("?"));
  if (processes_) s.process_pids = processes_->compute_pids(&s.processes_unknown_why);
  return s;
}

double CudaDevice::current_sm_clock_khz() const {
  if (nvml_)
    if (auto c = nvml_->sm_clock_khz()) return *c;
  return rated_clock_khz_;
}

// ---------------------------------------------------------------------------
// Kernels: generate, compile (cached), load
// ---------------------------------------------------------------------------

void CudaDevice::prepare(std::span<const Point> points) noexcept {
  if (points.empty() || !modules_) return;  // no modules: the context was lost (run() says so)
  try {
    modules_->prefetch(kernel_params(points.front().experiment));
  } catch (const std::exception&) {
    // A hint only: the run meets the same error and reports it with its context.
  }
}

void CudaDevice::compile_ahead(std::span<const Experiment> experiments) noexcept {
  if (!modules_) return;  // the context was lost (run() says so)
  try {
    std::set<std::string> seen;  // kernel_identity: a few bytes each, before building the params
    for (const Experiment& e : experiments)
      if (seen.insert(kernel_identity(e)).second) modules_->precompile(kernel_params(e));
  } catch (const std::exception&) {
    // A hint only: a run meets the same error and reports it with its context.
  }
}

CudaDevice::Kernel& CudaDevice::kernel(const KernelParams& params, RunTimings& timings, RunSink* sink) {
  const auto t0 = std::chrono::steady_clock::now();
  bool newly = false;
  Kernel& k = modules_->get(params, &newly);
  if (newly) {
    timings.compile_ms += k.bin.compile_ms;
    prof_.kernel_ms += ms_since(t0);
    timeline::mark("kernel " + params.entry + ": in hand");
  }
  // Reported while the next launch runs (launch_kernel), or when the run ends.
  if (sink != nullptr && reported_.insert(params.canonical()).second) pending_reports_.emplace_back(&k, sink);
  return k;
}

void CudaDevice::report_kernel(Kernel& k, RunSink& sink) {
  KernelArtifact artifact = kernel_artifact(k.gen, k.bin, modules_->cache(), arch(), k.registers, k.static_shared);
  timeline::mark("artifact: made");
  sink.kernel_built(artifact);
  timeline::mark("artifact: handed to the sink");
}

// ---------------------------------------------------------------------------
// Launch mechanics
// ---------------------------------------------------------------------------

SmemPlan CudaDevice::apply_smem(Kernel& k, const Experiment& e, std::uint32_t needed) {
  // Blocks of SM-private experiments always fill their shared configuration, packed
  // or not (parallel: false, several blocks): both ways run under the same L1/shared
  // split, so per-SM and one-at-a-time results are comparable.
  // Blocks with arrays of their own (layout.array per_block) measure what B SMs do at
  // once: they too keep every other block off their SM.
  const bool exclusive =
      (is_sm_private(e.target) || e.layout.array == BlockArrays::per_block) && e.carveout >= 0;
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
  // took ~1 ms on the H100's host, as long as a short kernel; a kernel compiled afresh is
  // disassembled, ~0.5 s of cuobjdump, by the worker that compiled it ahead
  // (KernelModules::precompile), else here, side by side for a step's new kernels), and a failure
  // to write one is reported after the run instead of aborting it (await_kernel_reports).
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
  if (artifact_jobs_.empty()) return;
  for (auto& job : artifact_jobs_) try {
      job.get();
    } catch (const std::exception& e) {
      if (pending_report_error_.empty()) pending_report_error_ = e.what();
    }
  artifact_jobs_.clear();
  timeline::mark("run: kernel artifacts awaited");
}

double CudaDevice::launch_kernel(Kernel& k, std::uint32_t blocks, std::uint32_t threads, std::uint32_t dyn_shared,
                          void** args, double* clock_khz, const std::function<void()>& meanwhile) {
  timeline::mark("launch: start");
  DISSECT_CU(drv_, cuEventRecord(ev0_, nullptr));
  DISSECT_CU(drv_, cuLaunchKernel(k.fn, blocks, 1, 1, threads, 1, 1, dyn_shared, nullptr, args, nullptr));
  DISSECT_CU(drv_, cuEventRecord(ev1_, nullptr));
  timeline::mark("launch: enqueued");
  // Host work that overlaps the kernel (launches are asynchronous). The SM clock first, while
  // the kernel surely runs: `meanwhile` can hold the group before's decoding.
  if (clock_khz != nullptr) *clock_khz = current_sm_clock_khz();
  timeline::mark("launch: SM clock read");
  report_pending_kernels();
  timeline::mark("launch: kernel artifacts written");
  if (meanwhile) meanwhile();
  timeline::mark("launch: points started, waiting");
  DISSECT_CU(drv_, cuEventSynchronize(ev1_));
  timeline::mark("launch: kernel finished");
  float ms = 0;
  DISSECT_CU(drv_, cuEventElapsedTime(&ms, ev0_, ev1_));
  return ms;
}

namespace {

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
  if (h.second == nullptr) DISSECT_CU(drv_, cuModuleGetFunction(&h.second, h.module, kFillEntry));
  return {h.fn, h.second};
}

DeviceBuffer& CudaDevice::sample_buffer(std::size_t i) {
  while (sample_buffers_.size() <= i)
    sample_buffers_.push_back(std::make_unique<DeviceBuffer>(
        sample_buffers_.empty() ? "the latency samples" : sample_buffers_.size() == 1 ? "the index samples" : "per-sample results"));
  return *sample_buffers_[i];
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
  const std::string spec = req.spec != nullptr ? req.spec->path : std::string("?");
  if (!lost_.empty())
    throw RunError("spec " + spec + ": GPU " + std::to_string(ordinal_) +
                   " cannot run anything in this process since an earlier fault (its context could not be "
                   "recreated: " + lost_ + "); run the remaining specs in a new process");
  try {
    return run_points(req, sink);
  } catch (const CudaError& e) {
    const CudaStickiness sticky = cuda_stickiness(e.result());
    if (sticky == CudaStickiness::none) throw;  // the context is intact: nothing to recover
    const std::string what = e.what();
    nlohmann::json details{{"kind", sticky == CudaStickiness::context ? "kernel fault" : "device error"},
                           {"cuda_call", e.call()},
                           {"cuda_error", drv_.error_text(e.result())},
                           {"sticky", to_string(sticky)}};
    details.update(recreate_context());
    const bool recovered = lost_.empty();
    std::string message = what + (sticky == CudaStickiness::context
                                      ? "; a kernel fault poisons the GPU context"
                                      : "; the GPU reported an error that poisons its context");
    message += recovered ? ": it was recreated, and the next spec runs in the fresh one"
                         : ": it could not be recreated (" + lost_ + "), so nothing more runs in this process";
    throw DeviceFault(message, std::move(details), recovered);
  }
}

RunTimings CudaDevice::run_points(const RunRequest& req, RunSink& sink) {
  const auto t_run = std::chrono::steady_clock::now();
  await_reserved_buffers();
  RunTimings timings;
  reported_.clear();
  prof_ = Profile{};
  // A group's tail never outlives its run (it holds the request and the sink): on every way
  // out, what is pending runs (its points kept) and a stored error goes; one that cannot be
  // thrown any more (another error is on its way) is said on stderr.
  group_tail_ = {};
  group_tail_error_ = nullptr;
  struct TailAtExit {
    CudaDevice& d;
    ~TailAtExit() {
      std::exception_ptr errors[] = {d.finish_group_tail(), std::exchange(d.group_tail_error_, nullptr)};
      for (const auto& e : errors)
        if (e) try {
            std::rethrow_exception(e);
          } catch (const std::exception& x) {
            std::cerr << "dissect: also: " << x.what() << "\n";
          } catch (...) {
          }
    }
  } tail_at_exit{*this};
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
  limits.const_align = kConstBankAlign;
  auto compat = [](const Point& p) {
    const Experiment& e = p.experiment;
    // kernel_identity, not kernel_params(e).canonical(): a string each instead of a dozen.
    std::string key = kernel_identity(e);
    for (const std::int64_t v : {std::int64_t{e.layout.threads}, std::int64_t{e.carveout}, std::int64_t{e.repeats}})
      key.append(reinterpret_cast<const char*>(&v), sizeof v);
    return key;
  };
  const std::vector<LaunchGroup> plan = plan_launches(req.points, limits, compat);
  // The host side of the next groups (their chase orders and array images: milliseconds
  // each for large arrays) is prepared on worker threads while this one measures. Only
  // host memory is touched there; every driver call stays on this thread, in the order
  // it always had, so the device sees the same sequence.
  constexpr std::size_t kPreparedAhead = 3;
  std::deque<std::future<std::unique_ptr<CudaLaunch>>> prepared;
  std::size_t queued = 0;
  std::size_t done = 0;
  for (std::size_t gi = 0; gi < plan.size(); ++gi) {
    if (req.stop != nullptr && req.stop->load()) break;
    for (; queued < plan.size() && queued <= gi + kPreparedAhead; ++queued)
      prepared.push_back(std::async(std::launch::async, [this, &req, &g = plan[queued]] { return prepare_launch(req, g); }));
    std::future<std::unique_ptr<CudaLaunch>> mine = std::move(prepared.front());
    prepared.pop_front();
    try {
      run_group(req, plan[gi], mine, timings, sink);
    } catch (...) {
      // A scatter or kernel still in flight must not write into arenas the next run remaps.
      (void)drv_.cuCtxSynchronize();
      throw;  // tail_at_exit: the pending groups keep their points
    }
    // The group before's tail ran as this group's kernel ran: its error, located at it (this
    // group's points are kept first, by tail_at_exit).
    if (group_tail_error_) std::rethrow_exception(std::exchange(group_tail_error_, nullptr));
    done += plan[gi].points.size();
    sink.progress(done, req.points.size());
  }
  if (std::exception_ptr e = finish_group_tail()) std::rethrow_exception(e);
  if (timing_report_wanted()) {
    std::fprintf(stderr,
                 "dissect cuda timing: run %.2f ms = compile/load %.2f, host prep %.2f, device setup %.2f, "
                 "launches %.2f (kernels %.2f), readback+samples %.2f, sink %.2f; %zu launches\n",
                 ms_since(t_run), prof_.kernel_ms, prof_.prep_ms, prof_.upload_ms, prof_.launch_ms, timings.kernel_ms,
                 prof_.readback_ms, prof_.sink_ms, timings.launches);
  }
  return timings;
}

void CudaDevice::inject_test_fault() {
  // A kernel that traps, in PTX (the driver compiles it for this GPU): a real kernel fault in
  // the device's context, met by the synchronisation after it as a chase's fault would be.
  static const char* const kTrap =
      ".version 7.0\n.target sm_52\n.address_size 64\n"
      ".visible .entry dissect_injected_fault()\n{\n\ttrap;\n\tret;\n}\n";
  CUmodule m = nullptr;
  CUfunction f = nullptr;
  DISSECT_CU(drv_, cuModuleLoadData(&m, kTrap));
  DISSECT_CU(drv_, cuModuleGetFunction(&f, m, "dissect_injected_fault"));
  DISSECT_CU(drv_, cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr));
  DISSECT_CU(drv_, cuCtxSynchronize());
  // Not reached when the kernel faulted as it should; the module is freed with the context otherwise.
  drv_.cuModuleUnload(m);
  throw RunError("DISSECT_TEST_INJECT_FAULT: the trapping kernel did not fault");
}

std::unique_ptr<CudaLaunch> CudaDevice::prepare_launch(const RunRequest& req, const LaunchGroup& group) const {
  const Experiment& e0 = req.points[group.points.front()].experiment;
  std::vector<const Experiment*> experiments;
  experiments.reserve(group.points.size());
  for (const std::size_t pi : group.points) experiments.push_back(&req.points[pi].experiment);
  CudaLimits limits;
  limits.max_shared_per_block = smem_.max_per_block_optin;
  if (e0.layout.array == BlockArrays::per_block && e0.layout.blocks > sm_count_)
    throw RunError("layout.blocks " + std::to_string(e0.layout.blocks) + " with layout.array per_block: the device has " +
                   std::to_string(sm_count_) + " SMs, and every block must run on an SM of its own, at once");
  return kernel_family(e0).cuda_launch(experiments, limits);
}

void CudaDevice::run_group(const RunRequest& req, const LaunchGroup& group,
                           std::future<std::unique_ptr<CudaLaunch>>& prepared, RunTimings& timings, RunSink& sink) {
  const Point& first = req.points[group.points.front()];
  try {
    for (const std::size_t pi : group.points)
      if (fault_injected_at(req, req.points[pi])) inject_test_fault();
    Kernel& k = kernel(kernel_params(first.experiment), timings, &sink);
    launch_group(req, group, k, prepared, timings, sink);
  } catch (const RunError& e) {
    std::string where = "spec " + (req.spec != nullptr ? req.spec->path : std::string("?")) + ", point " +
                        point_label(first);
    if (group.points.size() > 1)
      where += " (one per-SM launch of points #" + std::to_string(first.id) + "..#" +
               std::to_string(req.points[group.points.back()].id) + ")";
    // A driver error keeps its result: run() decides from it whether the context survived.
    if (const auto* cuda = dynamic_cast<const CudaError*>(&e)) throw cuda->located(where + ": ");
    throw RunError(where + ": " + e.what());
  }
}

void CudaDevice::launch_group(const RunRequest& req, const LaunchGroup& group, Kernel& k,
                              std::future<std::unique_ptr<CudaLaunch>>& prepared, RunTimings& timings, RunSink& sink) {
  const auto t_prep = std::chrono::steady_clock::now();  // what is left of it: the wait for the worker
  const Experiment& e0 = req.points[group.points.front()].experiment;
  const KernelFamily& family = kernel_family(e0);
  // What the group's host end needs after this returns (finish_group_tail): the launch,
  // the host copies of its results, the traces being filled.
  struct GroupState {
    std::unique_ptr<CudaLaunch> launch;
    std::vector<HostBufferPool::Lease> host;  // one per per-sample buffer
    HostBufferPool::Lease host_shared;
    std::optional<Readback> readback;
    std::vector<PointTrace> traces;
    std::vector<std::vector<double>> overheads;
  };
  const auto st = std::make_shared<GroupState>();
  st->launch = prepared.get();  // its RunError, if any, is this group's
  const std::unique_ptr<CudaLaunch>& launch = st->launch;

  // ---- arrays, parameter table, results -----------------------------------
  TextureSet textures(drv_);
  PlacementTools tools{&arrays_, &scattered_arrays_, &aliased_arrays_, &scatter_, k.module, nullptr};
  CUfunction fill = nullptr;
  if (needs_helpers(launch->arrays)) std::tie(tools.scatter_fn, fill) = helper_functions(timings);
  prof_.prep_ms += ms_since(t_prep);
  timeline::mark("group: host prep done");
  auto t_lap = std::chrono::steady_clock::now();
  FillBatch fills;
  const Frames frames = arena_frames(launch->arrays);
  const std::vector<dissect_array_ref> refs = place_arrays(drv_, launch->arrays, tools, textures, fills);
  timeline::mark("group: arrays placed");
  ParamTable table;
  OutputLayout outputs;
  std::vector<KernelArg> arg_list;
  const std::size_t smid_output = launch->lay_out(refs, table, outputs, arg_list);
  const std::uint64_t fills_at = table.add(fills.descs());
  const CUdeviceptr tab = tables_.ensure(table.bytes().size());
  DISSECT_CU(drv_, cuMemcpyHtoD(tab, table.bytes().data(), table.bytes().size()));
  launch_fills(drv_, fill, fills, tab + fills_at);
  timeline::mark("group: table uploaded, fills launched");
  // Per-sample results in buffers of their own, then the small ones (the order the
  // buffers have always been allocated in: their placement is part of the measurement).
  std::vector<CUdeviceptr> buffer_at(outputs.sample_buffers(), 0);
  for (std::size_t i = 0; i < outputs.outputs(); ++i)
    if (outputs.buffer(i) != OutputLayout::kShared && outputs.size(i) > 0)
      buffer_at[outputs.buffer(i)] = sample_buffer(outputs.buffer(i)).ensure(outputs.size(i));
  const CUdeviceptr results = results_.ensure(std::max<std::uint64_t>(outputs.shared_bytes(), 1));
  auto output_at = [&](std::size_t i) -> CUdeviceptr {
    if (outputs.size(i) == 0) return 0;
    return outputs.buffer(i) == OutputLayout::kShared ? results + outputs.offset(i) : buffer_at[outputs.buffer(i)];
  };
  const bool flush_l2 = launch->flush_l2 && l2_bytes_ > 0;
  const SmemPlan smem = apply_smem(k, e0, launch->shared_bytes);
  const std::uint32_t threads = e0.layout.threads;
  const int occupancy = occupancy_of(k, threads, smem.dynamic_bytes);
  std::vector<CUdeviceptr> pointers(arg_list.size(), 0);
  unsigned int rt_zero = 0;
  std::vector<void*> args;
  for (std::size_t i = 0; i < arg_list.size(); ++i) {
    const KernelArg& a = arg_list[i];
    if (a.kind == KernelArg::Kind::zero) {
      args.push_back(&rt_zero);
      continue;
    }
    pointers[i] = a.kind == KernelArg::Kind::table ? tab + a.value : output_at(a.value);
    args.push_back(&pointers[i]);
  }
  timeline::mark("group: arrays placed, table uploaded");

  // ---- launches (one per repeat) ---------------------------------------------
  const std::size_t n = group.points.size();
  std::vector<PointTrace>& traces = st->traces;
  traces.resize(n);
  std::vector<std::vector<double>>& overheads = st->overheads;
  overheads.resize(n);
  std::vector<double> clocks;
  // Host copies: one per per-sample buffer, one of the shared buffer.
  std::vector<HostBufferPool::Lease>& host = st->host;
  host.resize(outputs.sample_buffers());
  HostBufferPool::Lease& host_shared = st->host_shared;
  host_shared = readback_buffers_.take(outputs.shared_bytes());
  std::vector<std::span<const unsigned char>> views;
  for (std::size_t i = 0; i < outputs.outputs(); ++i) {
    if (outputs.buffer(i) == OutputLayout::kShared) {
      views.emplace_back(host_shared.data() + outputs.offset(i), outputs.size(i));
    } else {
      host[outputs.buffer(i)] = readback_buffers_.take(outputs.size(i));
      views.emplace_back(host[outputs.buffer(i)].data(), outputs.size(i));
    }
  }
  const Readback& readback = st->readback.emplace(std::move(views));
  const std::function<void()> meanwhile = [&] {
    // The group before's host end, while this group's kernel runs.
    if (group_tail_)
      if (std::exception_ptr e = finish_group_tail(); e && !group_tail_error_) group_tail_error_ = e;
    std::map<std::string, std::string> notes{{"launch", group.per_sm ? "per_sm" : "single"},
                                             {"launch_points", std::to_string(n)},
                                             {"dynamic_shared_bytes", std::to_string(smem.dynamic_bytes)},
                                             {"shared_config_bytes", std::to_string(smem.config_bytes)},
                                             {"occupancy_blocks_per_sm", std::to_string(occupancy)},
                                             {"smem_note", smem.note}};
    if (flush_l2) notes["l2_flushed_before_launch"] = "1";
    if (frames == Frames::scattered && scattered_arrays_.frames().active()) {
      notes["frames_chunk_bytes"] = std::to_string(scattered_arrays_.frames().chunk_bytes());
      notes["frames_chunks"] = std::to_string(scattered_arrays_.frames().chunks());
    }
    for (std::size_t gi = 0; gi < n; ++gi) launch->start_point(gi, traces[gi], e0.repeats);
    start_points(req, group, traces, notes, sink);
  };
  double kernel_ms = 0;
  for (std::uint32_t r = 0; r < e0.repeats; ++r) {
    for (std::size_t b = 0; b < host.size(); ++b)
      if (!host[b].empty()) DISSECT_CU(drv_, cuMemsetD8Async(buffer_at[b], 0xff, host[b].size(), nullptr));
    DISSECT_CU(drv_, cuMemsetD8Async(results, 0xff, outputs.shared_bytes(), nullptr));
    if (flush_l2) DISSECT_CU(drv_, cuMemsetD8Async(flush_.ensure(4 * l2_bytes_), 0x5a, 4 * l2_bytes_, nullptr));
    prof_.upload_ms += ms_since(t_lap);
    t_lap = std::chrono::steady_clock::now();
    double clock_khz_now = 0;
    const double ms = launch_kernel(k, launch->blocks, threads, smem.dynamic_bytes, args.data(), &clock_khz_now,
                                    r == 0 ? meanwhile : std::function<void()>{});
    prof_.launch_ms += ms_since(t_lap);
    t_lap = std::chrono::steady_clock::now();
    kernel_ms += ms;
    timings.kernel_ms += ms;
    ++timings.launches;
    clocks.push_back(clock_khz_now);
    for (std::size_t b = 0; b < host.size(); ++b)
      if (!host[b].empty()) DISSECT_CU(drv_, cuMemcpyDtoH(host[b].data(), buffer_at[b], host[b].size()));
    if (!host_shared.empty()) DISSECT_CU(drv_, cuMemcpyDtoH(host_shared.data(), results, host_shared.size()));
    timeline::mark("group: read back");
    // Blocks that must each have an SM of their own (per-SM packing, arrays per block),
    // checked through %smid.
    const bool own_sms = group.per_sm || e0.layout.array == BlockArrays::per_block;
    const std::optional<std::uint32_t> clash = own_sms ? sm_run_twice(readback.as<std::uint32_t>(smid_output))
                                                       : std::nullopt;
    if (clash && !group.per_sm)
      throw RunError("layout.array per_block: two blocks ran on SM " + std::to_string(*clash) +
                     " (the shared-memory request did not keep them apart)");
    if (clash) {  // the packing did not hold: run the points one at a time instead
      std::cerr << "dissect: per-SM launch of " << n << " points: two blocks ran on SM " << *clash
                << "; running them one at a time\n";
      for (const std::size_t pi : group.points) {
        const LaunchGroup alone{{pi}, false};
        std::future<std::unique_ptr<CudaLaunch>> mine =
            std::async(std::launch::deferred, [this, &req, &alone] { return prepare_launch(req, alone); });
        run_group(req, alone, mine, timings, sink);
      }
      return;
    }
    if (r + 1 < e0.repeats) launch->decode(r, readback, traces, overheads);
  }
  prof_.readback_ms += ms_since(t_lap);

  // ---- decoded and to the sink: while the next group's kernel runs -------------------
  const double clock_khz = clocks.empty() ? kUnknown
                                          : std::accumulate(clocks.begin(), clocks.end(), 0.0) /
                                                static_cast<double>(clocks.size());
  const std::uint32_t last_repeat = e0.repeats - 1;
  // Where an error of the tail happened, said as run_group says it (the tail runs outside it).
  std::string where = "spec " + (req.spec != nullptr ? req.spec->path : std::string("?")) + ", point " +
                      point_label(req.points[group.points.front()]);
  if (n > 1)
    where += " (one per-SM launch of points #" + std::to_string(req.points[group.points.front()].id) + "..#" +
             std::to_string(req.points[group.points.back()].id) + ")";
  group_tail_ = [this, st, &req, &sink, &family, points = group.points, clock_khz, kernel_ms, smid_output,
                 last_repeat, where = std::move(where)] {
    try {
      auto t_tail = std::chrono::steady_clock::now();
      st->launch->decode(last_repeat, *st->readback, st->traces, st->overheads);
      prof_.readback_ms += ms_since(t_tail);
      t_tail = std::chrono::steady_clock::now();
      const auto smid = st->readback->as<std::uint32_t>(smid_output);
      RunSink::PointBatch batch;
      batch.reserve(points.size());
      for (std::size_t gi = 0; gi < points.size(); ++gi) {
        const Point& p = req.points[points[gi]];
        const Experiment& e = p.experiment;
        PointTrace& t = st->traces[gi];
        t.point_id = p.id;
        t.kernel_ms = kernel_ms;
        t.sm_clock_khz = clock_khz;
        t.sm_id = static_cast<std::int32_t>(smid[st->launch->first_block(gi)]);
        t.accesses_per_pass = st->launch->accesses_per_pass(gi);
        t.discard_passes = e.discard;
        const double ovh = median(st->overheads[gi]);
        // A sample that averages a chain carries its share of one timer overhead.
        t.timer_overhead_cycles = family.sample_averages_iterations(e)
                                      ? ovh / static_cast<double>(std::max<std::uint64_t>(e.iterations, 1))
                                      : ovh;
        // t.params: during the launch (meanwhile)
        batch.emplace_back(&p, std::move(t));
      }
      sink.points_done(std::move(batch));
      prof_.sink_ms += ms_since(t_tail);
      timeline::mark("group: points stored");
    } catch (const RunError& e) {  // no driver call here: a decoding or storing error
      throw RunError(where + ": " + e.what());
    }
  };
}

std::exception_ptr CudaDevice::finish_group_tail() noexcept {
  if (!group_tail_) return nullptr;
  const std::function<void()> tail = std::exchange(group_tail_, {});
  try {
    tail();
  } catch (...) {
    return std::current_exception();
  }
  return nullptr;
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
