#include "engine/device/cuda/cuda_preview.hpp"

#include <algorithm>
#include <set>

#include "engine/codegen/codegen.hpp"
#include "engine/codegen/compile_cache.hpp"
#include "engine/codegen/nvrtc_compiler.hpp"
#include "engine/device/kernel_family.hpp"
#include "engine/device/cuda/cuda_driver.hpp"

namespace dissect {

std::vector<KernelArtifact> cuda_preview_kernels(std::span<const Point> points, int arch) {
  std::vector<KernelArtifact> out;
  std::set<std::string> seen;
  const TemplateLoader loader;
  for (const auto& p : points) {
    const KernelParams params = kernel_params(p.experiment);
    if (!seen.insert(params.canonical()).second) continue;
    const GeneratedKernel g = instantiate(params, loader);
    KernelArtifact a;
    a.name = g.name() + "-sm_" + std::to_string(arch);
    a.source = g.source;
    a.meta = params.to_json();
    a.meta["arch"] = "sm_" + std::to_string(arch);
    a.meta["cache_key"] = CompileCache::key(g.source, arch, true);
    out.push_back(std::move(a));
  }
  return out;
}

int dry_run_arch(const std::string& arch_text, const std::string& device) {
  if (!arch_text.empty()) return parse_arch(arch_text);
  const std::string ordinal = device.empty() ? "0" : device;
  if (!std::all_of(ordinal.begin(), ordinal.end(), [](char c) { return c >= '0' && c <= '9'; })) return 90;
  if (!CudaDriver::available()) return 90;
  const CudaDriver& d = CudaDriver::get();
  CUdevice dev = 0;
  int major = 0, minor = 0;
  if (d.cuInit(0) != CUDA_SUCCESS || d.cuDeviceGet(&dev, std::stoi(ordinal)) != CUDA_SUCCESS ||
      d.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev) != CUDA_SUCCESS ||
      d.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev) != CUDA_SUCCESS)
    return 90;
  return major * 10 + minor;
}

std::string dry_run_kernel_text(std::span<const Point> points, const std::string& arch_text,
                                const std::string& device) {
  std::string out;
  try {
    const int arch = dry_run_arch(arch_text, device);
    for (const auto& k : cuda_preview_kernels(points, arch)) {
      out += "// ===== kernel " + k.name + " (cache key " + k.meta.value("cache_key", std::string()) + ") =====\n";
      out += "// NVRTC " + NvrtcCompiler::version() + " options:";
      for (const auto& o : NvrtcCompiler::options(arch, true)) out += " " + o;
      out += "\n" + k.source + "\n";
    }
  } catch (const std::exception& e) {
    out += "  (no generated kernel: " + std::string(e.what()) + ")\n";
  }
  return out;
}

}  // namespace dissect
