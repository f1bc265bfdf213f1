#pragma once
// Instantiates a kernel template: the #defines of a KernelParams in front of
// the template text (includes inlined). The result is the exact source NVRTC
// compiles, which the bundle keeps and `run --dry-run` prints.
#include <string>
#include <vector>

#include "engine/codegen/kernel_params.hpp"
#include "engine/codegen/template_loader.hpp"

namespace dissect {

struct GeneratedKernel {
  KernelParams params;
  std::string source;
  std::vector<std::string> template_files;
  [[nodiscard]] const std::string& name() const { return params.label; }
  [[nodiscard]] const std::string& entry() const { return params.entry; }
};

GeneratedKernel instantiate(const KernelParams& params, const TemplateLoader& loader);

}  // namespace dissect
