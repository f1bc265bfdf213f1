#pragma once
// What `dissect run --dry-run` shows of the kernels: the generated sources, for
// an architecture (--arch sm_XY; default: GPU 0's, or sm_90 without a GPU).
// Needs no GPU and compiles nothing.
#include <span>
#include <string>
#include <vector>

#include "engine/device/device.hpp"

namespace dissect {

std::vector<KernelArtifact> cuda_preview_kernels(std::span<const Point> points, int arch);

// The architecture a dry run targets: `arch_text` if given, else GPU `device`
// (an ordinal) if one can be opened, else sm_90.
int dry_run_arch(const std::string& arch_text, const std::string& device);

// The text a dry run prints for the kernels of `points` (one block per
// distinct kernel), or a line saying why there is none (never throws).
std::string dry_run_kernel_text(std::span<const Point> points, const std::string& arch_text,
                                const std::string& device);

}  // namespace dissect
