#include "engine/device/cuda/kernel_modules.hpp"

#include <system_error>

#include "engine/core/diagnostics.hpp"
#include "engine/core/timeline.hpp"
#include "engine/device/cuda/kernel_artifact.hpp"

namespace dissect {

KernelModules::Compiled KernelModules::compiled(const KernelParams& params) const {
  std::shared_ptr<workers::Job<Compiled>> ahead;
  {
    const std::lock_guard lock(precompiled_mutex_);
    if (const auto it = precompiled_.find(params.canonical()); it != precompiled_.end()) {
      ahead = std::move(it->second);  // one load takes it
      precompiled_.erase(it);
    }
  }
  if (ahead) try {
      return ahead->get();  // compiled meanwhile, or compiled here now if no worker took it up
    } catch (const std::exception&) {
      // Compiled again below, so that the error is reported with its context.
    }
  Compiled c;
  c.gen = instantiate(params, templates_);
  c.bin = compile_cached(c.gen, arch_, cache_, true, false);
  return c;
}

void KernelModules::precompile(const KernelParams& params) noexcept {
  try {
    std::string key = params.canonical();
    if (kernels_.count(key) != 0 || prefetches_.count(key) != 0) return;
    const std::lock_guard lock(precompiled_mutex_);
    if (precompiled_.count(key) != 0) return;
    // The job holds copies of what it reads: it may outlive this object (cancelled unless started).
    precompiled_.emplace(std::move(key), workers::start<Compiled>([templates = templates_, cache = cache_,
                                                                    arch = arch_, params] {
                           Compiled c;
                           c.gen = instantiate(params, templates);
                           c.bin = compile_cached(c.gen, arch, cache, true, false);
                           // A fresh kernel's SASS (cuobjdump, ~0.5 s) for its bundle artifact, here
                           // beside the other compiles: not where the run that needs the kernel
                           // took this job up itself (the artifact writer does it beside the kernel).
                           if (!c.bin.from_cache && cache.enabled() && workers::on_worker())
                             (void)sass_of(c.bin, cache);
                           return c;
                         }));
  } catch (const std::exception&) {
    // A hint only: the kernel is compiled when it is loaded.
  }
}

std::unique_ptr<LoadedKernel> KernelModules::load(const KernelParams& params, const char* second_entry) const {
  timeline::mark("load " + params.entry + ": start");
  auto k = std::make_unique<LoadedKernel>();
  Compiled c = compiled(params);
  k->gen = std::move(c.gen);
  k->bin = std::move(c.bin);
  timeline::mark("load " + params.entry + ": cubin in hand");
  struct Unload {  // a module whose function cannot be found is not kept
    const CudaDriver& d;
    CUmodule* m;
    ~Unload() {
      if (m != nullptr && *m != nullptr) d.cuModuleUnload(*m), *m = nullptr;
    }
  } unload{drv_, &k->module};
  DISSECT_CU(drv_, cuModuleLoadData(&k->module, k->bin.cubin.data()));
  DISSECT_CU(drv_, cuModuleGetFunction(&k->fn, k->module, params.entry.c_str()));
  int v = 0;
  DISSECT_CU(drv_, cuFuncGetAttribute(&v, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn));
  k->static_shared = static_cast<std::uint32_t>(v);
  DISSECT_CU(drv_, cuFuncGetAttribute(&k->registers, CU_FUNC_ATTRIBUTE_NUM_REGS, k->fn));
  // Here too: under lazy module loading, getting a function loads its code.
  if (second_entry != nullptr) DISSECT_CU(drv_, cuModuleGetFunction(&k->second, k->module, second_entry));
  unload.m = nullptr;
  timeline::mark("load " + params.entry + ": done");
  return k;
}

void KernelModules::prefetch(const KernelParams& params, const char* second_entry) {
  std::string key = params.canonical();
  if (kernels_.count(key) != 0 || prefetches_.count(key) != 0) return;
  try {
    prefetches_.emplace(std::move(key), std::async(std::launch::async, [this, params, second_entry] {
                          DISSECT_CU(drv_, cuCtxSetCurrent(ctx_));  // a context is current per thread
                          return load(params, second_entry);
                        }));
  } catch (const std::system_error&) {
    // No thread to be had: the kernel is loaded when it is needed, as without a prefetch.
  }
}

std::unique_ptr<LoadedKernel> KernelModules::take_prefetched(const std::string& key) {
  const auto it = prefetches_.find(key);
  if (it == prefetches_.end()) return nullptr;
  std::future<std::unique_ptr<LoadedKernel>> f = std::move(it->second);
  prefetches_.erase(it);
  try {
    return f.get();
  } catch (const std::exception&) {
    return nullptr;
  }
}

LoadedKernel& KernelModules::get(const KernelParams& params, bool* newly) {
  const std::string key = params.canonical();
  auto it = kernels_.find(key);
  if (newly != nullptr) *newly = it == kernels_.end();
  if (it == kernels_.end()) {
    std::unique_ptr<LoadedKernel> k = take_prefetched(key);  // waits for the worker if it is still at it
    if (!k) k = load(params, nullptr);
    it = kernels_.emplace(key, std::move(k)).first;
  }
  return *it->second;
}

void KernelModules::unload_all() noexcept {
  // Compiles ahead load nothing: those no worker has started are called off.
  {
    const std::lock_guard lock(precompiled_mutex_);
    for (auto& [key, job] : precompiled_) job->cancel();
    precompiled_.clear();
  }
  while (!prefetches_.empty())
    if (std::unique_ptr<LoadedKernel> k = take_prefetched(prefetches_.begin()->first); k && k->module != nullptr)
      drv_.cuModuleUnload(k->module);
  for (auto& [key, k] : kernels_)
    if (k->module != nullptr) drv_.cuModuleUnload(k->module);
  kernels_.clear();
}

}  // namespace dissect
