#pragma once
// NVRTC: generated CUDA C++ -> CUBIN for the exact architecture of the device
// (--gpu-architecture=sm_XY, so the driver never JIT-compiles), plus the PTX
// and the compiler log (with ptxas' resource report), which the bundle keeps.
#include <string>
#include <vector>

namespace dissect {

struct CompiledKernel {
  std::string arch;       // "sm_90" (or "compute_90" when only PTX was asked for)
  std::string cubin;      // binary; empty for PTX-only compiles
  std::string ptx;
  std::string log;        // NVRTC + ptxas log (kept even when empty of errors)
  std::string cache_key;  // set by the compile cache
  double compile_ms = 0;  // NVRTC time, or the cache lookup time when from_cache
  bool from_cache = false;
  // From the cache without its PTX and log (CompileCache::find with_text = false):
  // CompileCache::load_text reads them when they are needed.
  bool text_pending = false;
  // The PTX checksum of the cache entry the CUBIN came from: load_text checks the
  // PTX against the same entry, even when another writer replaced it since.
  std::string ptx_checksum;
};

class NvrtcCompiler {
 public:
  static std::string version();                // "13.0"
  static std::vector<int> supported_archs();   // e.g. 75 80 86 87 89 90 100 ...
  static bool supports(int arch);
  // The options a compile for `arch` passes to NVRTC (part of the cache key).
  static std::vector<std::string> options(int arch, bool cubin);
  // Compiles `source`; `arch` is 90 for sm_90. With cubin=false only PTX is
  // produced (compute_XY), which is enough to check instructions without a
  // GPU. Throws RunError with the NVRTC log on failure.
  static CompiledKernel compile(const std::string& source, const std::string& name, int arch, bool cubin = true);
};

// "sm_90" -> 90; throws std::invalid_argument for anything else.
int parse_arch(const std::string& text);

}  // namespace dissect
