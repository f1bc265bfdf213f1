#pragma once
// Small helpers the kernel family files share.
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/spec/experiment.hpp"

namespace dissect {

inline std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

// One byte of an enum (or the low byte of a number) for a kernel identity.
template <typename T>
void append_byte(std::string& out, T v) {
  out += static_cast<char>(static_cast<unsigned char>(v));
}

// The #defines every template reads (kernels_templates/common.cuh).
inline std::pair<std::string, std::string> element_define(const Experiment& e) {
  return {"DISSECT_ELEM_U64", e.element == ElementType::u64 ? "1" : "0"};
}
inline std::pair<std::string, std::string> clock_define(const Experiment& e) {
  return {"DISSECT_CLOCK64", e.timing.clock == ClockSource::clock64 ? "1" : "0"};
}

// The timer-overhead readings a thread wrote (unwritten slots skipped).
inline void append_overheads(std::span<const std::uint32_t> readings, std::vector<double>& out) {
  for (const std::uint32_t v : readings)
    if (v != 0xffffffffu) out.push_back(v);
}

}  // namespace dissect
