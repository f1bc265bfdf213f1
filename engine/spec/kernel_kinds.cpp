#include "engine/spec/kernel_kinds.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace dissect {
namespace {

std::uint64_t chasers(const Experiment& e) { return e.layout.chasers.size() * e.layout.blocks; }

std::uint64_t pchase_samples(const Experiment& e) {
  return (e.timing.mode == TimingMode::chain ? 1 : e.iterations) * chasers(e) * e.repeats;
}

std::string pchase_formula(const Experiment& e) {
  if (e.timing.mode == TimingMode::chain) return "";
  return std::to_string(e.iterations) + " timed accesses x " + std::to_string(chasers(e)) + " chasing threads x " +
         std::to_string(e.repeats) + " repeats = ";
}

std::uint64_t phases_samples(const Experiment& e) {
  std::uint64_t n = 0;
  for (const auto& p : e.phases) {
    if (p.action != Phase::Action::measure) continue;
    for (const auto& a : e.arrays)
      if (a.name == p.array) {
        Experiment one = e;
        one.array = a.array;
        n += p.passes * one.accesses_per_pass();
      }
  }
  return n * e.repeats;
}

std::uint64_t shared_stride_samples(const Experiment& e) {
  return std::uint64_t{e.layout.threads} * e.layout.blocks * e.repeats;
}

std::uint64_t throughput_samples(const Experiment& e) {
  return ((e.layout.threads + 31) / 32) * std::uint64_t{e.layout.blocks} * e.repeats;
}

std::uint64_t coalescing_samples(const Experiment& e) { return e.iterations * e.layout.blocks * e.repeats; }

const std::array<KernelKindInfo, 5> kKinds{{
    {KernelKind::pchase, "pchase",
     "per_access: one per timed access per chasing thread (latency of that load); chain: one per chasing "
     "thread per repeat (average cycles per load of a chain of `iterations` dependent loads)",
     pchase_samples, false, false, std::nullopt, true, false, pchase_formula},
    {KernelKind::phases, "phases",
     "one per timed access of a measure phase (Sample::phase: the index of the measure phase among them)",
     phases_samples, true, false, std::nullopt, false, false},
    {KernelKind::shared_stride, "shared_stride",
     "one per lane per repeat: average cycles per access over `iterations` dependent reads of word lane * stride",
     shared_stride_samples, false, true, LoadPath::shared, false, false},
    {KernelKind::throughput, "throughput",
     "one per warp per repeat: cycles from the warp's first load (or store) to its last result (stores: to "
     "their completion); offset_bytes = bytes it loaded (or stored)",
     throughput_samples, false, false, std::nullopt, false, true},
    {KernelKind::coalescing, "coalescing",
     "one per warp request per repeat: cycles of one warp-wide load, lane i at offset i * stride",
     coalescing_samples, false, true, std::nullopt, false, false},
}};

}  // namespace

std::span<const KernelKindInfo> kernel_kinds() { return kKinds; }

std::string kernel_kind_names(bool KernelKindInfo::*rule) {
  std::string out;
  for (const auto& k : kKinds)
    if (k.*rule) out += (out.empty() ? "" : " or ") + std::string(k.name);
  return out;
}

const KernelKindInfo& kernel_kind_info(KernelKind kind) {
  for (const auto& k : kKinds)
    if (k.kind == kind) return k;
  throw std::logic_error("kernel kind " + std::to_string(static_cast<int>(kind)) + " has no row in kernel_kinds.cpp");
}

}  // namespace dissect
