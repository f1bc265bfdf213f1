#include "engine/device/cuda/cuda_driver.hpp"

#include <cudaTypedefs.h>
#include <dlfcn.h>

#include <mutex>

#include "engine/core/diagnostics.hpp"
#include "engine/device/cuda/cuda_error.hpp"

namespace dissect {
namespace {

const char* const kNoGpuHint =
    "; to run without a GPU use a simulated one: --device sim:<profile> (see 'dissect list devices')";

// The ABI the entry points are asked for. cuda.h declares the CUDA 12 forms of
// everything dissect calls; asking for CUDA_VERSION (13000) would return newer
// forms where CUDA 13 changed a signature (cuCtxSynchronize(CUcontext)), which
// the declarations do not match.
constexpr int kAbiVersion = 12000;

std::once_flag g_once;
CudaDriver* g_driver = nullptr;
std::string g_error;

}  // namespace

CudaDriver* CudaDriver::load(std::string& error) {
  void* lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* e = ::dlerror();
    error = std::string("no CUDA driver: cannot open libcuda.so.1 (") + (e ? e : "unknown error") + ")";
    return nullptr;
  }
  auto get_proc = reinterpret_cast<PFN_cuGetProcAddress_v12000>(::dlsym(lib, "cuGetProcAddress_v2"));
  if (get_proc == nullptr) {
    error = "the CUDA driver is too old: libcuda.so.1 has no cuGetProcAddress_v2 (a CUDA 12 or newer driver is needed)";
    return nullptr;
  }
  auto* d = new CudaDriver();
  bool ok = true;
#define DISSECT_CUDA_LOAD(name)                                                                          \
  if (ok) {                                                                                              \
    void* fn = nullptr;                                                                                  \
    CUdriverProcAddressQueryResult found{};                                                              \
    const CUresult r = get_proc(#name, &fn, kAbiVersion, CU_GET_PROC_ADDRESS_DEFAULT, &found);           \
    if (r != CUDA_SUCCESS || fn == nullptr || found != CU_GET_PROC_ADDRESS_SUCCESS) {                    \
      error = "the CUDA driver lacks " #name " (a CUDA 12 or newer driver is needed)";                 \
      ok = false;                                                                                        \
    } else {                                                                                             \
      d->name = reinterpret_cast<decltype(d->name)>(fn);                                                 \
    }                                                                                                    \
  }
  DISSECT_CUDA_DRIVER_ENTRIES(DISSECT_CUDA_LOAD)
#undef DISSECT_CUDA_LOAD
  if (!ok) {
    delete d;
    return nullptr;
  }
  return d;  // lives for the process, like the library
}

const CudaDriver& CudaDriver::get() {
  std::call_once(g_once, [] { g_driver = load(g_error); });
  if (g_driver == nullptr) throw RunError(g_error + kNoGpuHint);
  return *g_driver;
}

bool CudaDriver::available(std::string* why) {
  std::call_once(g_once, [] { g_driver = load(g_error); });
  if (g_driver == nullptr && why != nullptr) *why = g_error;
  return g_driver != nullptr;
}

std::string CudaDriver::error_text(CUresult r) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (cuGetErrorName == nullptr || cuGetErrorName(r, &name) != CUDA_SUCCESS) name = nullptr;
  if (cuGetErrorString == nullptr || cuGetErrorString(r, &text) != CUDA_SUCCESS) text = nullptr;
  std::string s = name ? name : "CUDA error " + std::to_string(static_cast<int>(r));
  if (text) s += std::string(" (") + text + ")";
  return s;
}

void CudaDriver::check(CUresult r, const char* call) const {
  if (r == CUDA_SUCCESS) return;
  std::string c = call;
  if (const auto p = c.find('('); p != std::string::npos) c = c.substr(0, p);
  throw CudaError(c + ": " + error_text(r), r, c);
}

}  // namespace dissect
