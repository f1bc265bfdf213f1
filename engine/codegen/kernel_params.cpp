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

KernelParams scatter_kernel_params() {
  KernelParams p;
  p.template_name = "scatter";
  p.entry = "dissect_scatter";
  p.label = "scatter";
  return p;
}

}  // namespace dissect
