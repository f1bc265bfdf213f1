#pragma once
// The compiled kernels of one CUDA context: generated from their templates, compiled
// by NVRTC for the device's exact sm_XY (through the disk cache) and loaded as
// modules, each once. A kernel can be asked for ahead of need (prefetch): it is then
// looked up, compiled and loaded on a worker thread while the host does other work,
// and get() waits for that worker instead of starting over. Kernels that run later can be
// compiled ahead (precompile): NVRTC (or the cache lookup) runs on the worker pool, side by
// side, without loading anything into the context (a module loaded early would take device
// memory before the arrays of the steps before it), and the load takes the result.
#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>

#include "engine/codegen/codegen.hpp"
#include "engine/codegen/compile_cache.hpp"
#include "engine/codegen/kernel_params.hpp"
#include "engine/core/worker_pool.hpp"
#include "engine/device/cuda/cuda_driver.hpp"

namespace dissect {

struct LoadedKernel {
  GeneratedKernel gen;
  CompiledKernel bin;
  CUmodule module = nullptr;
  CUfunction fn = nullptr;
  CUfunction second = nullptr;  // a second entry point of the module, when asked for
  std::uint32_t static_shared = 0;
  int registers = 0;
  // Attribute values last set on fn, and occupancies already asked for (threads,
  // dynamic shared bytes, carveout): not asked of the driver again per launch.
  std::optional<int> max_dynamic_set, carveout_set;
  std::map<std::tuple<std::uint32_t, std::uint32_t, int>, int> occupancy;
};

class KernelModules {
 public:
  KernelModules(const CudaDriver& drv, CUcontext ctx, int arch) : drv_(drv), ctx_(ctx), arch_(arch) {}
  ~KernelModules() { unload_all(); }
  KernelModules(const KernelModules&) = delete;
  KernelModules& operator=(const KernelModules&) = delete;

  // Starts loading a kernel on a worker thread (unless it is loaded or being loaded);
  // `second_entry`: another entry point of the same module to get too.
  void prefetch(const KernelParams& params, const char* second_entry = nullptr);
  // The kernel, loaded on first use (or taken from its prefetch); `*newly` says whether
  // this call loaded it. Throws RunError naming the failing step.
  LoadedKernel& get(const KernelParams& params, bool* newly = nullptr);
  // Starts compiling a kernel on the worker pool (unless it is loaded, being loaded or
  // compiled already); nothing is loaded. Never throws: the load reports errors.
  void precompile(const KernelParams& params) noexcept;
  // Unloads every module (before the context goes); waits for prefetches in flight.
  void unload_all() noexcept;

  [[nodiscard]] CompileCache& cache() { return cache_; }
  [[nodiscard]] const CompileCache& cache() const { return cache_; }

 private:
  // Instantiates, compiles (cached; PTX and log are read later, for the bundle) and
  // loads. Uses only members that do not change, so a worker thread may call it.
  [[nodiscard]] std::unique_ptr<LoadedKernel> load(const KernelParams& params, const char* second_entry) const;
  struct Compiled {
    GeneratedKernel gen;
    CompiledKernel bin;
  };
  // Instantiates and compiles (cached), or takes what precompile made.
  [[nodiscard]] Compiled compiled(const KernelParams& params) const;
  // The kernel a prefetch of `key` loaded (waiting for it), else null: also when the
  // prefetch failed, so that the caller loads it again and its error has a context.
  std::unique_ptr<LoadedKernel> take_prefetched(const std::string& key);

  const CudaDriver& drv_;
  CUcontext ctx_;
  int arch_;
  CompileCache cache_;
  TemplateLoader templates_;
  std::map<std::string, std::unique_ptr<LoadedKernel>> kernels_;  // by canonical params
  // Compiles started ahead (precompile), by canonical params; read by loads on prefetch threads.
  mutable std::mutex precompiled_mutex_;
  mutable std::map<std::string, std::shared_ptr<workers::Job<Compiled>>> precompiled_;  // a load takes its entry
  // Declared last: destroyed (joined) first.
  std::map<std::string, std::future<std::unique_ptr<LoadedKernel>>> prefetches_;
};

}  // namespace dissect
