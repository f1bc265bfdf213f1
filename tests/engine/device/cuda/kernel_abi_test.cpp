// The host tables (engine/device/cuda/kernel_abi.hpp) and the templates' structs
// must agree byte for byte: NVRTC checks their sizes in device code (NVRTC has
// no offsetof; both sides list the same fields in the same order).
#include <doctest/doctest.h>

#include "engine/codegen/codegen.hpp"
#include "engine/codegen/nvrtc_compiler.hpp"
#include "engine/core/diagnostics.hpp"
#include "engine/device/cuda/kernel_abi.hpp"

using namespace dissect;

namespace {
std::string size_line(const std::string& type, std::size_t size) {
  return "static_assert(sizeof(" + type + ") == " + std::to_string(size) + ", \"sizeof " + type + "\");\n";
}
}  // namespace

TEST_CASE("pchase and phases tables match their host mirrors") {
  const TemplateLoader loader(DISSECT_SOURCE_DIR "/kernels_templates");
  std::string checks;
  checks += size_line("dissect_array_ref", sizeof(abi::ArrayRef));
  checks += size_line("dissect_pchase_point", sizeof(abi::PchasePoint));
  checks += size_line("dissect_chaser", sizeof(abi::Chaser));
  KernelParams p;
  p.template_name = "pchase";
  p.entry = "dissect_pchase";
  p.label = "abi";
  p.defines = {{"DISSECT_PATH", "0"}, {"DISSECT_CHAIN", "0"}, {"DISSECT_ELEM_U64", "0"}, {"DISSECT_CLOCK64", "0"},
               {"DISSECT_USES_CONST", "0"}};
  const int arch = NvrtcCompiler::supported_archs().back();
  CHECK_NOTHROW(NvrtcCompiler::compile(instantiate(p, loader).source + checks, "abi-pchase", arch, false));

  std::string ph;
  ph += size_line("dissect_phases_point", sizeof(abi::PhasesPoint));
  ph += size_line("dissect_phase_array", sizeof(abi::PhaseArray));
  ph += size_line("dissect_phase", sizeof(abi::Phase));
  p.template_name = "phases";
  p.entry = "dissect_phases";
  p.defines = {{"DISSECT_NARRAYS", "1"}, {"DISSECT_PHASE_SWITCH", "DISSECT_PHASE_CASE(0, 0)"},
               {"DISSECT_ELEM_U64", "0"}, {"DISSECT_CLOCK64", "0"}, {"DISSECT_USES_CONST", "0"}};
  CHECK_NOTHROW(NvrtcCompiler::compile(instantiate(p, loader).source + ph, "abi-phases", arch, false));
}

TEST_CASE("the batched fill's descriptor matches its host mirror") {
  const TemplateLoader loader(DISSECT_SOURCE_DIR "/kernels_templates");
  const int arch = NvrtcCompiler::supported_archs().back();
  const std::string checks = size_line("dissect_fill_desc", sizeof(abi::FillDesc));
  CHECK_NOTHROW(NvrtcCompiler::compile(instantiate(scatter_kernel_params(), loader).source + checks, "abi-fill", arch,
                                       false));
}
