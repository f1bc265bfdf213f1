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

// Which parameters run an experiment is its kernel family's to say:
// kernel_params(e) in engine/device/kernel_family.hpp.

// The PTX instruction prefix a load path must compile to ("ld.global.cg.",
// "ld.global.nc.", "tex.1d.", "ld.const.", "ld.shared.").
std::string expected_ptx_load(LoadPath p);

// The helper kernel that writes sparse array contents on the device.
KernelParams scatter_kernel_params();

}  // namespace dissect
