#include "engine/codegen/kernel_params.hpp"

#include "engine/core/diagnostics.hpp"

namespace dissect {

int path_code(LoadPath p) {
  switch (p) {
    case LoadPath::ca: return 0;
    case LoadPath::cg: return 1;
    case LoadPath::cs: return 2;
    case LoadPath::cv: return 3;
    case LoadPath::lu: return 4;
    case LoadPath::ldg: return 5;
    case LoadPath::tex: return 6;
    case LoadPath::constant: return 7;
    case LoadPath::shared: return 8;
  }
  return 0;
}

std::string KernelParams::canonical() const {
  std::string s = "template=" + template_name + ";entry=" + entry;
  for (const auto& [k, v] : defines) s += ";" + k + "=" + v;
  return s;
}

nlohmann::json KernelParams::to_json() const {
  nlohmann::json d = nlohmann::json::object();
  for (const auto& [k, v] : defines) d[k] = v;
  return {{"template", template_name + ".cuh"}, {"entry", entry}, {"label", label}, {"defines", d}};
}

KernelParams kernel_params(const Experiment& e) {
  KernelParams p;
  const bool u64 = e.element == ElementType::u64;
  const bool clock64 = e.timing.clock == ClockSource::clock64;
  switch (e.kernel) {
    case KernelKind::pchase: {
      const bool chain = e.timing.mode == TimingMode::chain;
      p.template_name = "pchase";
      p.entry = "dissect_pchase";
      p.label = std::string("pchase-") + to_string(e.path) + "-" + to_string(e.element) + "-" +
                to_string(e.timing.mode) + "-" + to_string(e.timing.clock);
      p.defines = {{"DISSECT_PATH", std::to_string(path_code(e.path))},
                   {"DISSECT_CHAIN", chain ? "1" : "0"},
                   {"DISSECT_ELEM_U64", u64 ? "1" : "0"},
                   {"DISSECT_CLOCK64", clock64 ? "1" : "0"},
                   {"DISSECT_USES_CONST", e.path == LoadPath::constant ? "1" : "0"}};
      return p;
    }
    case KernelKind::phases: {
      p.template_name = "phases";
      p.entry = "dissect_phases";
      std::string paths, sw;
      bool uses_const = false;
      for (std::size_t k = 0; k < e.arrays.size(); ++k) {
        const LoadPath lp = e.arrays[k].path;
        uses_const = uses_const || lp == LoadPath::constant;
        paths += (k ? "+" : "") + std::string(to_string(lp));
        sw += (k ? " " : "") + std::string("DISSECT_PHASE_CASE(") + std::to_string(k) + ", " +
              std::to_string(path_code(lp)) + ")";
      }
      if (e.arrays.empty()) throw RunError("kernel phases needs at least one array");
      p.label = "phases-" + paths + "-" + to_string(e.element) + "-" + to_string(e.timing.clock);
      p.defines = {{"DISSECT_NARRAYS", std::to_string(e.arrays.size())},
                   {"DISSECT_PHASE_SWITCH", sw},
                   {"DISSECT_ELEM_U64", u64 ? "1" : "0"},
                   {"DISSECT_CLOCK64", clock64 ? "1" : "0"},
                   {"DISSECT_USES_CONST", uses_const ? "1" : "0"}};
      return p;
    }
    case KernelKind::shared_stride: {
      p.template_name = "shared_stride";
      p.entry = "dissect_shared_stride";
      p.label = std::string("shared_stride-") + to_string(e.element) + "-" + to_string(e.timing.clock);
      p.defines = {{"DISSECT_ELEM_U64", u64 ? "1" : "0"},
                   {"DISSECT_CLOCK64", clock64 ? "1" : "0"},
                   {"DISSECT_USES_CONST", "0"}};
      return p;
    }
    case KernelKind::coalescing: {
      p.template_name = "coalescing";
      p.entry = "dissect_coalescing";
      p.label = std::string("coalescing-") + to_string(e.path) + "-" + to_string(e.element) + "-" +
                to_string(e.timing.clock);
      p.defines = {{"DISSECT_PATH", std::to_string(path_code(e.path))},
                   {"DISSECT_ELEM_U64", u64 ? "1" : "0"},
                   {"DISSECT_CLOCK64", clock64 ? "1" : "0"},
                   {"DISSECT_USES_CONST", e.path == LoadPath::constant ? "1" : "0"}};
      return p;
    }
    case KernelKind::throughput: {
      p.template_name = "throughput";
      p.entry = "dissect_throughput";
      p.label = std::string("throughput-") + to_string(e.path) + "-" + to_string(e.element) + "-ilp" +
                std::to_string(e.ilp) + "-" + to_string(e.timing.clock);
      p.defines = {{"DISSECT_PATH", std::to_string(path_code(e.path))},
                   {"DISSECT_ILP", std::to_string(e.ilp)},
                   {"DISSECT_ELEM_U64", u64 ? "1" : "0"},
                   {"DISSECT_CLOCK64", clock64 ? "1" : "0"},
                   {"DISSECT_USES_CONST", e.path == LoadPath::constant ? "1" : "0"}};
      return p;
    }
  }
  throw RunError(std::string("kernel '") + to_string(e.kernel) + "' has no CUDA template");
}

std::string kernel_identity(const Experiment& e) {
  // The fields each case of kernel_params reads, a byte each (ilp: four).
  std::string id;
  auto byte = [&](auto v) { id += static_cast<char>(static_cast<unsigned char>(v)); };
  byte(e.kernel);
  byte(e.element);
  byte(e.timing.clock);
  switch (e.kernel) {
    case KernelKind::pchase:
      byte(e.path);
      byte(e.timing.mode);
      break;
    case KernelKind::phases:
      for (const auto& a : e.arrays) byte(a.path);
      break;
    case KernelKind::shared_stride: break;
    case KernelKind::coalescing: byte(e.path); break;
    case KernelKind::throughput:
      byte(e.path);
      for (int shift = 0; shift < 32; shift += 8) byte(e.ilp >> shift);
      break;
  }
  return id;
}

std::string expected_ptx_load(LoadPath p) {
  switch (p) {
    case LoadPath::ca: return "ld.global.ca.";
    case LoadPath::cg: return "ld.global.cg.";
    case LoadPath::cs: return "ld.global.cs.";
    case LoadPath::cv: return "ld.global.cv.";
    case LoadPath::lu: return "ld.global.lu.";
    case LoadPath::ldg: return "ld.global.nc.";
    case LoadPath::tex: return "tex.1d.";
    case LoadPath::constant: return "ld.const.";
    case LoadPath::shared: return "ld.shared.";
  }
  return "";
}

std::vector<LoadPath> kernel_load_paths(const Experiment& e) {
  if (e.kernel == KernelKind::shared_stride) return {LoadPath::shared};
  if (e.kernel != KernelKind::phases) return {e.path};
  std::vector<LoadPath> out;
  for (const auto& a : e.arrays) out.push_back(a.path);
  return out;
}

KernelParams scatter_kernel_params() {
  KernelParams p;
  p.template_name = "scatter";
  p.entry = "dissect_scatter";
  p.label = "scatter";
  return p;
}

}  // namespace dissect
