// CI has no GPU: every template x load path x element type is compiled with
// NVRTC for sm_70, sm_80 and sm_90, and the PTX must hold the requested load.
#include <doctest/doctest.h>

#include <cstdio>

#include "codegen_test_support.hpp"
#include "engine/device/kernel_family.hpp"
#include "engine/codegen/codegen.hpp"
#include "engine/codegen/disassembler.hpp"
#include "engine/codegen/nvrtc_compiler.hpp"
#include "engine/core/diagnostics.hpp"

using namespace dissect;

namespace {

const TemplateLoader& loader() {
  static const TemplateLoader l(DISSECT_SOURCE_DIR "/kernels_templates");
  return l;
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The archs the brief asks for; an NVRTC that dropped one (CUDA 13 dropped
// Volta, sm_70) is checked to refuse it clearly, and the next one it has is
// compiled in its place so the oldest supported target is still covered.
std::vector<int> test_archs() {
  std::vector<int> out;
  for (int a : {70, 80, 90}) {
    if (NvrtcCompiler::supports(a)) {
      out.push_back(a);
      continue;
    }
    MESSAGE("NVRTC " << NvrtcCompiler::version() << " does not support sm_" << a
                     << "; checking that it is refused and compiling for the oldest supported arch instead");
    try {
      (void)NvrtcCompiler::compile("extern \"C\" __global__ void k() {}", "k", a, false);
      FAIL("sm_" << a << " compiled although NVRTC says it is unsupported");
    } catch (const RunError& e) {
      CHECK(has(e.what(), "sm_" + std::to_string(a)));
    }
    const auto supported = NvrtcCompiler::supported_archs();
    REQUIRE_FALSE(supported.empty());
    out.push_back(supported.front());
  }
  return out;
}

}  // namespace

TEST_CASE("NVRTC reports a version and supported architectures") {
  CHECK(NvrtcCompiler::version() != "unknown");
  CHECK_FALSE(NvrtcCompiler::supported_archs().empty());
  CHECK(parse_arch("sm_90") == 90);
  CHECK(parse_arch("compute_80") == 80);
  CHECK_THROWS_AS((void)parse_arch("hopper"), std::invalid_argument);
}

TEST_CASE("every load path x element type compiles to PTX with the requested load (sm_70/80/90)") {
  for (const int arch : test_archs()) {
    for (const char* path : test::kAllPaths) {
      for (const char* elem : {"u32", "u64"}) {
        for (const char* mode : {"per_access", "chain", "on_chip"}) {
          const Experiment e = test::pchase_experiment(path, elem, mode, arch == 90 ? "clock64" : "clock");
          const GeneratedKernel g = instantiate(kernel_params(e), loader());
          CAPTURE(g.name());
          CAPTURE(arch);
          const CompiledKernel k = NvrtcCompiler::compile(g.source, g.name(), arch, false);
          const std::string want = expected_ptx_load(e.path) + (e.path == LoadPath::tex ? "" : elem);
          CHECK_MESSAGE(has(k.ptx, want), "PTX lacks " << want);
          CHECK(has(k.ptx, ".entry dissect_pchase"));
          CHECK(has(k.ptx, "%smid"));
          CHECK(has(k.ptx, arch == 90 ? "%clock64" : "%clock"));
          CHECK(has(k.ptx, "st.global"));  // the final index leaves the kernel
          // on_chip keeps one byte per sample in shared memory during the timed window
          CHECK(has(k.ptx, "st.shared.u8") == (std::string(mode) == "on_chip"));
        }
      }
    }
  }
}

TEST_CASE("warmup_by block is a pchase variant of its own; the kernels without it do not change") {
  for (const int arch : test_archs()) {
    for (const char* path : {"ca", "cg", "ldg", "tex", "const"}) {
      for (const char* mode : {"per_access", "chain"}) {
        Experiment e = test::pchase_experiment(path, "u32", mode, arch == 90 ? "clock64" : "clock");
        const GeneratedKernel plain = instantiate(kernel_params(e), loader());
        e.warmup_by = WarmupBy::block;
        const GeneratedKernel block = instantiate(kernel_params(e), loader());
        CAPTURE(block.name());
        CAPTURE(arch);
        CHECK(block.name() != plain.name());
        CHECK(has(block.source, "#define DISSECT_WARM_BLOCK 1"));
        CHECK_FALSE(has(plain.source, "#define DISSECT_WARM_BLOCK 1"));
        const CompiledKernel kb = NvrtcCompiler::compile(block.source, block.name(), arch, false);
        const CompiledKernel kp = NvrtcCompiler::compile(plain.source, plain.name(), arch, false);
        // The block's loads, then its barrier, in a function of its own; one more parameter.
        CHECK(has(kb.ptx, "dissect_warm_by_block"));
        CHECK(has(kb.ptx, "atom.shared.xor"));
        CHECK(has(kb.ptx, "dissect_pchase_param_9"));
        CHECK_FALSE(has(kp.ptx, "dissect_warm_by_block"));
        CHECK_FALSE(has(kp.ptx, "dissect_pchase_param_9"));
      }
    }
  }
}

TEST_CASE("timing.unit is an on-chip kernel of its own; the default unit's kernel does not change") {
  for (const int arch : test_archs()) {
    Experiment e = test::pchase_experiment("cg", "u64", "on_chip", arch == 90 ? "clock64" : "clock");
    const GeneratedKernel two = instantiate(kernel_params(e), loader());
    e.timing.unit = 16;
    const GeneratedKernel sixteen = instantiate(kernel_params(e), loader());
    CAPTURE(sixteen.name());
    CHECK(sixteen.name() != two.name());
    CHECK(has(sixteen.source, "#define DISSECT_ON_CHIP_UNIT 16"));
    CHECK_FALSE(has(two.source, "#define DISSECT_ON_CHIP_UNIT 16"));  // the template's default, 2
    const CompiledKernel k = NvrtcCompiler::compile(sixteen.source, sixteen.name(), arch, false);
    CHECK(has(k.ptx, "st.shared.u8"));
  }
}

TEST_CASE("the phases kernel compiles with one load per array path") {
  for (const int arch : test_archs()) {
    for (const auto& [a, b] : std::vector<std::pair<std::string, std::string>>{
             {"ca", "tex"}, {"ca", "ldg"}, {"tex", "ldg"}, {"const", "shared"}, {"cg", "cv"}}) {
      const Experiment e = test::phases_experiment(a, b);
      const GeneratedKernel g = instantiate(kernel_params(e), loader());
      CAPTURE(g.name());
      const CompiledKernel k = NvrtcCompiler::compile(g.source, g.name(), arch, false);
      for (LoadPath p : kernel_load_paths(e)) CHECK_MESSAGE(has(k.ptx, expected_ptx_load(p)), expected_ptx_load(p));
      CHECK(has(k.ptx, "bar.sync"));  // phases are separated by barriers
    }
  }
}

TEST_CASE("shared_stride, coalescing and throughput compile with the requested loads") {
  for (const int arch : test_archs()) {
    Experiment e = test::pchase_experiment("ca");
    e.kernel = KernelKind::shared_stride;
    {
      const GeneratedKernel g = instantiate(kernel_params(e), loader());
      CHECK(has(NvrtcCompiler::compile(g.source, g.name(), arch, false).ptx, "ld.shared.u32"));
    }
    for (const char* path : test::kAllPaths) {
      Experiment x = test::pchase_experiment(path, "u64");
      for (const KernelKind kind : {KernelKind::coalescing, KernelKind::throughput}) {
        x.kernel = kind;
        x.ilp = 4;
        const GeneratedKernel g = instantiate(kernel_params(x), loader());
        CAPTURE(g.name());
        const CompiledKernel k = NvrtcCompiler::compile(g.source, g.name(), arch, false);
        CHECK(has(k.ptx, expected_ptx_load(x.path)));
        CHECK(has(k.ptx, "%smid"));
      }
    }
  }
}

// Stores (access: store): every path with a store compiles to the store of its cache
// operator, ILP of them per round in each loop, nothing folded away; the warp reads its
// clock after a fence, so that its time covers the stores' completion.
TEST_CASE("throughput stores compile to the path's st.<op> (sm_70/80/90)") {
  const std::pair<const char*, const char*> cases[] = {
      {"ca", "st.global.wb."}, {"cg", "st.global.cg."}, {"cs", "st.global.cs."}, {"cv", "st.global.wt."},
      {"shared", "st.shared."}};
  for (const int arch : test_archs()) {
    for (const auto& [path, op] : cases) {
      for (const char* elem : {"u32", "u64"}) {
        Experiment x = test::pchase_experiment(path, elem);
        x.kernel = KernelKind::throughput;
        x.access = Access::store;
        x.ilp = 4;
        const GeneratedKernel g = instantiate(kernel_params(x), loader());
        CAPTURE(g.name());
        CAPTURE(arch);
        const CompiledKernel k = NvrtcCompiler::compile(g.source, g.name(), arch, false);
        const std::string want = std::string(op) + elem;
        std::size_t stores = 0;
        for (std::size_t at = k.ptx.find(want); at != std::string::npos; at = k.ptx.find(want, at + 1)) ++stores;
        // ILP stores in the streaming loop and ILP in the general one (the loops are unrolled).
        CHECK_MESSAGE(stores >= 2 * x.ilp, want << " appears " << stores << " times");
        CHECK(has(k.ptx, std::string(path) == "shared" ? "membar.cta" : "membar.gl"));
        CHECK(has(k.ptx, "%smid"));
        // No load of the array: a store kernel never reads it (its shared copy is not
        // staged). (ld.global.cg.u64 also reads the parameter table.)
        if (!(std::string(path) == "cg" && std::string(elem) == "u64"))
          CHECK_FALSE(has(k.ptx, expected_ptx_load(x.path) + elem));
      }
    }
    // Loads keep no fence in their timed window.
    Experiment ld = test::pchase_experiment("cg");
    ld.kernel = KernelKind::throughput;
    ld.ilp = 4;
    const GeneratedKernel g = instantiate(kernel_params(ld), loader());
    CHECK_FALSE(has(NvrtcCompiler::compile(g.source, g.name(), arch, false).ptx, "membar"));
  }
}

// The throughput kernel's streaming loop: load (store) q of a round at an immediate
// offset of one address register (no per-access index arithmetic), for shared memory
// and global paths. Checked in the SASS where a disassembler is installed
// (cuobjdump/nvdisasm).
TEST_CASE("throughput streaming loop: loads at immediate offsets of one register (sm_90 SASS)") {
  if (!NvrtcCompiler::supports(90)) {
    MESSAGE("SKIPPED: NVRTC " << NvrtcCompiler::version() << " has no sm_90");
    return;
  }
  if (find_disassembler().empty()) {
    MESSAGE("SKIPPED: no cuobjdump or nvdisasm to read the SASS");
    return;
  }
  struct Case {
    const char* path;
    const char* element;
    std::string last_load;  // the ILP-th load of a round, at (ILP - 1) x 32 elements
  };
  for (const Case& c : {Case{"shared", "u32", "LDS R"}, Case{"shared", "u64", "LDS.64 R"},
                        Case{"cg", "u32", "LDG.E.STRONG.GPU R"}, Case{"shared", "u32", "STS ["},
                        Case{"shared", "u64", "STS.64 ["}, Case{"cg", "u32", "STG.E.STRONG.GPU desc"},
                        Case{"ca", "u64", "STG.E.64"}}) {
    Experiment x = test::pchase_experiment(c.path, c.element);
    x.kernel = KernelKind::throughput;
    x.access = c.last_load.rfind("ST", 0) == 0 ? Access::store : Access::load;
    x.ilp = 8;
    const GeneratedKernel g = instantiate(kernel_params(x), loader());
    CAPTURE(g.name());
    const CompiledKernel k = NvrtcCompiler::compile(g.source, g.name(), 90, true);
    std::string why;
    const std::string sass = disassemble_cubin(k.cubin, &why);
    CAPTURE(why);
    REQUIRE_FALSE(sass.empty());
    const std::uint64_t step = 32 * x.elem_bytes();
    char off[32];
    std::snprintf(off, sizeof off, "+0x%llx]", static_cast<unsigned long long>(7 * step));
    bool found = false;
    for (std::size_t at = sass.find(c.last_load); at != std::string::npos && !found;
         at = sass.find(c.last_load, at + 1)) {
      const std::string line = sass.substr(at, sass.find('\n', at) - at);
      found = line.find(off) != std::string::npos && (c.last_load != "LDS R" || line.find("LDS.") == std::string::npos);
    }
    CAPTURE(off);
    CHECK(found);
  }
}

TEST_CASE("the helper kernels (scatter, batched sequential fill) compile (sm_70/80/90)") {
  const GeneratedKernel g = instantiate(scatter_kernel_params(), loader());
  for (const int arch : test_archs()) {
    CAPTURE(arch);
    const CompiledKernel k = NvrtcCompiler::compile(g.source, g.name(), arch, false);
    CHECK(has(k.ptx, ".entry dissect_scatter"));
    CHECK(has(k.ptx, ".entry dissect_fill_sequential_batch"));
    // The fill's descriptors are read through L2 only, as the parameter tables are.
    CHECK(has(k.ptx, "ld.global.cg.u64"));
  }
}

TEST_CASE("CUBIN for sm_90: ptxas accepts every path and reports resources") {
  if (!NvrtcCompiler::supports(90)) {
    MESSAGE("SKIPPED: NVRTC " << NvrtcCompiler::version() << " has no sm_90");
    return;
  }
  for (const char* path : test::kAllPaths) {
    const GeneratedKernel g = instantiate(kernel_params(test::pchase_experiment(path)), loader());
    const CompiledKernel k = NvrtcCompiler::compile(g.source, g.name(), 90, true);
    CHECK(k.arch == "sm_90");
    CHECK(k.cubin.size() > 1000);
    CHECK(k.cubin.compare(0, 4, "\x7f" "ELF") == 0);
    CHECK(has(k.log, "registers"));
  }
  const GeneratedKernel s = instantiate(scatter_kernel_params(), loader());
  CHECK(NvrtcCompiler::compile(s.source, s.name(), 90, true).cubin.size() > 100);
}

TEST_CASE("a compile error carries the NVRTC log and the kernel's name") {
  try {
    (void)NvrtcCompiler::compile("this is not cuda", "broken", NvrtcCompiler::supported_archs().back(), false);
    FAIL("no exception");
  } catch (const RunError& e) {
    CHECK(has(e.what(), "broken"));
    CHECK(has(e.what(), "error"));
  }
}
