#include "engine/spec/experiment.hpp"

#include "engine/spec/kernel_kinds.hpp"

#include <algorithm>

namespace dissect {

const char* to_string(LoadPath v) {
  switch (v) {
    case LoadPath::ca: return "ca";
    case LoadPath::cg: return "cg";
    case LoadPath::cs: return "cs";
    case LoadPath::cv: return "cv";
    case LoadPath::lu: return "lu";
    case LoadPath::ldg: return "ldg";
    case LoadPath::tex: return "tex";
    case LoadPath::constant: return "const";
    case LoadPath::shared: return "shared";
  }
  return "?";
}
const char* to_string(ElementType v) { return v == ElementType::u32 ? "u32" : "u64"; }
const char* to_string(Access v) { return v == Access::load ? "load" : "store"; }
const char* to_string(Pattern v) {
  switch (v) {
    case Pattern::sequential: return "sequential";
    case Pattern::random: return "random";
    case Pattern::list: return "list";
    case Pattern::page_strided: return "page_strided";
    case Pattern::page_random: return "page_random";
  }
  return "?";
}
const char* to_string(Frames v) {
  switch (v) {
    case Frames::contiguous: return "contiguous";
    case Frames::scattered: return "scattered";
    case Frames::aliased: return "aliased";
  }
  return "?";
}
const char* to_string(TimingMode v) {
  return v == TimingMode::per_access ? "per_access" : v == TimingMode::chain ? "chain" : "on_chip";
}
const char* to_string(ClockSource v) { return v == ClockSource::clock ? "clock" : "clock64"; }
const char* to_string(WarmupBy v) { return v == WarmupBy::chase ? "chase" : "block"; }
const char* to_string(BlockArrays v) { return v == BlockArrays::shared ? "shared" : "per_block"; }
const char* to_string(KernelKind v) { return kernel_kind_info(v).name.data(); }
const char* to_string(Target v) {
  switch (v) {
    case Target::automatic: return "auto";
    case Target::l1: return "l1";
    case Target::texture: return "texture";
    case Target::readonly: return "readonly";
    case Target::constant: return "constant";
    case Target::constant_l15: return "constant_l15";
    case Target::shared: return "shared";
    case Target::l2: return "l2";
    case Target::tlb: return "tlb";
    case Target::dram: return "dram";
  }
  return "?";
}

std::uint64_t element_bytes(ElementType t) { return t == ElementType::u32 ? 4 : 8; }

Target default_target(LoadPath p) {
  switch (p) {
    case LoadPath::ca: return Target::l1;
    case LoadPath::ldg: return Target::readonly;
    case LoadPath::tex: return Target::texture;
    case LoadPath::constant: return Target::constant;
    case LoadPath::shared: return Target::shared;
    case LoadPath::cg:
    case LoadPath::cs:
    case LoadPath::cv:
    case LoadPath::lu: return Target::l2;
  }
  return Target::l2;
}

const char* store_operator(LoadPath p) {
  switch (p) {
    case LoadPath::ca: return "wb";
    case LoadPath::cg: return "cg";
    case LoadPath::cs: return "cs";
    case LoadPath::cv: return "wt";
    case LoadPath::shared: return "shared";
    case LoadPath::lu:
    case LoadPath::ldg:
    case LoadPath::tex:
    case LoadPath::constant: return nullptr;
  }
  return nullptr;
}

bool is_sm_private(Target t) {
  switch (t) {
    case Target::l1:
    case Target::texture:
    case Target::readonly:
    case Target::constant:
    case Target::shared: return true;
    default: return false;
  }
}

std::uint64_t Experiment::accesses_per_pass() const {
  if (array.pattern == Pattern::list) return std::max<std::uint64_t>(1, array.indices_bytes.size());
  if (array.stride_bytes == 0) return 1;
  if (array.pattern == Pattern::page_strided || array.pattern == Pattern::page_random) {
    return array.page_bytes == 0 ? 1 : std::max<std::uint64_t>(1, array.size_bytes / array.page_bytes);
  }
  // Sequential with wrap-around: the chase returns to its start after
  // N / gcd(N, s) steps; in elements that is what one "pass" is.
  const std::uint64_t e = elem_bytes();
  const std::uint64_t n = array.size_bytes / e, s = array.stride_bytes / e;
  if (n == 0 || s == 0) return 1;
  if (array.pattern == Pattern::random) return std::max<std::uint64_t>(1, n / s);
  std::uint64_t a = n, b = s % n;
  while (b != 0) {
    const std::uint64_t t = a % b;
    a = b;
    b = t;
  }
  return n / a;
}

std::uint64_t Experiment::samples_per_point() const { return kernel_kind_info(kernel).samples_per_point(*this); }

}  // namespace dissect
