#pragma once
// The compile-time parameter set of a kernel: which template, and the #defines
// that specialise it (load path, element type, timing mode, clock, array
// paths of the phases kernel). Everything else (N, s, array contents,
// iterations, warm-up) is a kernel argument, so all points of a sweep that
// share these parameters share one CUBIN.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "engine/spec/experiment.hpp"

namespace dissect {

struct KernelParams {
  std::string template_name;  // file stem in kernels_templates/: "pchase", "phases"
  std::string entry;          // the extern "C" kernel name
  std::string label;          // readable and unique per parameter set: "pchase-ca-u32-per_access-clock"
  std::vector<std::pair<std::string, std::string>> defines;  // in order

  // "template=pchase;DISSECT_PATH=0;..." (what the hash covers, besides the template text).
  [[nodiscard]] std::string canonical() const;
  [[nodiscard]] nlohmann::json to_json() const;
  friend bool operator==(const KernelParams& a, const KernelParams& b) { return a.canonical() == b.canonical(); }
};

// DISSECT_P_* number of a load path (kernels_templates/common.cuh).
int path_code(LoadPath p);

// The parameters of the kernel that runs experiment `e` (every KernelKind has a
// template: pchase, phases, shared_stride, coalescing, throughput).
KernelParams kernel_params(const Experiment& e);

// A compact stand-in for kernel_params(e).canonical(): equal for two experiments exactly
// when their KernelParams are (it reads the same fields), and made without building
// them (a few bytes, no allocation for one array). The CUDA device groups a sweep's
// points into launches by it; tests check it against kernel_params.
std::string kernel_identity(const Experiment& e);

// The PTX instruction prefix a load path must compile to ("ld.global.cg.",
// "ld.global.nc.", "tex.1d.", "ld.const.", "ld.shared.").
std::string expected_ptx_load(LoadPath p);
// Load paths of an experiment's kernel (the path, or each phases array's).
std::vector<LoadPath> kernel_load_paths(const Experiment& e);

// The helper kernel that writes sparse array contents on the device.
KernelParams scatter_kernel_params();

}  // namespace dissect
