// Compile-time parameters: one CUBIN per distinct set, runtime quantities excluded.
#include <doctest/doctest.h>

#include "codegen_test_support.hpp"
#include "engine/codegen/kernel_params.hpp"
#include "engine/device/kernel_family.hpp"
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

TEST_CASE("kernel_identity tells experiments apart exactly as kernel_params does") {
  // Every kernel over a grid of the fields some template reads, and of fields none reads.
  std::vector<Experiment> grid;
  for (const KernelKind kind : {KernelKind::pchase, KernelKind::phases, KernelKind::shared_stride,
                                KernelKind::coalescing, KernelKind::throughput})
    for (const char* path : {"ca", "cg", "tex", "const"})
      for (const char* element : {"u32", "u64"})
        for (const char* mode : {"per_access", "chain"})
          for (const char* clock : {"clock", "clock64"})
            for (const std::uint32_t ilp : {1u, 4u, 256u})
              for (const std::uint64_t size : {4096ull, 8192ull}) {
                Experiment e = kind == KernelKind::phases ? test::phases_experiment(path, "ca")
                                                          : test::pchase_experiment(path, element, mode, clock);
                e.kernel = kind;
                e.element = std::string(element) == "u64" ? ElementType::u64 : ElementType::u32;
                e.timing.clock = std::string(clock) == "clock64" ? ClockSource::clock64 : ClockSource::clock;
                e.timing.mode = std::string(mode) == "chain" ? TimingMode::chain : TimingMode::per_access;
                e.ilp = ilp;
                e.array.size_bytes = size;
                grid.push_back(e);
              }
  std::size_t same = 0;
  for (std::size_t i = 0; i < grid.size(); i += 7)  // a sample of the pairs: the grid has ~2000 experiments
    for (std::size_t j = 0; j < grid.size(); j += 3) {
      const bool params_equal = kernel_params(grid[i]).canonical() == kernel_params(grid[j]).canonical();
      CHECK(params_equal == (kernel_identity(grid[i]) == kernel_identity(grid[j])));
      same += params_equal ? 1 : 0;
    }
  CHECK(same > 0);  // the grid has pairs that share a kernel, not only distinct ones
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

TEST_CASE("throughput stores: their own kernel (DISSECT_STORE 1), label and identity") {
  Experiment load = test::pchase_experiment("cg");
  load.kernel = KernelKind::throughput;
  load.ilp = 4;
  Experiment store = load;
  store.access = Access::store;
  CHECK(kernel_params(store).label == "throughput-store-cg-u32-ilp4-clock");
  CHECK(kernel_params(store).canonical().find("DISSECT_STORE=1") != std::string::npos);
  CHECK(kernel_params(load).canonical().find("DISSECT_STORE=0") != std::string::npos);
  // Loads and stores never share a kernel or a launch; two stores alike do.
  CHECK(kernel_identity(load) != kernel_identity(store));
  Experiment other = store;
  other.array.size_bytes *= 2;
  CHECK(kernel_identity(other) == kernel_identity(store));
  CHECK(kernel_params(other).canonical() == kernel_params(store).canonical());
}
