#pragma once
// A kernel family is one kind of experiment kernel (pchase, phases, ...): everything
// that differs from one kind to the next lives in one family file under
// engine/device/families/, and one line of families/registry.cpp lists it:
//   - its template (kernels_templates/<name>.cuh), the #defines that specialise it
//     and its identity (which points can share a compiled kernel and a launch);
//   - the arrays it reads, with their load paths;
//   - for the CUDA device, the host side of one launch (CudaLaunch): the arrays to
//     place, its parameter table (the template's own structs, engine/device/cuda/
//     template_abi.hpp), its result buffers and arguments, and how the read-back
//     results become samples;
//   - its simulated counterpart (engine/device/sim/sim_kernels.hpp).
// The CUDA and simulated devices are generic: they ask the family of a point's
// `kernel` and never switch on the kind. docs/extending.md walks through adding one.
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/codegen/kernel_params.hpp"
#include "engine/spec/experiment.hpp"

namespace dissect {

class CudaLaunch;
struct CudaLimits;
namespace sim {
struct KernelContext;
}

class KernelFamily {
 public:
  virtual ~KernelFamily() = default;
  [[nodiscard]] virtual KernelKind kind() const = 0;

  // Template, entry point, label and #defines of the kernel that runs `e`.
  [[nodiscard]] virtual KernelParams kernel_params(const Experiment& e) const = 0;
  // Appends a few bytes naming the fields kernel_params reads beyond the kind, the
  // element type and the clock (kernel_identity() adds those): equal bytes for two
  // experiments exactly when their kernel parameters are equal.
  virtual void append_identity(const Experiment& e, std::string& out) const = 0;
  // The arrays the kernel reads, each with its load path, in order.
  [[nodiscard]] virtual std::vector<std::pair<LoadPath, const ArraySpec*>> arrays(const Experiment& e) const {
    return {{e.path, &e.array}};
  }
  // Whether one sample averages `iterations` loads timed as a whole (a chain): its
  // timer overhead is then 1/iterations of one clock-read pair (engine/trace/trace.hpp).
  [[nodiscard]] virtual bool sample_averages_iterations(const Experiment& e) const {
    (void)e;
    return false;
  }

  // The CUDA device's host side of one launch running `points` (one or more blocks
  // each; one per SM when the launch is packed). Throws RunError when a point cannot
  // run within `limits`.
  [[nodiscard]] virtual std::unique_ptr<CudaLaunch> cuda_launch(std::span<const Experiment* const> points,
                                                                const CudaLimits& limits) const = 0;
  // Runs one point on the simulated GPU (engine/device/sim/sim_kernels.hpp).
  virtual void simulate(sim::KernelContext& context) const = 0;
};

// Every family, in the order of KernelKind.
const std::vector<const KernelFamily*>& kernel_families();
const KernelFamily& kernel_family(KernelKind kind);
inline const KernelFamily& kernel_family(const Experiment& e) { return kernel_family(e.kernel); }

// The parameters of the kernel that runs `e` (its family's).
KernelParams kernel_params(const Experiment& e);
// A compact stand-in for kernel_params(e).canonical(): equal for two experiments exactly
// when their KernelParams are (it reads the same fields), and made without building
// them (a few bytes). The CUDA device groups a sweep's points into launches by it;
// tests check it against kernel_params over the spec library.
std::string kernel_identity(const Experiment& e);
// Load paths of an experiment's kernel, in the order of its arrays.
std::vector<LoadPath> kernel_load_paths(const Experiment& e);

}  // namespace dissect
