#pragma once
// The kinds of kernel as the spec language defines them: one row per KernelKind with
// its name, what one of its samples is, and the rules a spec of that kind obeys. The
// decoder and Experiment read this table; nothing in spec/ branches on a kind.
// How a kind runs (template, CUDA launch, simulated counterpart) is its kernel
// family's business (engine/device/kernel_family.hpp), keyed by the same KernelKind.
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "engine/spec/experiment.hpp"

namespace dissect {

struct KernelKindInfo {
  KernelKind kind;
  std::string_view name;    // as specs write it (`kernel: pchase`)
  std::string_view sample;  // what one sample is (docs, `dissect list`)
  // Samples one point produces (all threads that record, all repeats).
  std::uint64_t (*samples_per_point)(const Experiment& e);
  // The spec's rules for this kind:
  bool named_arrays = false;                // `arrays:` + `phases:` instead of `array:`
  bool warp_access = false;                 // lanes of a warp read at lane * stride
  std::optional<LoadPath> only_path;        // the one path the kind reads (also its default)
  bool chain_timing = false;                // timing.mode chain (and on_chip) is allowed
  bool stores = false;                      // `access: store` is allowed (the kernel can write its array)
  // How samples_per_point comes about, for an error message ("" when it is plain).
  std::string (*samples_formula)(const Experiment& e) = nullptr;
};

// Every kind, in the order of KernelKind.
std::span<const KernelKindInfo> kernel_kinds();
const KernelKindInfo& kernel_kind_info(KernelKind kind);
// The names of the kinds a rule holds for, for messages: "pchase", "a or b".
std::string kernel_kind_names(bool KernelKindInfo::*rule);

}  // namespace dissect
