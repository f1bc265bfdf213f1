#pragma once
// A real NVIDIA GPU through the CUDA driver API: generated kernels (NVRTC,
// cached CUBIN for the exact sm_XY), arrays prepared on the host from the
// shared pattern logic, texture objects, the constant bank, the L1/shared
// carveout per kernel, per-SM packing of sweep points, and the device
// description for the bundle.
#include <exception>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "engine/codegen/codegen.hpp"
#include "engine/codegen/compile_cache.hpp"
#include "engine/device/cuda/cuda_driver.hpp"
#include "engine/device/cuda/device_buffer.hpp"
#include "engine/device/cuda/host_buffer_pool.hpp"
#include "engine/device/cuda/kernel_modules.hpp"
#include "engine/device/cuda/launch_plan.hpp"
#include "engine/device/cuda/nvml_clock.hpp"
#include "engine/device/cuda/nvml_processes.hpp"
#include "engine/device/cuda/smem_plan.hpp"
#include "engine/device/device.hpp"

namespace dissect {

class CudaLaunch;  // engine/device/cuda/cuda_launch.hpp

class CudaDevice final : public Device {
 public:
  // Opens GPU `ordinal`; throws RunError (pointing at --device sim:...) when
  // there is no driver or no such GPU. The kernel of `upcoming` (the points that
  // run first, a hint as for prepare()) is loaded while the device opens.
  explicit CudaDevice(int ordinal, std::span<const Point> upcoming = {});
  ~CudaDevice() override;
  CudaDevice(const CudaDevice&) = delete;
  CudaDevice& operator=(const CudaDevice&) = delete;

  [[nodiscard]] nlohmann::json describe() const override;
  [[nodiscard]] std::string selector() const override { return std::to_string(ordinal_); }
  [[nodiscard]] std::uint64_t memory_bytes() const override { return memory_bytes_; }
  // Runs the points. After a kernel fault (a sticky CUDA error: engine/device/cuda/cuda_error.hpp)
  // the context is recreated before run throws DeviceFault (engine/device/device_fault.hpp): the
  // next run goes on in a fresh context, or, when that could not be made, fails at once saying why.
  RunTimings run(const RunRequest& request, RunSink& sink) override;
  void prepare(std::span<const Point> points) noexcept override;
  void compile_ahead(std::span<const Experiment> experiments) noexcept override;
  // The SM clock and the compute processes NVML lists (unknown without NVML).
  [[nodiscard]] GpuSnapshot snapshot() const override;
  [[nodiscard]] int arch() const { return cc_major_ * 10 + cc_minor_; }
  [[nodiscard]] std::uint32_t sm_count() const { return sm_count_; }
  // How often a fault made the device recreate its context (the GPU tests check that an
  // ordinary error, such as a failed allocation, does not).
  [[nodiscard]] unsigned context_resets() const { return context_resets_; }

 private:
  using Kernel = LoadedKernel;

  // Where a run's wall time goes (printed with DISSECT_CUDA_TIMING=1).
  struct Profile {
    double kernel_ms = 0, prep_ms = 0, upload_ms = 0, launch_ms = 0, readback_ms = 0, sink_ms = 0;
  };

  RunTimings run_points(const RunRequest& req, RunSink& sink);
  // After a sticky error: drops everything of the poisoned context (modules, buffers,
  // events), resets it (cuDevicePrimaryCtxReset), retains a fresh one and checks that it
  // runs work. Returns how that went, for the bundle; sets lost_ when it failed.
  nlohmann::json recreate_context() noexcept;
  // The buffers every run needs, in the order the device's opening allocates them (their
  // placement is part of the measurement).
  void reserve_buffers();
  // The test hook DISSECT_TEST_INJECT_FAULT (engine/device/fault_injection.hpp): launches a
  // trapping kernel and synchronises, which throws the sticky CudaError of a kernel fault.
  void inject_test_fault();
  Kernel& kernel(const KernelParams& params, RunTimings& timings, RunSink* sink);
  // The helper kernels (scatter, fill_sequential_batch) that write arrays on the device.
  std::pair<CUfunction, CUfunction> helper_functions(RunTimings& timings);
  void report_kernel(Kernel& k, RunSink& sink);
  // A group's host side, no driver call in it (worker threads prepare later groups while
  // earlier ones measure): its family's launch, with the arrays' contents laid out.
  std::unique_ptr<CudaLaunch> prepare_launch(const RunRequest& req, const LaunchGroup& group) const;
  void run_group(const RunRequest& req, const LaunchGroup& group, std::future<std::unique_ptr<CudaLaunch>>& prepared,
                 RunTimings& timings, RunSink& sink);
  // One launch group with its kernel, for any kernel family: the family lays out the
  // launch (engine/device/cuda/cuda_launch.hpp), this does the rest.
  void launch_group(const RunRequest& req, const LaunchGroup& group, Kernel& k,
                    std::future<std::unique_ptr<CudaLaunch>>& prepared, RunTimings& timings, RunSink& sink);
  // Shared-memory plan of a launch, applied to the function.
  SmemPlan apply_smem(Kernel& k, const Experiment& e, std::uint32_t needed);
  // Blocks per SM for a launch of k (after apply_smem).
  int occupancy_of(Kernel& k, std::uint32_t threads, std::uint32_t dynamic_bytes);
  // One timed launch. While the kernel runs, the host writes the kernel artifacts
  // still pending (report_pending_kernels), does `meanwhile` (a group's first launch:
  // its points' notes and the sink's head start) and samples the SM clock into
  // *clock_khz: that work then costs no wall time of its own.
  double launch_kernel(Kernel& k, std::uint32_t blocks, std::uint32_t threads, std::uint32_t dyn_shared, void** args,
                double* clock_khz, const std::function<void()>& meanwhile = {});
  void report_pending_kernels() noexcept;
  // The host end of the last group (decoding its samples, handing its points to the sink)
  // waits here for the next group's kernel, which it then overlaps (that group's
  // `meanwhile`), or for the end of the run; its error, located at its group, is thrown by
  // run_points once that next group is done (its points kept first), before any other
  // starts. finish_group_tail runs what waits (no driver call in it: also after a kernel
  // fault) and returns its error, if any.
  [[nodiscard]] std::exception_ptr finish_group_tail() noexcept;
  // Waits for the artifacts report_pending_kernels handed to other threads.
  void await_kernel_reports() noexcept;
  // Device buffer i of the per-sample results (made on first use).
  DeviceBuffer& sample_buffer(std::size_t i);
  // Waits for the buffers the constructor allocates on a worker (buffers_reserved_).
  void await_reserved_buffers() noexcept;
  [[nodiscard]] double current_sm_clock_khz() const;

  const CudaDriver& drv_;
  int ordinal_ = 0;
  CUdevice dev_ = 0;
  CUcontext ctx_ = nullptr;
  int cc_major_ = 0, cc_minor_ = 0;
  std::uint32_t sm_count_ = 1;
  std::uint64_t memory_bytes_ = 0;
  SmemLimits smem_;
  nlohmann::json description_;
  std::unique_ptr<NvmlClock> nvml_;
  std::unique_ptr<NvmlProcesses> processes_;
  double rated_clock_khz_ = 0;
  std::unique_ptr<KernelModules> modules_;                   // made once the context exists
  std::set<std::string> reported_;                          // kernels reported to this run's sink
  std::vector<std::pair<Kernel*, RunSink*>> pending_reports_;  // built, not yet handed to the sink
  std::string pending_report_error_;                           // why handing one over failed
  HostBufferPool readback_buffers_;                            // the groups' host copies of their results
  std::function<void()> group_tail_;                           // see finish_group_tail
  std::exception_ptr group_tail_error_;                        // what a tail run as `meanwhile` threw
  std::vector<std::future<void>> artifact_jobs_;               // writing artifacts, on other threads
  DeviceBuffer arrays_{"the chased arrays"}, scattered_arrays_{"the chased arrays (scattered frames)"},
      aliased_arrays_{"the chased arrays (aliased frames)"}, tables_{"the parameter tables"},
      results_{"the per-block and per-thread results"}, scatter_{"the sparse array contents"},
      flush_{"the L2 flush buffer"};
  std::vector<std::unique_ptr<DeviceBuffer>> sample_buffers_;  // per-sample results (OutputLayout::add_samples)
  std::uint64_t l2_bytes_ = 0;
  CUevent ev0_ = nullptr, ev1_ = nullptr;
  Profile prof_;
  // Why the device cannot run any more (its context could not be recreated after a
  // fault); empty while it can.
  std::string lost_;
  unsigned context_resets_ = 0;
  // The buffers every run needs (arrays_, tables_, results_), allocated on a worker
  // thread while the rest of the device opens instead of before the first launch
  // (kernels are prefetched likewise: the helper module and the upcoming points' kernel,
  // KernelModules::prefetch). Declared last: destroyed (joined) first.
  std::future<void> buffers_reserved_;
};

// The `cuda` device family for the registry: selectors that are all digits.
DeviceFactory cuda_device_factory();

}  // namespace dissect
