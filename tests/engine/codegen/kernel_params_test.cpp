// Compile-time parameters: one CUBIN per distinct set, runtime quantities excluded.
#include <doctest/doctest.h>

#include "codegen_test_support.hpp"
#include "engine/codegen/kernel_params.hpp"
#include "engine/core/diagnostics.hpp"

using namespace dissect;

TEST_CASE("pchase parameters name the path, element, timing and clock") {
  const KernelParams p = kernel_params(test::pchase_experiment("cg", "u64", "chain", "clock64"));
  CHECK(p.template_name == "pchase");
  CHECK(p.entry == "dissect_pchase");
  CHECK(p.label == "pchase-cg-u64-chain-clock64");
  CHECK(p.canonical().find("DISSECT_PATH=1") != std::string::npos);
  CHECK(p.canonical().find("DISSECT_CHAIN=1") != std::string::npos);
  CHECK(p.canonical().find("DISSECT_ELEM_U64=1") != std::string::npos);
  CHECK(p.canonical().find("DISSECT_CLOCK64=1") != std::string::npos);
}

TEST_CASE("array size, stride and iterations do not change the kernel") {
  Experiment a = test::pchase_experiment("ca");
  Experiment b = a;
  b.array.size_bytes *= 4;
  b.array.stride_bytes = 128;
  b.iterations = 99;
  b.warmup = 7;
  CHECK(kernel_params(a) == kernel_params(b));
  b.path = LoadPath::ldg;
  CHECK_FALSE(kernel_params(a) == kernel_params(b));
}

TEST_CASE("phases parameters list each array's path in the generated switch") {
  const KernelParams p = kernel_params(test::phases_experiment("ca", "tex"));
  CHECK(p.label == "phases-ca+tex-u32-clock");
  CHECK(p.canonical().find("DISSECT_PHASE_CASE(0, 0) DISSECT_PHASE_CASE(1, 6)") != std::string::npos);
  CHECK(p.canonical().find("DISSECT_USES_CONST=0") != std::string::npos);
  CHECK(kernel_params(test::phases_experiment("const", "ca")).canonical().find("DISSECT_USES_CONST=1") !=
        std::string::npos);
}

TEST_CASE("expected PTX loads per path") {
  CHECK(expected_ptx_load(LoadPath::ldg) == "ld.global.nc.");
  CHECK(expected_ptx_load(LoadPath::tex) == "tex.1d.");
  CHECK(expected_ptx_load(LoadPath::constant) == "ld.const.");
  CHECK(expected_ptx_load(LoadPath::shared) == "ld.shared.");
  CHECK(kernel_load_paths(test::phases_experiment("cg", "shared")) ==
        std::vector<LoadPath>{LoadPath::cg, LoadPath::shared});
}

TEST_CASE("shared_stride, coalescing and throughput have templates too") {
  Experiment e = test::pchase_experiment("cg");
  e.kernel = KernelKind::shared_stride;
  CHECK(kernel_params(e).template_name == "shared_stride");
  CHECK(kernel_load_paths(e) == std::vector<LoadPath>{LoadPath::shared});
  e.kernel = KernelKind::coalescing;
  CHECK(kernel_params(e).label == "coalescing-cg-u32-clock");
  e.kernel = KernelKind::throughput;
  e.ilp = 4;
  CHECK(kernel_params(e).label == "throughput-cg-u32-ilp4-clock");
  CHECK(kernel_params(e).canonical().find("DISSECT_ILP=4") != std::string::npos);
}
