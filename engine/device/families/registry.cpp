// The kernel families: one line each, in the order of KernelKind.
#include <stdexcept>

#include "engine/device/kernel_family.hpp"

namespace dissect {

const KernelFamily& pchase_family();
const KernelFamily& phases_family();
const KernelFamily& shared_stride_family();
const KernelFamily& throughput_family();
const KernelFamily& coalescing_family();

const std::vector<const KernelFamily*>& kernel_families() {
  static const std::vector<const KernelFamily*> families{
      &pchase_family(), &phases_family(), &shared_stride_family(), &throughput_family(), &coalescing_family(),
  };
  return families;
}

const KernelFamily& kernel_family(KernelKind kind) {
  for (const KernelFamily* f : kernel_families())
    if (f->kind() == kind) return *f;
  throw std::logic_error(std::string("no kernel family for kernel '") + to_string(kind) + "'");
}

KernelParams kernel_params(const Experiment& e) { return kernel_family(e).kernel_params(e); }

std::string kernel_identity(const Experiment& e) {
  std::string id;
  for (const auto v : {static_cast<unsigned>(e.kernel), static_cast<unsigned>(e.element),
                       static_cast<unsigned>(e.timing.clock)})
    id += static_cast<char>(static_cast<unsigned char>(v));
  kernel_family(e).append_identity(e, id);
  return id;
}

std::vector<LoadPath> kernel_load_paths(const Experiment& e) {
  std::vector<LoadPath> out;
  for (const auto& [path, array] : kernel_family(e).arrays(e)) out.push_back(path);
  return out;
}

}  // namespace dissect
